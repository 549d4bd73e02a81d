// One simulated run described as data: the machine, the workloads and their sizes, the tasks'
// attributes. `vlag sim` runs one scenario and prints its report; `vlag compare` runs a grid of
// them on several seeds and compares their metrics. A scenario is a function of its config: the
// same config (seed included) gives the same result.
//
// `workload` names one benchmark or several joined by '+' ("hackbench+cyclictest"); each one's
// tasks carry its name as their workload, and background hogs (`hogs`) carry "background".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/cyclictest.h"
#include "stats/latency_histogram.h"
#include "sim/machine.h"
#include "sim/metric.h"
#include "sim/schbench.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct ScenarioConfig {
  MachineConfig machine;
  std::string workload = "hogs";  // see workload_names(), or several joined by '+'
  int64_t limit_ns = 10'000'000'000;
  TaskOptions options;  // the workloads' own tasks (not background hogs), cycled per workload
  std::vector<WorkloadSettings> workload_settings;  // per workload: nice / slice / latency_nice
  int tasks = 0;              // hogs: count; cyclictest: threads; 0: one per CPU
  int hogs = -1;              // background hogs; -1: one per CPU under a lone cyclictest, else none
  int hackbench_groups = 10;  // hackbench -g: its sender/receiver groups
  int fds = 20;
  int loops = 100;
  bool hackbench_threads = false;  // -T: the output says threads
  int64_t pipe_bytes = 64 * 1024;  // hackbench's pipe buffer
  CyclictestConfig cyclictest;     // interval, distance, loops, histogram (threads: `tasks`)
  SchbenchConfig schbench;         // all but the task options
  std::string rtapp_file;          // the rt-app JSON description for workload "rtapp"
};

/// What one task did, for tables and plots.
struct TaskSummary {
  std::string name;
  std::string workload;
  int cpu = 0;
  int nice = 0;
  int64_t slice_ns = 0;
  int latency_nice = 0;
  int64_t runtime_ns = 0;
  int64_t migrations = 0;
  stats::LatencyHistogram latency;
  std::string group = "/";  // its task group's path (SPEC.md §10)
};

struct ScenarioResult {
  MachineStats stats;
  std::string report;  // the real tools' output, one after the other, followed by nothing else
  Metrics metrics;     // the workloads' figures, then the machine's counters
  std::vector<TaskSummary> tasks;
};

/// Workload names accepted (alone or joined by '+') by ScenarioConfig::workload.
std::vector<std::string> workload_names();

/// The workloads of a ScenarioConfig::workload ("hackbench+cyclictest"); throws vlag::Error
/// naming an unknown or repeated one.
std::vector<std::string> split_workloads(const std::string& spec);

/// Runs the scenario, handing every CPU's events to `events` if given (sim/machine.h
/// report_to); throws vlag::Error on an unknown workload, invalid sizes, a bad rt-app file, or
/// settings that reach no task (a group naming a workload the run lacks, an rt-app file without
/// the rtapp workload).
ScenarioResult run_scenario(const ScenarioConfig& config, trace::EventSink* events = nullptr);

}  // namespace vlag::sim
