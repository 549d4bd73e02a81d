// One CPU driven by events — timer ticks, periodic wakeups, ends of bursts — over the reference
// runqueue. It decides nothing itself: every scheduling decision is the runqueue's; the driver
// only turns time and workload into SPEC.md operations and records what the tasks experienced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/runqueue.h"
#include "sim/stats.h"
#include "spec/features.h"

namespace vlag::sim {

struct TaskSpec {
  std::string name;
  int nice = 0;
  int64_t slice_ns = 0;   // custom slice; 0: the base slice
  int64_t period_ns = 0;  // 0: a CPU hog, always runnable
  int64_t work_ns = 0;    // CPU time needed per period
};

struct TaskReport {
  TaskSpec spec;
  int64_t weight = 0;
  int64_t slice_ns = 0;
  int64_t runtime_ns = 0;
  double share = 0;        // runtime / duration
  double ideal_share = 0;  // ideal_shares() with demand work/period (1 for hogs)
  double min_lag_ns = 0;   // extremes of lag_i = w_i(V - v_i)/N while queued, ns of service
  double max_lag_ns = 0;
  LatencySummary wakeup;  // activation → first run after it
  int64_t overruns = 0;   // activations that found the previous one unfinished
};

struct RunReport {
  Params params;
  int64_t duration_ns = 0;
  std::vector<TaskReport> tasks;
  int64_t invariant_checks = 0;
  std::vector<std::string> violations;  // promised invariants that failed (SPEC.md §6)
};

/// Runs the tasks from time 0 for duration_ns. In the `paper` presets the CPU is allocated in
/// quanta: a picked task runs min(q, its remaining request) before the next decision. With
/// check_invariants, check_state runs after every operation. The observer, if any, sees every
/// operation the driver applies.
RunReport run_uniprocessor(const Params& params, const std::vector<TaskSpec>& tasks,
                           int64_t duration_ns, bool check_invariants = true,
                           Observer<reference::Num>* observer = nullptr);

/// `vlag demo`: three hogs (nice 0, 0, 5) and a periodic task (1 ms period, 100 µs of work,
/// 0.5 ms custom slice).
std::vector<TaskSpec> demo_workload();

}  // namespace vlag::sim
