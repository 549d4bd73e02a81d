// cyclictest-like: measuring threads woken by a periodic timer (cyclictest's -i interval, each
// thread's first expiry offset by -d distance), each running a short burst per wakeup. The
// latency of a wakeup is the time from the timer's expiry to the thread's first run after it, as
// cyclictest measures it. With -l loops every thread stops after that many cycles and the run
// ends with the last one; with -h N each thread keeps cyclictest's histogram of N one-microsecond
// buckets (latencies truncated to whole µs, as cyclictest's calcdiff does) and an overflow count.
// Background load is not part of it: compose it with hogs (sim/composite.h). cyclictest draws no
// random numbers; nor does the model.
#pragma once

#include <vector>

#include "sim/benchmark.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct CyclictestConfig {
  int threads = 1;
  int64_t interval_ns = 1'000'000;  // cyclictest default -i 1000 (µs)
  int64_t distance_ns = 500'000;    // cyclictest default -d 500 (µs)
  int64_t work_ns = 5'000;          // the thread's CPU time per wakeup
  int64_t loops = 0;                // -l: cycles per thread; 0: until the run is stopped
  int histogram_us = 0;             // -h: buckets of 1 µs; 0: no histogram
  TaskOptions options;              // the measuring threads' nice and slice
};

/// What one measuring thread saw, as cyclictest's struct thread_stat keeps it.
struct CyclicThreadStats {
  LatencyStats latency;
  std::vector<int64_t> histogram;        // per µs, histogram_us buckets
  int64_t overflows = 0;                 // latencies >= histogram_us µs
  std::vector<int64_t> overflow_cycles;  // the cycle numbers of the first overflows
};

class Cyclictest : public Benchmark {
 public:
  /// Throws vlag::Error on a thread count < 1, a non-positive interval or negative sizes.
  explicit Cyclictest(CyclictestConfig c);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;
  std::string report(const MachineStats& st) const override;
  Metrics metrics(const MachineStats& st) const override;
  bool ends_by_itself() const override { return config_.loops > 0; }

  /// The measuring threads, in thread order, and what each saw.
  const std::vector<Task*>& threads() const { return threads_; }
  const std::vector<CyclicThreadStats>& stats() const { return stats_; }
  const CyclictestConfig& config() const { return config_; }

 private:
  size_t index_of(const Task& t) const { return static_cast<size_t>(t.id - first_id_); }

  CyclictestConfig config_;
  std::vector<Task*> threads_;
  std::vector<CyclicThreadStats> stats_;
  std::vector<int64_t> next_expiry_;
  int64_t first_id_ = 0;
  int running_ = 0;  // threads that have cycles left
};

/// cyclictest's per-thread summary lines ("T: 0 ( 1) P: 0 I:1000 C: 1000 Min: 3 Act: 5 Avg: 4
/// Max: 12", µs).
std::string cyclictest_summary(const Cyclictest& w);

/// cyclictest's -h output: "# Histogram", one line per non-empty µs bucket with a count per
/// thread, then the Total/Min/Avg/Max/Overflows footer.
std::string cyclictest_histogram(const Cyclictest& w);

}  // namespace vlag::sim
