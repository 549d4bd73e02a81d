// CPU hogs: tasks that never sleep, spread over the CPUs round-robin at start.
#pragma once

#include "sim/machine.h"
#include "sim/task_options.h"

namespace vlag::sim {

class Hogs : public Workload {
 public:
  Hogs(int count, TaskOptions options) : count_(count), options_(std::move(options)) {}
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;

 private:
  int count_;
  TaskOptions options_;
};

}  // namespace vlag::sim
