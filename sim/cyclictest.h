// cyclictest-like: measuring threads woken by a periodic timer (cyclictest's -i interval, each
// thread's first expiry offset by -d distance), each running a short burst per wakeup, next to
// optional CPU hogs as background load. The latency of a wakeup is the time from the timer's
// expiry to the thread's first run after it, as cyclictest measures it.
#pragma once

#include <vector>

#include "sim/machine.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct CyclictestConfig {
  int threads = 1;
  int64_t interval_ns = 1'000'000;  // cyclictest default -i 1000 (µs)
  int64_t distance_ns = 500'000;    // cyclictest default -d 500 (µs)
  int64_t work_ns = 5'000;          // the thread's CPU time per wakeup
  int hogs = 0;                     // background CPU hogs (nice 0, base slice)
  TaskOptions options;              // the measuring threads' nice and slice
};

class Cyclictest : public Workload {
 public:
  explicit Cyclictest(CyclictestConfig c) : config_(std::move(c)) {}
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;
  /// The measuring threads, in thread order.
  const std::vector<Task*>& threads() const { return threads_; }
  const CyclictestConfig& config() const { return config_; }

 private:
  CyclictestConfig config_;
  std::vector<Task*> threads_;
  std::vector<int64_t> next_expiry_;  // by task id
};

/// cyclictest's per-thread summary lines ("T: 0 ( 1) P: 0 I:1000 C: 1000 Min: 3 Act: 5 Avg: 4
/// Max: 12", µs).
std::string cyclictest_summary(const Cyclictest& w);

}  // namespace vlag::sim
