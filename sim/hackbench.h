// hackbench-like (`perf bench sched messaging`): groups of `fds` senders and `fds` receivers;
// every sender writes `loops` messages to each receiver of its group, round-robin. A message is
// the sender's short burst (the write) followed by a wakeup of the receiver, which reads each
// pending message in a burst of its own and sleeps when none is left. Pipes never fill: senders
// do not block. The run ends when every receiver has read all its messages.
#pragma once

#include <vector>

#include "sim/machine.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct HackbenchConfig {
  int groups = 10;  // perf bench sched messaging defaults: 10 groups, 20 fds, 100 loops
  int fds = 20;
  int loops = 100;
  int64_t send_ns = 2'000;  // CPU time of one write
  int64_t recv_ns = 2'000;  // CPU time of one read
  TaskOptions options;      // every task's nice and slice, senders and receivers alike
};

class Hackbench : public Workload {
 public:
  explicit Hackbench(HackbenchConfig c) : config_(std::move(c)) {}
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  bool finished() const { return receivers_left_ == 0; }
  const HackbenchConfig& config() const { return config_; }

 private:
  struct Role {
    bool sender = false;
    int group = 0;
    int64_t done = 0;     // messages sent, or read
    int64_t pending = 0;  // receivers: messages waiting in the pipe
  };
  Task& receiver(int group, int k);

  HackbenchConfig config_;
  std::vector<Role> roles_;     // by task id
  std::vector<Task*> members_;  // per group: fds senders, then fds receivers
  int receivers_left_ = 0;
};

/// perf's output: the banner and "Total time: X [sec]"; an unfinished run says so instead.
std::string hackbench_summary(const Hackbench& w, int64_t end_ns);

}  // namespace vlag::sim
