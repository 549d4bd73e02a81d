// `vlag demo` on the machine: hogs and periodic tasks on one CPU running the exact reference
// runqueue, reported per task against the ideal (fluid) share, with lag extremes, wakeup
// latencies and SPEC.md §6's invariants checked after every operation (sim/demo_probe.h). The
// paper presets allocate the CPU in quanta; that is the machine's doing (sim/machine.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/runqueue.h"
#include "sim/machine.h"
#include "spec/features.h"
#include "spec/observer.h"
#include "stats/stats.h"

namespace vlag::sim {

struct DemoTask {
  std::string name;
  int nice = 0;
  int64_t slice_ns = 0;   // custom slice; 0: the base slice
  int64_t period_ns = 0;  // 0: a CPU hog, always runnable
  int64_t work_ns = 0;    // CPU time needed per period
};

/// Hogs run forever; a periodic task wakes every period_ns with work_ns to do, from time 0. An
/// activation that finds the previous one unfinished adds its work to it (an overrun).
class DemoWorkload final : public Workload {
 public:
  /// Throws vlag::Error on a negative period or work, or a periodic task without work.
  explicit DemoWorkload(std::vector<DemoTask> tasks);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;

  const std::vector<DemoTask>& tasks() const { return tasks_; }
  /// Per task, in order: activations that found the previous one unfinished.
  const std::vector<int64_t>& overruns() const { return overruns_; }

 private:
  const DemoTask& spec(const Task& t) const { return tasks_[static_cast<size_t>(t.id - 1)]; }

  std::vector<DemoTask> tasks_;
  std::vector<int64_t> overruns_;
};

struct DemoTaskReport {
  DemoTask spec;
  int64_t weight = 0;
  int64_t slice_ns = 0;
  int64_t runtime_ns = 0;
  double share = 0;        // runtime / duration
  double ideal_share = 0;  // ideal_shares() with demand work/period (1 for hogs)
  double min_lag_ns = 0;   // extremes of lag_i = w_i(V - v_i)/N while queued, ns of service
  double max_lag_ns = 0;
  stats::LatencySummary wakeup;  // wakeup → first run after it (exact samples, sim/demo_probe.h)
  int64_t overruns = 0;          // activations that found the previous one unfinished
};

struct DemoReport {
  Params params;
  int64_t duration_ns = 0;
  std::vector<DemoTaskReport> tasks;
  int64_t invariant_checks = 0;
  std::vector<std::string> violations;  // promised invariants that failed (SPEC.md §6)
  MachineStats machine;
};

/// Runs the tasks on a one-CPU machine (params.ncpus must be 1) over the exact runqueue for
/// duration_ns. With check_invariants, check_state runs after every operation. The observer, if
/// any, sees every operation the runqueue applies (a trace writer, say).
DemoReport run_demo(const Params& params, const std::vector<DemoTask>& tasks, int64_t duration_ns,
                    bool check_invariants = true, Observer<reference::Num>* observer = nullptr);

/// `vlag demo`: three hogs (nice 0, 0, 5) and a periodic task (1 ms period, 100 µs of work,
/// 0.5 ms custom slice).
std::vector<DemoTask> demo_workload();

}  // namespace vlag::sim
