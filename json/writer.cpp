#include "json/writer.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace vlag::json {

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
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
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        else
          out += ch;
    }
  }
  return out + "\"";
}

Object& Object::member(std::string_view key) {
  if (!members_.empty()) members_ += ',';
  members_ += quote(key);
  members_ += ':';
  return *this;
}

Object& Object::str(std::string_view key, std::string_view value) {
  member(key).members_ += quote(value);
  return *this;
}

Object& Object::num(std::string_view key, int64_t value) {
  fmt::format_to(std::back_inserter(member(key).members_), "{}", value);
  return *this;
}

Object& Object::real(std::string_view key, double value) {
  if (!std::isfinite(value)) return null(key);
  fmt::format_to(std::back_inserter(member(key).members_), "{}", value);
  return *this;
}

Object& Object::real(std::string_view key, std::optional<double> value) {
  return value ? real(key, *value) : null(key);
}

Object& Object::boolean(std::string_view key, bool value) {
  return raw(key, value ? "true" : "false");
}

Object& Object::null(std::string_view key) { return raw(key, "null"); }

Object& Object::object(std::string_view key, const Object& value) { return raw(key, value.text()); }

Object& Object::array(std::string_view key, const Array& value) { return raw(key, value.text()); }

Object& Object::raw(std::string_view key, std::string_view json) {
  member(key).members_ += json;
  return *this;
}

Object& Object::append(const Object& other) {
  if (other.members_.empty()) return *this;
  if (!members_.empty()) members_ += ',';
  members_ += other.members_;
  return *this;
}

Object& Object::append_json(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}')
    throw std::invalid_argument("append_json: not the text of a JSON object");
  text = text.substr(1, text.size() - 2);
  if (text.empty()) return *this;
  if (!members_.empty()) members_ += ',';
  members_ += text;
  return *this;
}

std::string Object::text_before(std::string_view key) const {
  return "{" + members_ + (members_.empty() ? "" : ",") + quote(key) + ":";
}

Array& Array::add_raw(std::string_view json) {
  if (!elements_.empty()) elements_ += ',';
  elements_ += json;
  return *this;
}

}  // namespace vlag::json
