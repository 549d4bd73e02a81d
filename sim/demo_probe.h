// What the demo measures inside the exact runqueue, as an observer of one CPU's
// reference::Runqueue: SPEC.md §6's check_state after every operation, every task's lag
// extremes (lag_i = w_i(V - v_i)/N, ns of service) at every decision point — after each pick,
// while the task is queued — as `vlag check` measures them (checker/lag_figures.h), and
// every wakeup latency (enqueue → the pick that runs it) as an exact sample, for exact
// percentiles. On one CPU every enqueue is a wakeup: nothing migrates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/runqueue.h"
#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::sim {

struct LagExtremes {
  double min_ns = 0;
  double max_ns = 0;
};

class ExactProbe final : public Observer<reference::Num> {
 public:
  /// rq is the runqueue this probe observes; check_invariants: run check_state after each event.
  ExactProbe(const reference::Runqueue& rq, bool check_invariants)
      : rq_(rq), check_(check_invariants) {}
  void on_step(const StepReport<reference::Num>& event) override;

  /// The task's lag extremes so far (zeros for a task never queued at a Run).
  LagExtremes lag(TaskId id) const;
  /// The task's wakeup latencies, ns, in order.
  std::vector<int64_t> wakeup_latencies(TaskId id) const;
  int64_t invariant_checks() const { return checks_; }
  /// Promised invariants that failed (the first 20), each naming the operation after which.
  const std::vector<std::string>& violations() const { return violations_; }

 private:
  const reference::Runqueue& rq_;
  bool check_;
  struct PerTask {
    LagExtremes lag;
    int64_t woke_at = -1;  // the pending wakeup's time, -1: none
    std::vector<int64_t> latencies;
  };
  PerTask& of(TaskId id);

  std::vector<PerTask> tasks_;  // by task id - 1
  int64_t checks_ = 0;
  std::vector<std::string> violations_;
};

}  // namespace vlag::sim
