// A set of pids with a weight each, for the sets that change on nearly every event of a busy
// trace — the sleepers and possible outsiders of a cfs_rq, the outsiders queued on a CPU — where
// std::map allocates a node per insertion: an open-addressed index (kernel/inline_table.h) over
// every pid the set has held, so adding and removing a pid met before allocates nothing. Memory
// grows with the pids met, not with the trace. The rare walk in ascending pid order (std::map's)
// sorts the pids present.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernel/inline_table.h"

namespace vlag::kernel {

class PidWeights {
 public:
  /// The weight of pid, or nullptr when it is not in the set.
  double* find(int64_t pid) {
    Entry* e = table_.find(pid);
    return e && e->present ? &e->weight : nullptr;
  }
  const double* find(int64_t pid) const { return const_cast<PidWeights*>(this)->find(pid); }
  /// pid's weight, and whether pid was new; an existing weight is left as it is.
  std::pair<double*, bool> emplace(int64_t pid, double weight) {
    Entry& e = table_[pid];
    if (e.present) return {&e.weight, false};
    e = {weight, true};
    ++size_;
    return {&e.weight, true};
  }
  /// Removes pid; false when it was not in the set.
  bool erase(int64_t pid) {
    Entry* e = table_.find(pid);
    if (!e || !e->present) return false;
    e->present = false;
    --size_;
    return true;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// (pid, weight) of each pid in the set, in ascending pid order.
  std::vector<std::pair<int64_t, double>> ascending() const {
    std::vector<std::pair<int64_t, double>> out;
    out.reserve(size_);
    table_.each([&](int64_t pid, const Entry& e) {
      if (e.present) out.emplace_back(pid, e.weight);
    });
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  struct Entry {
    double weight = 0;
    bool present = false;
  };
  InlineTable<Entry> table_;
  size_t size_ = 0;
};

}  // namespace vlag::kernel
