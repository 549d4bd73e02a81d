#include "sim/uniprocessor.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "reference/invariants.h"
#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::sim {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct TaskState {
  TaskSpec spec;
  TaskId id = 0;
  int64_t remaining = 0;  // work left in the current activation (periodic only)
  int64_t next_activation = kNever;
  std::optional<int64_t> woke_at;
  std::vector<int64_t> latencies;
  int64_t runtime = 0;
  double min_lag = 0;
  double max_lag = 0;
  int64_t overruns = 0;
};

class Driver {
 public:
  Driver(const Params& params, const std::vector<TaskSpec>& specs, bool check,
         Observer<reference::Num>* observer)
      : rq_(params), paper_(params.preset.rejoin_strategy != 0), check_(check) {
    rq_.set_observer(observer);
    for (size_t i = 0; i < specs.size(); ++i) {
      const TaskSpec& s = specs[i];
      if (s.period_ns < 0 || s.work_ns < 0 || (s.period_ns > 0 && s.work_ns == 0))
        throw Error("task " + s.name + ": a periodic task needs period > 0 and work > 0");
      TaskState t;
      t.spec = s;
      t.id = static_cast<TaskId>(i + 1);
      t.next_activation = 0;
      apply({OpKind::Create, t.id, nice_to_weight(s.nice), s.slice_ns});
      tasks_.push_back(t);
    }
  }

  RunReport run(int64_t duration) {
    int64_t next_tick = rq_.params().tick_ns();
    int64_t quantum_end = kNever;
    while (rq_.now() < duration) {
      TaskState* cur = running();
      int64_t t = std::min(duration, paper_ ? quantum_end : next_tick);
      for (const auto& task : tasks_) t = std::min(t, task.next_activation);
      if (cur && cur->spec.period_ns > 0) t = std::min(t, rq_.now() + cur->remaining);
      advance(t - rq_.now());
      if (rq_.now() >= duration) break;  // the run covers [0, duration)

      bool resched = false;
      if (cur && cur->spec.period_ns > 0 && cur->remaining == 0) {  // burst done: sleep
        apply({OpKind::Dequeue, cur->id, 0, 0, kDequeueSleep});
        resched = true;
      }
      for (auto& task : tasks_) {
        if (task.next_activation > rq_.now()) continue;
        resched |= activate(task);
      }
      if (paper_ ? rq_.now() >= quantum_end : rq_.now() >= next_tick) {
        if (!paper_) next_tick += rq_.params().tick_ns();
        apply({OpKind::Tick});
        resched = true;
      }
      if (resched || rq_.need_resched() || !rq_.curr()) {
        pick();
        quantum_end = paper_ ? rq_.now() + quantum() : kNever;
      }
    }
    return report(duration);
  }

 private:
  TaskState* running() {
    if (!rq_.curr()) return nullptr;
    return &tasks_[static_cast<size_t>(*rq_.curr() - 1)];
  }

  void apply(const Op& op) {
    rq_.apply(op);
    if (!check_) return;
    ++checks_;
    for (const auto& v : reference::promised_only(reference::check_state(rq_)))
      if (violations_.size() < 20)
        violations_.push_back(v.id + " after " + to_string(op) + ": " + v.detail);
  }

  void advance(int64_t delta) {
    if (delta <= 0) return;
    if (TaskState* cur = running()) {
      cur->runtime += delta;
      if (cur->spec.period_ns > 0) cur->remaining -= delta;
    }
    apply({OpKind::Run, 0, delta});
    for (auto& task : tasks_) {
      const auto& e = rq_.entity(task.id);
      if (e.status == Status::Sleeping) continue;
      const double lag = rq_.lag(e).get_d();
      task.min_lag = std::min(task.min_lag, lag);
      task.max_lag = std::max(task.max_lag, lag);
    }
  }

  // A periodic activation, or a hog's start at time 0. Returns whether to re-pick.
  bool activate(TaskState& task) {
    const bool periodic = task.spec.period_ns > 0;
    task.next_activation = periodic ? task.next_activation + task.spec.period_ns : kNever;
    if (periodic && task.remaining > 0) {  // still busy with the previous activation
      ++task.overruns;
      task.remaining += task.spec.work_ns;
      // Linux's ttwu_runnable() still runs the wakeup-preemption check for a queued task.
      if (!rq_.curr() || *rq_.curr() == task.id) return false;
      apply({OpKind::WakeupPreempt, task.id});
      return rq_.last_outcome().preempt;
    }
    task.remaining = task.spec.work_ns;
    if (periodic) task.woke_at = rq_.now();
    apply({OpKind::Enqueue, task.id});
    if (!rq_.curr()) return true;
    apply({OpKind::WakeupPreempt, task.id});
    return rq_.last_outcome().preempt;
  }

  void pick() {
    apply({OpKind::Pick});
    if (TaskState* cur = running(); cur && cur->woke_at) {
      cur->latencies.push_back(rq_.now() - *cur->woke_at);
      cur->woke_at.reset();
    }
  }

  // Paper: the running client keeps the CPU for min(q, its remaining request).
  int64_t quantum() const {
    if (!rq_.curr()) return rq_.params().tick_ns();
    const int64_t left = rq_.remaining_request(rq_.entity(*rq_.curr()));
    return std::clamp<int64_t>(left, 1, rq_.params().tick_ns());
  }

  RunReport report(int64_t duration) const {
    RunReport r;
    r.params = rq_.params();
    r.duration_ns = duration;
    r.invariant_checks = checks_;
    r.violations = violations_;
    std::vector<int64_t> weights;
    std::vector<double> demands;
    for (const auto& t : tasks_) {
      weights.push_back(nice_to_weight(t.spec.nice));
      demands.push_back(t.spec.period_ns > 0 ? static_cast<double>(t.spec.work_ns) /
                                                   static_cast<double>(t.spec.period_ns)
                                             : 1.0);
    }
    const auto ideal = ideal_shares(weights, demands);
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const TaskState& t = tasks_[i];
      TaskReport tr;
      tr.spec = t.spec;
      tr.weight = weights[i];
      tr.slice_ns = rq_.entity(t.id).slice;
      tr.runtime_ns = t.runtime;
      tr.share = static_cast<double>(t.runtime) / static_cast<double>(duration);
      tr.ideal_share = ideal[i];
      tr.min_lag_ns = t.min_lag;
      tr.max_lag_ns = t.max_lag;
      tr.wakeup = summarize(t.latencies);
      tr.overruns = t.overruns;
      r.tasks.push_back(tr);
    }
    return r;
  }

  reference::Runqueue rq_;
  std::vector<TaskState> tasks_;
  bool paper_;
  bool check_;
  int64_t checks_ = 0;
  std::vector<std::string> violations_;
};

}  // namespace

RunReport run_uniprocessor(const Params& params, const std::vector<TaskSpec>& tasks,
                           int64_t duration_ns, bool check_invariants,
                           Observer<reference::Num>* observer) {
  if (duration_ns <= 0) throw Error("duration must be positive");
  return Driver(params, tasks, check_invariants, observer).run(duration_ns);
}

std::vector<TaskSpec> demo_workload() {
  return {
      {"hog-a", 0, 0, 0, 0},
      {"hog-b", 0, 0, 0, 0},
      {"hog-c", 5, 0, 0, 0},
      {"periodic", 0, 500'000, 1'000'000, 100'000},
  };
}

}  // namespace vlag::sim
