#include "sim/demo_probe.h"

#include <algorithm>

#include "reference/invariants.h"

namespace vlag::sim {

void ExactProbe::on_event(const Event<reference::Num>& event) {
  if (check_) {
    ++checks_;
    for (const auto& v : reference::promised_only(reference::check_state(rq_)))
      if (violations_.size() < 20)
        violations_.push_back(v.id + " after " + to_string(event.op) + ": " + v.detail);
  }
  // Lag changes only with time or membership; sampling once time has advanced sees every value
  // a queued task reaches between two decisions.
  if (event.op.kind != OpKind::Run) return;
  for (const auto& e : rq_.entities()) {
    if (e.status == Status::Sleeping) continue;
    const auto i = static_cast<size_t>(e.id - 1);
    if (lags_.size() <= i) lags_.resize(i + 1);
    const double l = rq_.lag(e).get_d();
    lags_[i].min_ns = std::min(lags_[i].min_ns, l);
    lags_[i].max_ns = std::max(lags_[i].max_ns, l);
  }
}

LagExtremes ExactProbe::lag(TaskId id) const {
  const auto i = static_cast<size_t>(id - 1);
  return i < lags_.size() ? lags_[i] : LagExtremes{};
}

}  // namespace vlag::sim
