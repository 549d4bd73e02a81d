#include "kernel/time_merge.h"

#include <algorithm>
#include <utility>

namespace vlag::kernel {

void TimeMerger::push(KernelEvent&& e) {
  if (e.time_ns < emitted_) {  // beyond the window: let the consumer see the fault
    ++late_;
    sink_(e);
    return;
  }
  auto at = held_.end();
  if (!held_.empty() && e.time_ns < held_.back().time_ns)
    at = std::upper_bound(held_.begin(), held_.end(), e.time_ns,
                          [](int64_t t, const KernelEvent& h) { return t < h.time_ns; });
  held_.insert(at, std::move(e));
  if (held_.size() > window_) pop();
}

void TimeMerger::pop() {
  emitted_ = held_.front().time_ns;
  sink_(held_.front());
  held_.pop_front();
}

void TimeMerger::flush() {
  while (!held_.empty()) pop();
}

}  // namespace vlag::kernel
