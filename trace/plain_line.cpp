#include "trace/plain_line.h"

namespace vlag::trace {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// A character a plain string or key holds as it is: printable ASCII other than '"' and '\'
// (so no escape to undo, no control character and no UTF-8 to validate).
bool plain_char(char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

// Reads the string whose opening quote is at line[i]: its characters into `text`, i past the
// closing quote.
bool plain_string(std::string_view line, size_t& i, std::string_view& text) {
  const size_t from = ++i;
  while (i < line.size() && plain_char(line[i])) ++i;
  if (i == line.size() || line[i] != '"') return false;
  text = line.substr(from, i - from);
  ++i;
  return true;
}

// -?(0|[1-9][0-9]*), the integers of RFC 8259 §6, from line[i]; a fraction or an exponent is
// not plain.
bool plain_integer(std::string_view line, size_t& i, PlainValue& v) {
  const size_t from = i;
  const bool negative = i < line.size() && line[i] == '-';
  if (negative) ++i;
  if (i == line.size() || !digit(line[i])) return false;
  const size_t digits_from = i;
  uint64_t x = 0;
  if (line[i] == '0')
    ++i;
  else
    for (; i < line.size() && digit(line[i]); ++i)
      x = x * 10 + static_cast<uint64_t>(line[i] - '0');
  v.text = line.substr(from, i - from);
  if (i - digits_from <= 18)  // x < 10^18 < 2^63: no overflow above
    v.small = negative ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  return true;
}

bool literal(std::string_view line, size_t& i, std::string_view word) {
  if (line.substr(i, word.size()) != word) return false;
  i += word.size();
  return true;
}

bool plain_value(std::string_view line, size_t& i, PlainValue& v) {
  if (i == line.size()) return false;
  v.small.reset();
  using Type = PlainValue::Type;
  switch (line[i]) {
    case '"':
      v.type = Type::String;
      return plain_string(line, i, v.text);
    case 't':
      v.type = Type::True;
      return literal(line, i, "true");
    case 'f':
      v.type = Type::False;
      return literal(line, i, "false");
    case 'n':
      v.type = Type::Null;
      return literal(line, i, "null");
    default:
      v.type = Type::Integer;
      return plain_integer(line, i, v);
  }
}

}  // namespace

// The key at line[i] when it is `key` (a key of the previous line, so plain): i past its quotes.
bool known_key(std::string_view line, size_t& i, std::string_view key) {
  const size_t end = i + 1 + key.size();
  if (end >= line.size() || line[end] != '"') return false;
  // Keys are a few characters: compared here rather than by a call to memcmp.
  for (size_t k = 0; k < key.size(); ++k)
    if (line[i + 1 + k] != key[k]) return false;
  i = end + 1;
  return true;
}

bool split_plain_line(std::string_view line, PlainLine& out) {
  out.size = 0;
  if (line.empty() || line[0] != '{') return false;
  // The keys are compared with the previous line's, in order, as long as they are the same.
  bool same = out.key_ends_[0] > 0;
  size_t i = 1;
  for (;;) {
    if (out.size == PlainLine::kMaxFields || i == line.size() || line[i] != '"') return false;
    const size_t n = out.size++;
    PlainField& f = out.fields[n];
    const size_t from = n == 0 ? 0 : out.key_ends_[n];
    const size_t key_from = i + 1;
    if (same && n < out.key_count_ &&
        known_key(line, i, std::string_view(out.keys_).substr(from, out.key_ends_[n + 1] - from))) {
      f.key = line.substr(key_from, i - key_from - 1);
    } else {
      same = false;
      if (!plain_string(line, i, f.key)) return false;
    }
    if (i == line.size() || line[i] != ':') return false;
    if (!plain_value(line, ++i, f.value)) return false;
    if (i == line.size()) return false;
    if (line[i] == '}') {
      if (i + 1 != line.size()) return false;
      out.same_keys = same && out.size == out.key_count_;
      if (!out.same_keys) out.keep_keys();
      return true;
    }
    if (line[i] != ',') return false;
    ++i;
  }
}

void PlainLine::keep_keys() {
  keys_.clear();
  key_count_ = size;
  for (size_t n = 0; n < size; ++n) {
    keys_ += fields[n].key;
    key_ends_[n + 1] = keys_.size();
  }
  key_ends_[0] = 1;  // some keys are kept
}

}  // namespace vlag::trace
