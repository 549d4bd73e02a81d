// INV-DEADLINE (SPEC.md §6) in integers, for an entity whose d and v are s64 integers (every
// entity of a Linux-arithmetic trace): rules::deadline_holds(rest, ρ, s) with rest = (d − v)·w/N
// holds exactly when x = (d − v)·w lies in an integer range [lo, hi] that depends only on ρ and
// the slack s — and s only on the entity's weight and roundings and the view's longest slice
// (checker/rounding.h). The ranges are kept for the few combinations a trace has, so that the
// check costs a multiplication and two comparisons instead of rational arithmetic. The exact
// rule still decides, and explains, whatever the range does not accept.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "checker/rounding.h"
#include "checker/view.h"

namespace vlag::checker {

class DeadlineRanges {
 public:
  explicit DeadlineRanges(const Rounding& rounding) : rounding_(rounding) {}

  /// True when INV-DEADLINE certainly holds for queued `v` with a known request; false when the
  /// exact rule must decide (it fails, or the numbers are not all 64-bit integers).
  bool holds(const ViewEntity& v, const View& view);

 private:
  struct Range {
    Exact request;
    int roundings = 0;
    int64_t weight = 0;
    int64_t max_slice = -1;          // -1: an empty slot
    std::optional<__int128> lo, hi;  // none: a bound beyond 64 bits, no integer form
  };
  const Range& range(const ViewEntity& v, const View& view);

  const Rounding& rounding_;
  std::array<Range, 8> ranges_;
  size_t next_ = 0;  // the slot the next new range takes
  size_t last_ = 0;  // the slot range() answered last
};

}  // namespace vlag::checker
