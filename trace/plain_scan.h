// The byte tests both readings of a plain line use (trace/plain_line.h, trace/line_program.h):
// a line read eight bytes at a time, each word's bytes tested at once (SWAR), the first byte of a
// word in its lowest 8 bits, as x86-64 and AArch64 load them.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace vlag::trace::plain_scan {

static_assert(std::endian::native == std::endian::little, "the word tests take bytes in order");

inline constexpr uint64_t kOnes = 0x0101010101010101;
inline constexpr uint64_t kHighs = 0x8080808080808080;

inline uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

/// The mask of a word's first n bytes (0 to 8).
inline uint64_t first_bytes(size_t n) {
  return n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
}

/// The high bit of each byte of w that is zero; a byte above a zero one may be marked too (the
/// borrow), so only the lowest mark is exact, which is all a scan asks of it.
inline uint64_t zero_bytes(uint64_t w) { return (w - kOnes) & ~w & kHighs; }

/// How many of w's bytes, from the first, are decimal digits (0 to 8).
inline unsigned leading_digits(uint64_t w) {
  const uint64_t x = w ^ (kOnes * '0');  // a digit's byte becomes its value, 0 to 9
  // A byte is marked when it is 10 or more: (x & 0x7f) + 0x76 reaches 0x80 without carrying
  // into the next byte, and the bytes of 0x80 and above are marked by their own high bit.
  const uint64_t not_digit = (((x & ~kHighs) + kOnes * 0x76) | x) & kHighs;
  return not_digit == 0 ? 8 : static_cast<unsigned>(std::countr_zero(not_digit)) / 8;
}

/// The value of the first n (1 to 8) bytes of w, which are digits.
inline uint64_t digits_value(uint64_t w, unsigned n) {
  // The digits into the top n bytes, zeros before them, then summed pairwise (Lemire's
  // eight-digit conversion): byte k holds 10·d_k + d_{k+1}, then the four pairs are weighed.
  uint64_t x = ((w ^ (kOnes * '0')) << (8 * (8 - n)));
  x = x * 10 + (x >> 8);
  constexpr uint64_t kMask = 0x000000FF000000FF;
  constexpr uint64_t kMul1 = 100 + (uint64_t{1000000} << 32);
  constexpr uint64_t kMul2 = 1 + (uint64_t{10000} << 32);
  return ((x & kMask) * kMul1 + ((x >> 16) & kMask) * kMul2) >> 32;
}

inline constexpr uint64_t kPow10[] = {1,      10,      100,      1000,     10000,
                                      100000, 1000000, 10000000, 100000000};

inline bool digit(char c) { return c >= '0' && c <= '9'; }

/// A character a plain string or key holds as it is: printable ASCII other than '"' and '\'
/// (so no escape to undo, no control character and no UTF-8 to validate).
inline bool plain_char(char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

/// The lowest byte of w that is not a plain_char is the lowest marked (the others may be).
inline uint64_t not_plain(uint64_t w) {
  return zero_bytes(w ^ (kOnes * '"')) | zero_bytes(w ^ (kOnes * '\\')) |
         zero_bytes(w ^ (kOnes * 0x7f)) | ((w - kOnes * 0x20) & ~w & kHighs) | (w & kHighs);
}

}  // namespace vlag::trace::plain_scan
