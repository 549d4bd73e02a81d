// schbench-like (Chris Mason's schbench v1.0, default mode: no -R, no -p): `message_threads`
// message threads, each with `workers` worker threads. A worker finishing a request posts itself
// on its message thread's list and wakes it; the message thread, when it runs, takes the whole
// list, stamps the time and wakes every worker on it, then waits again. A worker's wakeup latency
// is from that stamp to its first run; its request is then a usleep of `sleep_ns` (-s) followed by
// `request_ns` of CPU (the matrix math of -F/-n, given here as a time), and the request latency
// runs from the worker's wakeup to the end of the math. Requests per second are counted per
// simulated second (schbench samples RPS once a second) and overall. Statistics recorded before
// `warmup_ns` (-w) are dropped, as schbench zeroes them after its warmup.
//
// Not modelled: the per-CPU spinlock schbench holds during the math (it penalises a worker
// migrated mid-request; the machine does not migrate a running task). schbench draws no random
// numbers in this mode; nor does the model.
#pragma once

#include <vector>

#include "sim/benchmark.h"
#include "sim/task_options.h"

namespace vlag::sim {

struct SchbenchConfig {
  int message_threads = 1;  // -m (schbench v1.0 default 1)
  int workers = 0;          // -t per message thread; 0: ceil(CPUs / message_threads), as schbench
  int64_t sleep_ns = 100'000;  // -s 100 µs, schbench's default
  // The CPU time of one request. schbench sets it as matrix work (-F 256 -n 5 by default); its
  // README's calibration run of those defaults measured a p50 of about 17 ms.
  int64_t request_ns = 17'000'000;
  int64_t warmup_ns = 0;       // -w (schbench's default is 5 s: set it for long runs)
  int64_t message_ns = 2'000;  // the message thread's CPU time per round of wakeups
  int64_t post_ns = 1'000;     // a worker's CPU time between its wakeup and its usleep
  TaskOptions options;         // message threads and workers, in creation order
};

class Schbench : public Benchmark {
 public:
  /// Throws vlag::Error on counts < 1 (workers: < 0) or non-positive times.
  explicit Schbench(SchbenchConfig c);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;
  std::string report(const MachineStats& st) const override;
  Metrics metrics(const MachineStats& st) const override;

  const LatencyStats& wakeup() const { return wakeup_; }
  const LatencyStats& request() const { return request_; }
  int64_t requests() const { return requests_; }
  /// Requests completed in each whole simulated second after the warmup.
  const std::vector<int64_t>& per_second() const { return per_second_; }
  /// Average requests per second over the measured time that ended at end_ns.
  double rps(int64_t end_ns) const;
  int workers_per_message_thread() const { return workers_; }

 private:
  enum class Phase { Waiting, Working };  // for the message thread's wakeup; in a request
  struct Role {
    bool message = false;
    int owner = 0;  // the message thread's index (its own, for a message thread)
    Phase phase = Phase::Waiting;
    int64_t woke_at = 0;  // when the message thread woke the worker
    int64_t work_start = 0;
  };
  Role& role(const Task& t) { return roles_[static_cast<size_t>(t.id - first_id_)]; }
  bool measuring(const Machine& m) const { return m.now() >= config_.warmup_ns; }
  void post(Machine& m, Task& worker, int owner);

  SchbenchConfig config_;
  int workers_ = 0;
  int64_t first_id_ = 0;
  std::vector<Role> roles_;
  std::vector<Task*> message_tasks_;
  std::vector<std::vector<Task*>> lists_;  // per message thread: workers waiting to be woken
  LatencyStats wakeup_;
  LatencyStats request_;
  int64_t requests_ = 0;
  std::vector<int64_t> per_second_;
};

}  // namespace vlag::sim
