// A time merge (kernel/time_merge.h) for a reader whose records are cheaper to hold than their
// events: while the records come in time order, a TimeMerger of `window` events would pass each
// event on unchanged, `window` events later, so only the records are held — a few words each,
// where a window of KernelEvents spans a megabyte that the consumer reads back from far caches —
// and each is made into its event as it leaves. At the first record out of order the held ones
// are made into events in a real TimeMerger, which takes over: holding the same events, it goes
// on as the merger holding them since the start would (an event older than all it held went on
// at once either way, as late or as the earliest). Either way the sink sees what TimeMerger(window,
// sink) fed with the events would show it, as long as making an event either succeeds or throws and
// so ends the reading: a record skipped instead would take a place in the window that no event
// takes. A reader that skips bad records defers none (defer false), and is merged as it reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kernel/events.h"
#include "kernel/time_merge.h"

namespace vlag::kernel {

/// Make: void(const Record&, const Pass&), where Pass is void(KernelEvent&): makes the record's
/// event and passes it on, or throws; and ahead(const Record&): the record is made soon.
template <class Record, class Make>
class DeferredMerge {
 public:
  DeferredMerge(size_t window, bool defer, Make make, TimeMerger::Sink sink)
      : window_(window), defer_(defer), make_(std::move(make)), sink_(std::move(sink)) {
    if (defer_) held_.resize(window_ + 1);
  }

  /// The next record in the reader's order; `time` is its event's time_ns.
  void push(const Record& r, int64_t time) {
    if (!defer_) return make_into_merge(r);
    if (time < last_) {  // out of order: the merge takes over from here
      defer_ = false;
      merge_.emplace(window_, sink_);
      try {
        while (count_ > 0) make_into_merge(take_front());
      } catch (...) {
        count_ = 0;  // the reading ends at the record that failed (drain())
        throw;
      }
      return make_into_merge(r);
    }
    last_ = time;
    held_[at(count_)] = r;
    if (++count_ > window_) pass_on_front();
  }

  /// Every record held is made and passed on, in order: at the end, and before an error of the
  /// reader's own (an event due before it may fail first). Nothing is left held when making one
  /// throws: the reading ends there.
  void drain() {
    while (count_ > 0) pass_on_front();
  }

  /// At the end: what is held or merged still is passed on.
  void flush() {
    drain();
    if (merge_) merge_->flush();
  }

  /// Calls f on each record held (their bytes are still to be read).
  template <class F>
  void each_held(F&& f) const {
    for (size_t i = 0; i < count_; ++i) f(held_[at(i)]);
  }

 private:
  // The ring's slot of the i-th held record (i <= the ring's size): wrapped by a compare, where
  // a remainder is a division, three per record.
  size_t at(size_t i) const {
    const size_t slot = first_ + i;
    return slot < held_.size() ? slot : slot - held_.size();
  }

  Record take_front() {
    const Record r = held_[first_];
    first_ = at(1);
    --count_;
    return r;
  }

  void pass_on_front() {
    // The bytes of a record due a few turns on are asked for now: a window's worth of records
    // back, they have left the near caches.
    if (count_ > kAhead) make_.ahead(held_[at(kAhead)]);
    const Record r = take_front();
    try {
      make_(r, sink_);
    } catch (...) {
      count_ = 0;
      throw;
    }
  }

  void make_into_merge(const Record& r) {
    if (!merge_) merge_.emplace(window_, sink_);
    make_(r, [&](KernelEvent& e) { merge_->push(std::move(e)); });
  }

  static constexpr size_t kAhead = 8;
  size_t window_;
  bool defer_;
  Make make_;
  TimeMerger::Sink sink_;
  std::vector<Record> held_;  // a ring of window_ + 1 from first_
  size_t first_ = 0, count_ = 0;
  int64_t last_ = INT64_MIN;  // the latest record's time
  std::optional<TimeMerger> merge_;
};

}  // namespace vlag::kernel
