// The service layer on a real kernel trace (SPEC.md §6.2): per CPU, who ran when among the fair
// tasks contending there, compared with the fluid (GPS) ideal inside each task's group; wakeup
// delays per task in the layout of `perf sched latency`; starvation; and the trace's own faults,
// which exclude the affected window instead of counting against the scheduler.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/events.h"
#include "kernel/snapshot_check.h"

namespace vlag::kernel {

struct KernelCheckOptions {
  int hz = 250;               // the kernel's CONFIG_HZ (not in the trace)
  int64_t base_slice_ns = 0;  // 0: linux-6.18's default × the CPU factor
  int64_t starvation_ns = 1'000'000'000;
  std::optional<int> only_cpu;
  std::map<int64_t, std::string> group_of;  // pid → group path; empty: all in "/"
  std::string group_source = "none (all tasks compared as one group)";
  std::map<int64_t, int64_t> slice_of;  // pid → slice ns (custom slices from a snapshot)
};

struct TaskService {
  int64_t pid = 0;
  std::string comm;
  int prio = 120;
  int64_t weight = 1024;
  int64_t slice_ns = 0;
  std::string group = "/";
  int64_t runtime_ns = 0;
  int64_t switches = 0;                   // times switched in
  std::vector<int64_t> delays_ns;         // runnable → running, each time (perf sched latency)
  std::vector<int64_t> wakeup_delays_ns;  // the subset whose wait started with a wakeup
  int64_t max_delay_ns = -1;
  int64_t max_delay_at_ns = 0;
  double ideal_ns = 0;    // GPS service inside its group on its CPU
  double counted_ns = 0;  // service received while the fluid clock was counting
  double min_lag_ns = 0;  // extremes of ideal − received within a runnable interval
  double max_lag_ns = 0;
  int64_t longest_wait_ns = 0;
};

struct TraceProblem {
  int line = 0;
  int cpu = -1;
  std::string message;
};

struct KernelReport {
  std::string file;
  KernelCheckOptions options;
  int64_t slice_ns = 0;  // the base slice the bounds use
  int64_t tick_ns = 0;
  int64_t first_ns = 0, last_ns = 0;
  int ncpus = 0;
  std::map<int64_t, TaskService> tasks;      // fair tasks by pid
  std::map<std::string, CheckCount> counts;  // THM-SHARE, THM-LAG-BOUND-LINUX, STARVATION
  std::vector<SnapshotFinding> findings;     // violations of those, with the trace line
  std::vector<TraceProblem> problems;        // trace faults (excluded windows)
  int64_t restarted_windows = 0;  // task sums restarted after a trace fault (window excluded)
  bool ok() const;
};

/// The layer as a stream: feed events in file order, then finish. Memory grows with the tasks
/// and CPUs seen, not with the trace.
class KernelServiceLayer {
 public:
  KernelServiceLayer(std::string file, const KernelCheckOptions& options);
  ~KernelServiceLayer();
  KernelServiceLayer(const KernelServiceLayer&) = delete;
  KernelServiceLayer& operator=(const KernelServiceLayer&) = delete;

  void on_event(const KernelEvent& e);
  KernelReport finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// All of a trace at once (the events in file order).
KernelReport check_kernel_trace(const std::vector<KernelEvent>& events, const std::string& file,
                                const KernelCheckOptions& options);

}  // namespace vlag::kernel
