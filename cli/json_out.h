// Minimal JSON text building for --json outputs: objects and arrays of strings, numbers,
// booleans and already-built JSON. Strings are escaped per RFC 8259.
#pragma once

#include <cstdint>
#include <string>

namespace vlag::cli {

std::string json_quote(const std::string& s);

class JsonObject {
 public:
  JsonObject& str(const std::string& key, const std::string& value);
  JsonObject& num(const std::string& key, int64_t value);
  JsonObject& real(const std::string& key, double value);
  JsonObject& boolean(const std::string& key, bool value);
  JsonObject& raw(const std::string& key, const std::string& json);
  std::string text() const { return "{" + body_ + "}"; }

 private:
  JsonObject& field(const std::string& key, const std::string& json);
  std::string body_;
};

class JsonArray {
 public:
  JsonArray& add(const JsonObject& o) { return add_raw(o.text()); }
  JsonArray& add_string(const std::string& s) { return add_raw(json_quote(s)); }
  JsonArray& add_raw(const std::string& json);
  std::string text() const { return "[" + body_ + "]"; }

 private:
  std::string body_;
};

}  // namespace vlag::cli
