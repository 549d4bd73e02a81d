// Merges per-CPU event streams by time before they reach a consumer. perf script and trace-cmd
// print in time order, but a file assembled from per-CPU parts need not be: a bounded window
// (kept in time order, file order breaking ties) restores the order within it, so memory stays
// bounded. An event older than one already passed on goes on as it is and is counted as late:
// the consumer's per-CPU clock check then reports it as a trace fault (SPEC.md §6.2).
// kernel/capture_reader.h runs every perf script text through one, of kMergeWindow events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "kernel/events.h"

namespace vlag::kernel {

class TimeMerger {
 public:
  using Sink = std::function<void(const KernelEvent&)>;
  TimeMerger(size_t window, Sink sink) : window_(window), sink_(std::move(sink)) {}

  void push(KernelEvent&& e);
  /// Passes on everything still held, in time order.
  void flush();
  int64_t late() const { return late_; }

 private:
  void pop();

  size_t window_;
  Sink sink_;
  // Held events in time order (file order among equal times). Input that is already sorted —
  // perf script's — only appends and pops the front, so merging costs a move per event.
  std::deque<KernelEvent> held_;
  int64_t emitted_ = INT64_MIN;
  int64_t late_ = 0;
};

}  // namespace vlag::kernel
