// One simulated run described as data: the machine, the workload and its sizes, the tasks'
// attributes. `vlag sim` runs one scenario and prints its report; `vlag compare` runs a grid of
// them on several seeds and compares their metrics. A scenario is a function of its config: the
// same config (seed included) gives the same result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/latency_histogram.h"
#include "sim/machine.h"
#include "sim/metric.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct ScenarioConfig {
  MachineConfig machine;
  std::string workload = "hogs";  // hogs, cyclictest or hackbench
  int64_t limit_ns = 10'000'000'000;
  TaskOptions options;  // the workload's own tasks (not background hogs)
  int tasks = 0;        // hogs: count; cyclictest: threads; 0: one per CPU
  int hogs = -1;        // cyclictest: background hogs; -1: one per CPU
  int groups = 10;      // hackbench
  int fds = 20;
  int loops = 100;
};

/// What one task did, for tables and plots.
struct TaskSummary {
  std::string name;
  int cpu = 0;
  int nice = 0;
  int64_t runtime_ns = 0;
  int64_t migrations = 0;
  LatencyHistogram latency;
};

struct ScenarioResult {
  MachineStats stats;
  std::string report;  // the real tool's output, followed by nothing else
  Metrics metrics;     // the workload's figures, then the machine's counters
  std::vector<TaskSummary> tasks;
};

/// Workload names accepted by ScenarioConfig::workload.
std::vector<std::string> workload_names();

/// Runs the scenario; throws vlag::Error on an unknown workload or invalid sizes.
ScenarioResult run_scenario(const ScenarioConfig& config);

}  // namespace vlag::sim
