// The metrics of each task group of a run (SPEC.md §10), beside the workloads' own: the group's
// CPU time as a share of the machine, and its tasks' wakeup latency (from a wakeup until the task
// runs; their histograms merged) at p50, p99 and max, named cgroup:PATH.share and
// cgroup:PATH.wakeup_p50, .wakeup_p99, .wakeup_max, so that a comparison varying one group's
// weight or latency_nice shows what it did to that group and to the others. A run whose tasks all
// sit in the root group has none.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/metric.h"
#include "sim/scenario.h"

namespace vlag::compare {

/// Per group that holds tasks, by path ("/" too when some tasks stayed there): share in % of
/// `ncpus` CPUs over [0, end_ns] (higher: more CPU for the group), and, when its tasks woke,
/// wakeup_p50, wakeup_p99 and wakeup_max in us (lower is better; the histogram's bucket bound,
/// within 1.6 %).
sim::Metrics group_metrics(const std::vector<sim::TaskSummary>& tasks, int64_t end_ns, int ncpus);

}  // namespace vlag::compare
