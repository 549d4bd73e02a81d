// CPU hogs: tasks that never sleep, spread over the CPUs round-robin at start. Used alone (how
// the CPU is shared) or as another benchmark's background load; their report is a table of CPU
// time and share per hog.
#pragma once

#include <string>
#include <vector>

#include "sim/benchmark.h"
#include "sim/task_options.h"

namespace vlag::sim {

class Hogs : public Benchmark {
 public:
  Hogs(int count, TaskOptions options, std::string prefix = "hog")
      : count_(count), options_(std::move(options)), prefix_(std::move(prefix)) {}
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  std::string report(const MachineStats& st) const override;
  Metrics metrics(const MachineStats&) const override { return {}; }
  const std::vector<Task*>& hogs() const { return hogs_; }

 private:
  int count_;
  TaskOptions options_;
  std::string prefix_;  // task names: prefix0, prefix1, ...
  std::vector<Task*> hogs_;
  std::vector<std::string> groups_;  // each hog's task group, with task groups only
};

}  // namespace vlag::sim
