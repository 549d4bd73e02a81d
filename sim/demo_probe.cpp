#include "sim/demo_probe.h"

#include <algorithm>

#include "reference/invariants.h"

namespace vlag::sim {

void ExactProbe::on_step(const StepReport<reference::Num>& event) {
  if (check_) {
    ++checks_;
    for (const auto& v : reference::promised_only(reference::check_state(rq_)))
      if (violations_.size() < 20)
        violations_.push_back(v.id + " after " + to_string(event.op) + ": " + v.detail);
  }
  switch (event.op.kind) {
    case OpKind::Enqueue:
      of(event.op.se).woke_at = event.now;
      return;
    case OpKind::Pick:
      if (event.picked) {
        PerTask& t = of(*event.picked);
        if (t.woke_at >= 0) t.latencies.push_back(event.now - t.woke_at);
        t.woke_at = -1;
      }
      break;
    default:
      return;
  }
  // The lag theorems speak of decision points (SPEC.md §6): every queued task's lag after each
  // pick, as `vlag check` samples it (checker/lag_figures.h), so the two report the same figure.
  for (const auto& e : rq_.entities()) {
    if (e.status == Status::Sleeping) continue;
    LagExtremes& l = of(e.id).lag;
    const double lag = rq_.lag(e).get_d();
    l.min_ns = std::min(l.min_ns, lag);
    l.max_ns = std::max(l.max_ns, lag);
  }
}

ExactProbe::PerTask& ExactProbe::of(TaskId id) {
  const auto i = static_cast<size_t>(id - 1);
  if (tasks_.size() <= i) tasks_.resize(i + 1);
  return tasks_[i];
}

LagExtremes ExactProbe::lag(TaskId id) const {
  const auto i = static_cast<size_t>(id - 1);
  return i < tasks_.size() ? tasks_[i].lag : LagExtremes{};
}

std::vector<int64_t> ExactProbe::wakeup_latencies(TaskId id) const {
  const auto i = static_cast<size_t>(id - 1);
  return i < tasks_.size() ? tasks_[i].latencies : std::vector<int64_t>{};
}

}  // namespace vlag::sim
