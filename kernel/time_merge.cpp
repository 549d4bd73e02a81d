#include "kernel/time_merge.h"

#include <utility>

namespace vlag::kernel {

void TimeMerger::push(KernelEvent&& e) {
  if (e.time_ns < emitted_) {  // beyond the window: let the consumer see the fault
    ++late_;
    sink_(e);
    return;
  }
  // Until the ring is full nothing has left it, so it starts at its first slot.
  if (count_ == held_.size()) held_.emplace_back();
  size_t pos = count_;
  if (count_ > 0 && e.time_ns < at(count_ - 1).time_ns) {
    size_t lo = 0, hi = count_ - 1;  // the first held event later than e
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (e.time_ns < at(mid).time_ns)
        hi = mid;
      else
        lo = mid + 1;
    }
    pos = lo;
    for (size_t i = count_; i > pos; --i) at(i) = std::move(at(i - 1));
  }
  at(pos) = std::move(e);
  ++count_;
  if (count_ > window_) pop();
}

void TimeMerger::pop() {
  KernelEvent& front = at(0);
  emitted_ = front.time_ns;
  sink_(front);
  first_ = first_ + 1 < held_.size() ? first_ + 1 : 0;
  --count_;
}

void TimeMerger::flush() {
  while (count_ > 0) pop();
  first_ = 0;  // the ring grows only from its first slot on
}

}  // namespace vlag::kernel
