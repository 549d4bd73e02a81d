// Merges per-CPU event streams by time before they reach a consumer. perf script and trace-cmd
// print in time order, but a file assembled from per-CPU parts need not be: a bounded window
// (a min-heap on time, file order breaking ties) restores the order within it, so memory stays
// bounded. An event older than one already passed on goes on as it is and is counted as late:
// the consumer's per-CPU clock check then reports it as a trace fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "trace/kernel_events.h"

namespace vlag::trace {

class TimeMerger {
 public:
  using Sink = std::function<void(const KernelEvent&)>;
  TimeMerger(size_t window, Sink sink) : window_(window), sink_(std::move(sink)) {}

  void push(const KernelEvent& e);
  /// Passes on everything still held, in time order.
  void flush();
  int64_t late() const { return late_; }

 private:
  struct Held {
    int64_t time;
    uint64_t order;
    KernelEvent event;
    bool operator>(const Held& o) const { return time != o.time ? time > o.time : order > o.order; }
  };
  void pop();

  size_t window_;
  Sink sink_;
  std::priority_queue<Held, std::vector<Held>, std::greater<Held>> heap_;
  uint64_t order_ = 0;
  int64_t emitted_ = INT64_MIN;
  int64_t late_ = 0;
};

}  // namespace vlag::trace
