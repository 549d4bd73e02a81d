// A closed interval [lo, hi] of reals: what the kernel checks know of a quantity the trace does
// not pin down (a group entity's weight, a slice no snapshot gave, service during an unrecorded
// window). A bound is violated only when the least the measurement can be exceeds the most the
// bound can be, and held only when the most the measurement can be stays within the least the
// bound can be (SPEC.md §6.3); otherwise the verdict is inconclusive.
#pragma once

#include <algorithm>
#include <limits>

namespace vlag::kernel {

struct Range {
  double lo = 0, hi = 0;

  static Range exact(double v) { return {v, v}; }
  static Range unbounded_above(double lo) { return {lo, std::numeric_limits<double>::infinity()}; }
  bool is_exact() const { return lo == hi; }
  bool bounded() const { return hi < std::numeric_limits<double>::infinity(); }
  double mid() const { return bounded() ? (lo + hi) / 2 : lo; }

  Range operator+(Range o) const { return {lo + o.lo, hi + o.hi}; }
  Range operator-(Range o) const { return {lo - o.hi, hi - o.lo}; }
  Range operator*(double k) const { return k >= 0 ? Range{lo * k, hi * k} : Range{hi * k, lo * k}; }
  Range& operator+=(Range o) { return *this = *this + o; }
  /// Both ends of this over positive o.
  Range over(Range o) const {
    return {lo >= 0 ? lo / o.hi : lo / o.lo, hi >= 0 ? hi / o.lo : hi / o.hi};
  }
  Range hull(Range o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }
  /// |x| for x in this range.
  Range abs() const {
    if (lo >= 0) return *this;
    if (hi <= 0) return {-hi, -lo};
    return {0, std::max(-lo, hi)};
  }
};

}  // namespace vlag::kernel
