// SPEC.md §7: a virtual time (u64 vruntime, deadline) or a virtual-time difference (s64 lag) the
// way Linux keeps it: 64 bits that wrap on overflow and are compared through their signed
// difference, so a < b means (s64)(a − b) < 0. Both orders stay consistent as long as the values
// compared lie within 2^63 of each other, which the lag clamp and the reference point guarantee.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace vlag {

class LinuxTime {
 public:
  constexpr LinuxTime() = default;
  // Implicit on purpose: 0, 1 and ns counts mix with times exactly as in the kernel's C.
  constexpr LinuxTime(int64_t value) : bits_(static_cast<uint64_t>(value)) {}  // NOLINT

  /// The bits read as s64 (a lag, a relative deadline, or a time near the origin).
  constexpr int64_t value() const { return static_cast<int64_t>(bits_); }
  constexpr uint64_t bits() const { return bits_; }

  friend constexpr LinuxTime operator+(LinuxTime a, LinuxTime b) {
    return from_bits(a.bits_ + b.bits_);
  }
  friend constexpr LinuxTime operator-(LinuxTime a, LinuxTime b) {
    return from_bits(a.bits_ - b.bits_);
  }
  constexpr LinuxTime operator-() const { return from_bits(0 - bits_); }
  constexpr LinuxTime& operator+=(LinuxTime b) { return *this = *this + b; }
  constexpr LinuxTime& operator-=(LinuxTime b) { return *this = *this - b; }

  friend constexpr bool operator==(LinuxTime a, LinuxTime b) = default;
  friend constexpr std::strong_ordering operator<=>(LinuxTime a, LinuxTime b) {
    return static_cast<int64_t>(a.bits_ - b.bits_) <=> 0;
  }

  std::string get_str() const { return std::to_string(value()); }

 private:
  static constexpr LinuxTime from_bits(uint64_t bits) {
    LinuxTime t;
    t.bits_ = bits;
    return t;
  }
  uint64_t bits_ = 0;
};

}  // namespace vlag
