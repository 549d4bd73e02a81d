// Per-task attributes given on the command line as lists ("0,0,5"): task i takes element
// i mod the list's length, so one value sets every task and a list sets them one by one.
// A workload's settings (`--group cyclictest:latency_nice=-20,slice_us=100`; the flag keeps its
// name) replace the lists for the tasks of that workload: every task of it takes the one value.
// A workload's tasks are those one workload of a scenario creates, named after it ("hackbench",
// "cyclictest"; "background" for the hogs of --hogs); they are not a task group (cgroup).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/task.h"

namespace vlag::sim {

struct WorkloadSettings {
  std::string workload;
  std::optional<int> nice;
  std::optional<int64_t> slice_ns;  // 0: the base slice
  std::optional<int> latency_nice;
  std::optional<int64_t> timer_slack_ns;
};

struct TaskOptions {
  std::vector<int> nice;                // empty: 0
  std::vector<int64_t> slice_ns;        // empty: the base slice
  std::vector<int> latency_nice;        // empty: 0
  std::vector<int64_t> timer_slack_ns;  // empty: TaskAttrs::kDefaultTimerSlackNs
  std::string workload;                 // every task's workload
  TaskAttrs attrs(const std::string& name, size_t i) const;
  /// These options for the tasks of workload `name`: its settings (those whose workload is
  /// `name`, later ones winning) replace the lists they give.
  TaskOptions for_workload(const std::string& name, const std::vector<WorkloadSettings>& all) const;
};

/// Parses "WORKLOAD:key=value,..." (--group's value) with keys nice, slice_us, latency_nice,
/// timer_slack_us;
/// throws vlag::Error naming the bad part.
WorkloadSettings parse_workload_settings(const std::string& text);

}  // namespace vlag::sim
