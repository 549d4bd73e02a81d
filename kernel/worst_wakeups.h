// The worst wakeups of a kernel trace one by one, as `perf sched timehist -w` lists wakeups:
// each wakeup's task, the CPU it then ran on, when it was woken, its wakeup delay (woken to
// switched in, the delay of SPEC.md §6.2's latency table), how long it then ran, and what ran
// meanwhile on the CPU it was queued on (following its migrations), each task with its time.
// A stream beside the service layer: only the N worst are kept, in a bounded heap, so memory
// grows with N, the tasks and the CPUs, never with the trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "kernel/events.h"

namespace vlag::kernel {

/// A task that ran on the waiting task's CPU while it waited, and for how long.
struct RanMeanwhile {
  int64_t pid = 0;
  std::string comm;
  int cpu = 0;
  int64_t ns = 0;
};

struct WorstWakeup {
  int64_t pid = 0;
  std::string comm;  // as its switch-in named it
  int cpu = 0;       // where it was switched in
  int line = 0;      // the wakeup's line
  int64_t woken_ns = 0, switched_in_ns = 0, delay_ns = 0;
  std::optional<int64_t> run_ns;        // switch-in to switch-out; none when the trace ends first
  std::vector<RanMeanwhile> meanwhile;  // longest first
  int64_t unrecorded_ns = 0;            // of the delay, what no recorded run on its CPUs covers
};

/// Whether a is a worse wakeup than b: the longer delay, then the earlier wakeup, then the pid.
bool worse_wakeup(const WorstWakeup& a, const WorstWakeup& b);

class WorstWakeups {
 public:
  /// Keeps the `keep` worst; with only_cpu, of the wakeups that ran on that CPU.
  explicit WorstWakeups(size_t keep, std::optional<int> only_cpu = std::nullopt);

  /// Events in time order.
  void on_event(const KernelEvent& e);
  /// The task left for a CPU the stream does not show (a model trace's detach): a wakeup it
  /// waits on is not measured.
  void forget(int64_t pid);
  /// The worst, worst first (a task still running is kept with no run time).
  std::vector<WorstWakeup> finish();
  /// Wakeups whose delay the trace showed (on the judged CPU).
  int64_t measured() const { return measured_; }

 private:
  struct Waiting {
    WorstWakeup w;
    int queue_cpu = 0;
    int64_t queued_since = 0;                             // when it joined queue_cpu's queue
    std::map<std::pair<int, int64_t>, RanMeanwhile> ran;  // by (cpu, pid)
  };
  struct Cpu {
    bool known = false;  // a switch on it was seen: curr and since are known
    int64_t curr = 0;
    std::string comm;
    int64_t since = 0;
    std::vector<Waiting*> queued;        // those waiting here (nodes of waiting_)
    std::optional<WorstWakeup> running;  // a measured wakeup now running here
  };

  void charge(Cpu& c, int cpu, Waiting& w, int64_t until);
  void dequeue(Waiting& w);
  void keep(WorstWakeup w);
  void on_switch(const KernelEvent& e);

  size_t keep_;
  std::optional<int> only_cpu_;
  std::map<int, Cpu> cpus_;
  std::map<int64_t, Waiting> waiting_;  // woken, not yet switched in
  std::map<int64_t, int> running_on_;   // pid → CPU
  // The best of the kept on top, to be dropped first.
  std::priority_queue<WorstWakeup, std::vector<WorstWakeup>,
                      bool (*)(const WorstWakeup&, const WorstWakeup&)>
      heap_{&worse_wakeup};
  int64_t measured_ = 0;
};

}  // namespace vlag::kernel
