// Per-task attributes given on the command line as lists ("0,0,5"): task i takes element
// i mod the list's length, so one value sets every task and a list sets them one by one.
// A group's settings (`--group cyclictest:latency_nice=-20,slice_us=100`) replace the lists for
// the tasks of that group: every task of the group takes the one value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/task.h"

namespace vlag::sim {

struct GroupSettings {
  std::string group;
  std::optional<int> nice;
  std::optional<int64_t> slice_ns;  // 0: the base slice
  std::optional<int> latency_nice;
};

struct TaskOptions {
  std::vector<int> nice;          // empty: 0
  std::vector<int64_t> slice_ns;  // empty: the base slice
  std::vector<int> latency_nice;  // empty: 0
  std::string group;              // every task's group
  TaskAttrs attrs(const std::string& name, size_t i) const;
  /// These options for the tasks of group `name`: the group's settings (those whose group is
  /// `name`, later ones winning) replace the lists they give.
  TaskOptions for_group(const std::string& name, const std::vector<GroupSettings>& all) const;
};

/// Parses "GROUP:key=value,..." with keys nice, slice_us, latency_nice; throws vlag::Error
/// naming the bad part.
GroupSettings parse_group_settings(const std::string& text);

}  // namespace vlag::sim
