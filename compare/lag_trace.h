// Lag over time for the lag plot: one run replayed with per-CPU traces, read back with
// trace::Reader, each task's lag in ns of service (SPEC.md §2: lag = w·vlag/N) taken from every
// event that carries the task's vlag, thinned to the extreme value per time bucket so that a long
// run still plots quickly. The bound drawn with it is THM-LAG-BOUND-LINUX's ±(r + TICK), with r
// the base slice: the theorem is promised for a common slice, and a variant with custom slices
// is expected to cross it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/scenario.h"

namespace vlag::compare {

struct LagPoint {
  int64_t t_ns = 0;
  double lag_ns = 0;
};

struct LagSeries {
  std::map<int64_t, std::vector<LagPoint>> by_task;  // task id → points in time order
  double bound_ns = 0;                               // r + TICK
  double max_abs_lag_ns = 0;                         // over every event, before thinning
};

/// Runs the config again with traces into a fresh directory under `scratch_dir` (removed after
/// reading) and collects at most `buckets` points per task.
LagSeries lag_over_time(sim::ScenarioConfig config, const std::string& scratch_dir, int buckets);

}  // namespace vlag::compare
