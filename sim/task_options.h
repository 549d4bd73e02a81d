// Per-task attributes given on the command line as lists ("0,0,5"): task i takes element
// i mod the list's length, so one value sets every task and a list sets them one by one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/task.h"

namespace vlag::sim {

struct TaskOptions {
  std::vector<int> nice;          // empty: 0
  std::vector<int64_t> slice_ns;  // empty: the base slice
  std::vector<int> latency_nice;  // empty: 0
  TaskAttrs attrs(const std::string& name, size_t i) const;
};

}  // namespace vlag::sim
