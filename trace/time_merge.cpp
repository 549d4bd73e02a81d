#include "trace/time_merge.h"

namespace vlag::trace {

void TimeMerger::push(const KernelEvent& e) {
  if (e.time_ns < emitted_) {  // beyond the window: let the consumer see the fault
    ++late_;
    sink_(e);
    return;
  }
  heap_.push({e.time_ns, order_++, e});
  if (heap_.size() > window_) pop();
}

void TimeMerger::pop() {
  const Held& h = heap_.top();
  emitted_ = h.time;
  sink_(h.event);
  heap_.pop();
}

void TimeMerger::flush() {
  while (!heap_.empty()) pop();
}

}  // namespace vlag::trace
