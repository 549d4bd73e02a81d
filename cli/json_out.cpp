#include "cli/json_out.h"

#include <fmt/format.h>

namespace vlag::cli {

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += ch;
    }
  }
  return out + "\"";
}

JsonObject& JsonObject::field(const std::string& key, const std::string& json) {
  if (!body_.empty()) body_ += ",";
  body_ += json_quote(key) + ":" + json;
  return *this;
}

JsonObject& JsonObject::str(const std::string& key, const std::string& value) {
  return field(key, json_quote(value));
}
JsonObject& JsonObject::num(const std::string& key, int64_t value) {
  return field(key, std::to_string(value));
}
JsonObject& JsonObject::real(const std::string& key, double value) {
  return field(key, fmt::format("{}", value));
}
JsonObject& JsonObject::boolean(const std::string& key, bool value) {
  return field(key, value ? "true" : "false");
}
JsonObject& JsonObject::raw(const std::string& key, const std::string& json) {
  return field(key, json);
}

JsonArray& JsonArray::add_raw(const std::string& json) {
  if (!body_.empty()) body_ += ",";
  body_ += json;
  return *this;
}

}  // namespace vlag::cli
