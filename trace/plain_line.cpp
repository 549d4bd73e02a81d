#include "trace/plain_line.h"

#include "trace/plain_scan.h"

namespace vlag::trace {
namespace {

using namespace plain_scan;

// The split reads eight bytes at a time where eight are left in the line (never past its end),
// and byte by byte in the last few.

// Reads the string whose opening quote is at line[i]: its characters into `text`, i past the
// closing quote.
bool plain_string(std::string_view line, size_t& i, std::string_view& text) {
  const size_t from = ++i;
  for (;;) {
    if (i + 8 > line.size()) {
      while (i < line.size() && plain_char(line[i])) ++i;
      break;
    }
    if (const uint64_t stop = not_plain(load8(line.data() + i))) {
      i += static_cast<size_t>(std::countr_zero(stop)) / 8;
      break;
    }
    i += 8;
  }
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
  uint64_t x = 0;  // wraps past 19 digits, when it is not read
  if (line[i] == '0') {
    ++i;
  } else {
    for (;;) {
      if (i + 8 > line.size()) {
        for (; i < line.size() && digit(line[i]); ++i)
          x = x * 10 + static_cast<uint64_t>(line[i] - '0');
        break;
      }
      const uint64_t w = load8(line.data() + i);
      const unsigned n = leading_digits(w);
      if (n == 0) break;
      x = x * kPow10[n] + digits_value(w, n);
      i += n;
      if (n < 8) break;
    }
  }
  v.text = line.substr(from, i - from);
  if (i - digits_from <= 18)  // x < 10^18 < 2^63: no overflow above
    v.small = negative ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  return true;
}

// The literal `word` (4 or 5 letters) at line[i]: i past it.
bool literal(std::string_view line, size_t& i, std::string_view word) {
  if (line.size() - i < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (line[i + k] != word[k]) return false;
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

bool split_plain_line(std::string_view line, PlainLine& out) {
  out.size = 0;
  if (line.empty() || line[0] != '{') return false;
  size_t i = 1;
  for (;;) {
    if (out.size == PlainLine::kMaxFields || i == line.size() || line[i] != '"') return false;
    PlainField& f = out.fields[out.size++];
    if (!plain_string(line, i, f.key)) return false;
    if (i == line.size() || line[i] != ':') return false;
    if (!plain_value(line, ++i, f.value)) return false;
    if (i == line.size()) return false;
    if (line[i] == '}') return i + 1 == line.size();
    if (line[i] != ',') return false;
    ++i;
  }
}

}  // namespace vlag::trace
