// How many of a cfs_rq's members have each value of a figure (a lag deficit), and the largest
// but one member's: what a std::map<double, int> of counts answered, as a vector in ascending
// order. A cfs_rq's members have a few distinct values, so a join or a departure finds its
// value in a walk of a line or two, where the map took a tree walk; a value's count that drops
// to 0 keeps its place (a CPU's cfs_rq empties and fills again all the time), so the vector
// only grows, by the distinct values met.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace vlag::kernel {

class ValueCounts {
 public:
  /// One more (by = 1) or one fewer (by = -1) member of value v.
  void add(double v, int by) {
    for (size_t i = counts_.size(); i-- > 0;) {
      if (counts_[i].first < v) {  // v is new, between two values or above them all
        counts_.insert(counts_.begin() + static_cast<std::ptrdiff_t>(i) + 1, {v, by});
        return;
      }
      if (!(v < counts_[i].first)) {  // the same value, as the map's order tells one
        counts_[i].second += by;
        return;
      }
    }
    counts_.insert(counts_.begin(), {v, by});
  }
  /// The largest value of a member but one member of value `except`, and at least 0.
  double largest_but(double except) const {
    auto top = counts_.rbegin();
    const auto next = [&] {
      while (top != counts_.rend() && top->second == 0) ++top;
    };
    next();
    if (top == counts_.rend()) return 0;
    if (top->first == except && top->second == 1) {
      ++top;
      next();
    }
    return top == counts_.rend() ? 0 : std::max(0.0, top->first);
  }

 private:
  std::vector<std::pair<double, int>> counts_;  // ascending values, each with its count
};

}  // namespace vlag::kernel
