// rt-app-like: the tasks of an rt-app description (sim/rtapp_config.h), each instance a simulated
// task walking its phases' events — run (a burst of CPU), sleep (a relative sleep), timer (a
// sleep until the timer's next period, kept on its grid however late the task is). Timers are
// shared by name across threads, except names starting with "unique", which are per instance, as
// in rt-app. At its first use a timer counts from the start of the using thread's current loop.
// rt-app draws no random numbers in these events; nor does the model.
//
// The report follows rt-app's notices ("[rt-app] <notice> ...") and, per thread instance, the
// figures rt-app logs per loop, summed up: loops done, CPU time, wakeup latency (rt-app's wu_lat:
// timer expiry or sleep end to running) and the shortest and longest period between loop starts.
#pragma once

#include <map>
#include <vector>

#include "sim/benchmark.h"
#include "sim/rtapp_config.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct RtAppThreadStats {
  int64_t loops = 0;  // passes over the phases begun
  int64_t first_loop_at = -1;
  int64_t last_loop_at = -1;
  int64_t min_period_ns = 0;  // between consecutive loop starts; 0 until two loops
  int64_t max_period_ns = 0;
  bool exited = false;
  LatencyStats wakeup;  // wu_lat
};

class RtApp : public Benchmark {
 public:
  /// `workload` names the tasks' workload; the description's own nice, slice and latency_nice
  /// come first, then the workload's settings replace them.
  RtApp(RtAppConfig config, std::string workload, std::vector<WorkloadSettings> settings);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;
  std::string report(const MachineStats& st) const override;
  Metrics metrics(const MachineStats& st) const override;
  /// Ends by itself when every task has a finite loop count.
  bool ends_by_itself() const override;
  /// The description's global duration, -1 when it has none.
  int64_t duration_ns() const { return config_.duration_ns; }

  struct Instance {
    const RtAppTask* spec = nullptr;
    int number = 0;  // instance number within its task
    Task* task = nullptr;
    size_t phase = 0;
    int64_t phase_loop = 0;
    size_t event = 0;
    bool woken = false;   // the next run follows a sleep or timer: measure its latency
    int64_t late_ns = 0;  // how late that sleep's timer fired (its slack)
    std::map<std::string, int64_t> unique_timers;  // ref → next expiry
    RtAppThreadStats stats;
  };
  const std::vector<Instance>& instances() const { return instances_; }

 private:
  Instance& of(const Task& t) { return instances_[static_cast<size_t>(t.id - first_id_)]; }
  /// Walks events from the current one until a run (returns its length), a sleep or timer
  /// (arms the timer, returns 0) or the task's end (returns 0).
  int64_t advance(Machine& m, Instance& in);
  void begin_loop(Machine& m, Instance& in);

  RtAppConfig config_;
  std::string workload_;
  std::vector<WorkloadSettings> settings_;
  std::vector<Instance> instances_;
  std::map<std::string, int64_t> shared_timers_;  // ref → next expiry
  int64_t first_id_ = 0;
  int running_ = 0;
};

}  // namespace vlag::sim
