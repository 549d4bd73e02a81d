#include "trace/plain_line.h"

#include <bit>
#include <cstring>

namespace vlag::trace {
namespace {

// The split reads a line eight bytes at a time where eight are left in it (never past its end),
// and byte by byte in the last few: each word's bytes are tested at once (SWAR), the first byte
// of a word in its lowest 8 bits, as x86-64 and AArch64 load them.
static_assert(std::endian::native == std::endian::little, "the word tests take bytes in order");

constexpr uint64_t kOnes = 0x0101010101010101;
constexpr uint64_t kHighs = 0x8080808080808080;

uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// The high bit of each byte of w that is zero; a byte above a zero one may be marked too (the
// borrow), so only the lowest mark is exact, which is all the split asks of it.
uint64_t zero_bytes(uint64_t w) { return (w - kOnes) & ~w & kHighs; }

// How many of w's bytes, from the first, are decimal digits (0 to 8).
unsigned leading_digits(uint64_t w) {
  const uint64_t x = w ^ (kOnes * '0');  // a digit's byte becomes its value, 0 to 9
  // A byte is marked when it is 10 or more: (x & 0x7f) + 0x76 reaches 0x80 without carrying
  // into the next byte, and the bytes of 0x80 and above are marked by their own high bit.
  const uint64_t not_digit = (((x & ~kHighs) + kOnes * 0x76) | x) & kHighs;
  return not_digit == 0 ? 8 : static_cast<unsigned>(std::countr_zero(not_digit)) / 8;
}

// The value of the first n (1 to 8) bytes of w, which are digits.
uint64_t digits_value(uint64_t w, unsigned n) {
  // The digits into the top n bytes, zeros before them, then summed pairwise (Lemire's
  // eight-digit conversion): byte k holds 10·d_k + d_{k+1}, then the four pairs are weighed.
  uint64_t x = ((w ^ (kOnes * '0')) << (8 * (8 - n)));
  x = x * 10 + (x >> 8);
  constexpr uint64_t kMask = 0x000000FF000000FF;
  constexpr uint64_t kMul1 = 100 + (uint64_t{1000000} << 32);
  constexpr uint64_t kMul2 = 1 + (uint64_t{10000} << 32);
  return ((x & kMask) * kMul1 + ((x >> 16) & kMask) * kMul2) >> 32;
}

constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

bool digit(char c) { return c >= '0' && c <= '9'; }

// A character a plain string or key holds as it is: printable ASCII other than '"' and '\'
// (so no escape to undo, no control character and no UTF-8 to validate).
bool plain_char(char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

// The lowest byte of w that is not a plain_char is the lowest marked (the others may be).
uint64_t not_plain(uint64_t w) {
  return zero_bytes(w ^ (kOnes * '"')) | zero_bytes(w ^ (kOnes * '\\')) |
         zero_bytes(w ^ (kOnes * 0x7f)) | ((w - kOnes * 0x20) & ~w & kHighs) | (w & kHighs);
}

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
[[gnu::always_inline]] inline bool plain_integer(std::string_view line, size_t& i, PlainValue& v) {
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

[[gnu::always_inline]] inline bool plain_value(std::string_view line, size_t& i, PlainValue& v) {
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

// The key at line[i] when it is the previous line's key n, so plain: i at its colon. The key
// is compared with its quotes and colon, `"key":`, a word or two at once where the line has them.
inline bool PlainLine::known_key(std::string_view line, size_t& i, size_t n) const {
  const KeyPattern& k = patterns_[n];
  if (k.size <= 16 && i + 16 <= line.size()) {
    const uint64_t a = load8(line.data() + i), b = load8(line.data() + i + 8);
    if (((a ^ k.words[0]) & k.masks[0]) != 0 || ((b ^ k.words[1]) & k.masks[1]) != 0) return false;
  } else {
    const std::string_view key = kept_key(n);
    if (line.size() - i < k.size || line[i] != '"' || line.substr(i + 1, key.size()) != key ||
        line[i + 1 + key.size()] != '"' || line[i + 2 + key.size()] != ':')
      return false;
  }
  i += k.size - 1;
  return true;
}

// Lines of one kind of event have the keys of the line before, in its order: each is compared
// with its pattern, which checks its quotes and colon too, and the field's key is the one kept. The
// fields are read up to the first key that differs, which the caller splits on from i.
PlainLine::Known PlainLine::split_known(std::string_view line, size_t& i) {
  for (size_t n = 0; n < key_count_; ++n) {
    if (!known_key(line, i, n)) return Known::Differs;
    fields[n].key = kept_key(n);
    if (!plain_value(line, ++i, fields[n].value) || i == line.size()) return Known::Fault;
    ++size;
    if (line[i] == '}') {
      if (i + 1 != line.size()) return Known::Fault;
      same_keys = size == key_count_;
      if (!same_keys) keep_keys();  // fewer fields than the line before
      return Known::Done;
    }
    if (line[i] != ',') return Known::Fault;
    ++i;
  }
  return Known::Differs;  // more fields than the line before: the rest are new keys
}

bool split_plain_line(std::string_view line, PlainLine& out) {
  out.size = 0;
  out.same_keys = false;
  if (line.empty() || line[0] != '{') return false;
  size_t i = 1;
  if (out.key_count_ > 0) {
    const PlainLine::Known known = out.split_known(line, i);
    if (known != PlainLine::Known::Differs) return known == PlainLine::Known::Done;
  }
  for (;;) {
    if (out.size == PlainLine::kMaxFields || i == line.size() || line[i] != '"') return false;
    PlainField& f = out.fields[out.size++];
    if (!plain_string(line, i, f.key)) return false;
    if (i == line.size() || line[i] != ':') return false;
    if (!plain_value(line, ++i, f.value)) return false;
    if (i == line.size()) return false;
    if (line[i] == '}') {
      if (i + 1 != line.size()) return false;
      out.keep_keys();
      return true;
    }
    if (line[i] != ',') return false;
    ++i;
  }
}

// The keys of the line just split become the patterns of the next, their characters kept in
// keys_, which the fields of this line and of later lines with these keys view. Built aside
// first: some of the fields' keys may be views of the keys_ being replaced.
void PlainLine::keep_keys() {
  std::string keys;
  for (size_t n = 0; n < size; ++n) keys += fields[n].key;
  keys_ = std::move(keys);
  key_count_ = size;
  size_t from = 0;
  for (size_t n = 0; n < size; ++n) {
    KeyPattern& k = patterns_[n];
    const size_t key_size = fields[n].key.size();
    k.from = from;
    k.size = key_size + 3;  // "key":
    from += key_size;
    fields[n].key = kept_key(n);
    char bytes[16] = {};
    uint64_t masks[2] = {0, 0};
    if (k.size <= 16) {
      bytes[0] = '"';
      std::memcpy(bytes + 1, keys_.data() + k.from, key_size);
      bytes[k.size - 2] = '"';
      bytes[k.size - 1] = ':';
      for (size_t b = 0; b < k.size; ++b) masks[b / 8] |= uint64_t{0xff} << (8 * (b % 8));
    }
    k.words[0] = load8(bytes);
    k.words[1] = load8(bytes + 8);
    k.masks[0] = masks[0];
    k.masks[1] = masks[1];
  }
}

}  // namespace vlag::trace
