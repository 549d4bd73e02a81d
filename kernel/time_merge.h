// Merges per-CPU event streams by time before they reach a consumer. perf script and trace-cmd
// print in time order, but a file assembled from per-CPU parts need not be: a bounded window
// (kept in time order, file order breaking ties) restores the order within it, so memory stays
// bounded. An event older than one already passed on goes on as it is and is counted as late:
// the consumer's per-CPU clock check then reports it as a trace fault (SPEC.md §6.2).
// kernel/capture_reader.h runs every perf script text through one, of kMergeWindow events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernel/events.h"

namespace vlag::kernel {

class TimeMerger {
 public:
  using Sink = std::function<void(KernelEvent&)>;
  TimeMerger(size_t window, Sink sink) : window_(window), sink_(std::move(sink)) {
    held_.reserve(window_ + 1);  // address space only: a slot's page is touched when first held
  }

  void push(KernelEvent&& e);
  /// Passes on everything still held, in time order.
  void flush();
  int64_t late() const { return late_; }

 private:
  void pop();
  // The i-th held event, in time order.
  KernelEvent& at(size_t i) {
    const size_t slot = first_ + i;
    return held_[slot < held_.size() ? slot : slot - held_.size()];
  }

  size_t window_;
  Sink sink_;
  // Held events in time order (file order among equal times), a ring of up to window_ + 1
  // slots from first_: its events are assigned into slots that already hold strings' storage,
  // never made or destroyed. Input that is already sorted — perf script's — only appends and
  // pops the front, so merging costs a move per event.
  std::vector<KernelEvent> held_;
  size_t first_ = 0, count_ = 0;
  int64_t emitted_ = INT64_MIN;
  int64_t late_ = 0;
};

}  // namespace vlag::kernel
