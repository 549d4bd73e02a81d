// JSON text (RFC 8259) for every output of vlag that is JSON: traces (spec/TRACE.md), the
// --json reports of check, prove and compare, Perfetto's trace events. String literals escape
// every character that must be escaped (§7: '"', '\\' and the control characters U+0000..U+001F,
// the last as \n, \r, \t or \u00XX), numbers are written so that they read back as the same
// value, and objects and arrays are built member by member with the commas in place. It writes
// text only; reading is trace/reader.h's (simdjson).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vlag::json {

/// `text` as a JSON string literal, quotes included; bytes from 0x20 up (UTF-8 included) are
/// written as they are.
std::string quote(std::string_view text);

class Array;

class Object {
 public:
  Object& str(std::string_view key, std::string_view value);
  Object& num(std::string_view key, int64_t value);
  /// The shortest text that reads back as the same double; null when it is not finite (JSON has
  /// no infinities or NaN).
  Object& real(std::string_view key, double value);
  /// As real(double), and null when there is no value.
  Object& real(std::string_view key, std::optional<double> value);
  Object& boolean(std::string_view key, bool value);
  Object& null(std::string_view key);
  Object& object(std::string_view key, const Object& value);
  Object& array(std::string_view key, const Array& value);
  /// A value already written as JSON: a number in a chosen format ("1.250"), a literal.
  Object& raw(std::string_view key, std::string_view json);
  /// Every member of `other`, after this object's own (a report's members after a shared head).
  Object& append(const Object& other);
  /// Every member of the object `object_json` (JSON text of one object, as text() writes it),
  /// after this object's own. Throws std::invalid_argument when the text is not an object.
  Object& append_json(std::string_view object_json);

  bool empty() const { return members_.empty(); }
  std::string text() const { return "{" + members_ + "}"; }
  /// The object so far with a last member `key` opened: the caller writes that member's value
  /// after it, then the closing '}' (a value too long to hold, streamed to its output).
  std::string text_before(std::string_view key) const;

 private:
  Object& member(std::string_view key);
  std::string members_;
};

class Array {
 public:
  Array& add(const Object& value) { return add_raw(value.text()); }
  Array& add(const Array& value) { return add_raw(value.text()); }
  Array& add_string(std::string_view value) { return add_raw(quote(value)); }
  Array& add_raw(std::string_view json);

  std::string text() const { return "[" + elements_ + "]"; }

 private:
  std::string elements_;
};

}  // namespace vlag::json
