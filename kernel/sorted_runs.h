// Records held until they are passed on in time order, ties in the order they came, as a stable
// sort of everything held would give them — for perf.data's rounds (kernel/perf_data_reader.h),
// where a round holds a CPU buffer's worth of records each of which comes in time order. So the
// records are kept as they come, in runs in time order, and passed on by merging the runs as
// they are read: each record is read once when passed on and moved once if it stays, where
// sorting the whole first wrote it to a second buffer and sorted it again a round later.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vlag::kernel {

/// T has a uint64_t `time`.
template <class T>
class SortedRuns {
 public:
  /// Room for `room` records: address space, whose pages are touched as records come.
  explicit SortedRuns(size_t room) { items_.reserve(room); }

  void push(const T& x) {
    if (!items_.empty() && x.time < items_.back().time) starts_.push_back(items_.size());
    items_.push_back(x);
  }

  /// f(record) for every record no later than `limit`, in time order, ties in the order they
  /// came; they are no longer held.
  template <class F>
  void pass_until(uint64_t limit, F&& f) {
    if (starts_.empty()) {  // one run: its first records
      size_t n = 0;
      while (n < items_.size() && items_[n].time <= limit) f(items_[n++]);
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(n));
      return;
    }
    // Each run's next record; the earliest is taken, the earlier run's among equal times: by a
    // look at each while the runs are few (a machine's CPUs' worth is many), by a heap beyond.
    heads_.clear();
    for (size_t r = 0; r <= starts_.size(); ++r) {
      const size_t from = r == 0 ? 0 : starts_[r - 1];
      const size_t to = r < starts_.size() ? starts_[r] : items_.size();
      heads_.push_back({items_[from].time, r, from, to});
    }
    if (heads_.size() <= kFewRuns) {
      for (;;) {
        Head* next = nullptr;
        for (Head& h : heads_)
          if (h.at < h.end && (!next || h.time < next->time)) next = &h;
        if (!next || next->time > limit) break;
        f(items_[next->at++]);
        if (next->at < next->end) next->time = items_[next->at].time;
      }
      std::erase_if(heads_, [](const Head& h) { return h.at == h.end; });
    } else {
      std::make_heap(heads_.begin(), heads_.end(), later);
      while (!heads_.empty() && heads_.front().time <= limit) {
        std::pop_heap(heads_.begin(), heads_.end(), later);
        Head& h = heads_.back();
        f(items_[h.at++]);
        if (h.at < h.end) {
          h.time = items_[h.at].time;
          std::push_heap(heads_.begin(), heads_.end(), later);
        } else {
          heads_.pop_back();
        }
      }
    }
    // What stays of each run, moved down in the runs' order: each a run still.
    std::sort(heads_.begin(), heads_.end(),
              [](const Head& a, const Head& b) { return a.run < b.run; });
    starts_.clear();
    size_t kept = 0;
    for (const Head& h : heads_) {
      if (kept > 0 && items_[h.at].time < items_[kept - 1].time) starts_.push_back(kept);
      if (kept != h.at)
        std::copy(items_.begin() + static_cast<std::ptrdiff_t>(h.at),
                  items_.begin() + static_cast<std::ptrdiff_t>(h.end),
                  items_.begin() + static_cast<std::ptrdiff_t>(kept));
      kept += h.end - h.at;
    }
    items_.resize(kept);
  }

  bool empty() const { return items_.empty(); }
  /// f(record) for every record held, in no particular order.
  template <class F>
  void each(F&& f) const {
    for (const T& x : items_) f(x);
  }

 private:
  static constexpr size_t kFewRuns = 8;
  struct Head {
    uint64_t time;  // of items_[at]
    size_t run;
    size_t at, end;
  };
  // The heap's order: a head after another is taken later.
  static bool later(const Head& a, const Head& b) {
    return a.time != b.time ? a.time > b.time : a.run > b.run;
  }

  std::vector<T> items_;        // in runs in time order, each after the one before it came
  std::vector<size_t> starts_;  // where each run but the first starts
  std::vector<Head> heads_;     // pass_until()'s, kept for its room
};

}  // namespace vlag::kernel
