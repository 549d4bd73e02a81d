// The service layer on a real kernel trace (SPEC.md §6.2): per recorded CPU, who ran when,
// which tasks and group entities were queued on which cfs_rq, and from that the verdicts of
// THM-SHARE and THM-LAG-BOUND-LINUX (pairs of entities of one cfs_rq runnable together) and
// INV-NO-STARVATION (each wait against its weight-scaled bound), on the lattice of SPEC.md §6.3;
// the renormalised fluid ideal of every entity and its lag as figures; wakeup delays per task
// in the layout of `perf sched latency`; and what the trace does not show (unrecorded switches,
// untraced CPUs, tasks seen mid-life), which makes a check inconclusive instead of violated.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/events.h"
#include "kernel/range.h"
#include "spec/verdict.h"
#include "stats/latency_histogram.h"

namespace vlag::kernel {

/// What a snapshot said of a group: its shares (tg->shares, unscaled) and, per CPU at the
/// snapshot's time, the load its other CPUs still carried (tg_load_avg − that CPU's contrib).
struct GroupLoadSample {
  int64_t at_ns = 0;
  int cpu = 0;
  double other_load = 0;
};
struct GroupKnowledge {
  std::optional<Range> shares;
  std::string shares_source;    // the snapshots' cfs_rqs it was read from, or the group map line
  std::string complete_source;  // the map line saying it names every task of the group (if any)
  std::vector<GroupLoadSample> samples;
};

struct SnapshotTask {
  int cpu = 0;
  char state = '?';
};

struct KernelCheckOptions {
  int hz = 250;                             // the kernel's CONFIG_HZ (not in the trace)
  std::optional<int64_t> base_slice_ns;     // sysctl_sched_base_slice (a snapshot, or the user)
  std::string base_slice_source;            // where base_slice_ns came from
  int64_t starvation_ns = 0;                // the user's threshold: shorter waits never violate
  std::optional<int> only_cpu;              // judge this CPU only
  std::optional<int> machine_cpus;          // a snapshot's CPUs, or trace-cmd's cpus=N
  bool groups_known = false;                // a snapshot or a group map gave task groups
  std::map<int64_t, std::string> group_of;  // pid → group path
  std::string group_source = "none";
  std::map<int64_t, int64_t> slice_of;  // pid → slice ns (every task row of a snapshot)
  std::map<std::string, GroupKnowledge> groups;
  std::map<int64_t, SnapshotTask> snapshot_tasks;  // where a snapshot saw each task
  std::optional<std::string> kernel_release;       // a snapshot's uname -r (kernel_release.h)
  std::string kernel_release_source;               // the snapshot that named it
};

/// A stretch of a task's run at one weight (a renice starts a new one).
struct WeightPhase {
  int prio = 120;
  int64_t weight = 1024;
  int64_t from_ns = 0, to_ns = 0;  // first and last time the trace showed this prio
  int64_t runtime_ns = 0;
  double ideal_ns = 0, fluid_received_ns = 0;
  bool ideal_exact = true;  // every weight the fluid figures rest on was known
};

/// A task's waits summed as they end (the figures perf sched latency prints), in memory that
/// does not grow with the trace.
struct DelayTotals {
  int64_t count = 0, total_ns = 0, min_ns = 0, max_ns = 0;
  void add(int64_t d) {
    min_ns = count == 0 ? d : std::min(min_ns, d);
    max_ns = count == 0 ? d : std::max(max_ns, d);
    ++count;
    total_ns += d;
  }
  double avg_ns() const {
    return count == 0 ? 0 : static_cast<double>(total_ns) / static_cast<double>(count);
  }
  bool operator==(const DelayTotals&) const = default;
};

struct TaskService {
  int64_t pid = 0;
  std::string comm;
  int prio = 120;  // the last one seen
  int64_t weight = 1024;
  Range slice_ns;  // exact when a snapshot gave it
  std::string group = "/";
  bool group_known = false;
  int64_t runtime_ns = 0;                 // on the judged CPUs, as perf sched latency counts it
  int64_t switches = 0;                   // times switched in
  DelayTotals delays;                     // runnable → running, each known wait
  stats::LatencyHistogram wakeup_delays;  // the subset whose wait started with a wakeup
  int64_t max_delay_ns = -1;
  int64_t max_delay_at_ns = 0;
  int64_t longest_wait_ns = 0;   // FIG-STARVATION
  double ideal_ns = 0;           // renormalised fluid ideal (SPEC.md §6.2), summed over CPUs
  double fluid_received_ns = 0;  // the service the fluid model covered
  double min_lag_ns = 0, max_lag_ns = 0;  // fluid ideal − received, extremes
  bool ideal_exact = true;  // every weight the fluid figures rest on was known (else no figures)
  std::vector<WeightPhase> phases;
};

/// A group entity (a cfs_rq's group on one CPU, summed over CPUs for the figures).
struct GroupService {
  std::string path;
  int64_t runtime_ns = 0;                      // its tasks' run time
  double ideal_ns = 0, fluid_received_ns = 0;  // at its parent
  bool ideal_exact = true;                     // every weight they rest on was known
  std::optional<Range> shares;
  std::string shares_source;  // GroupKnowledge::shares_source
};

/// One subject's verdict on one ID, when it is not plainly held.
struct KernelFinding {
  std::string id;
  Verdict verdict = Verdict::Held;
  Reasons reasons;
  std::string subject;  // "hog:4975", "group /autogroup-3 on cpu1"
  int cpu = -1;
  int line = 0;  // the trace line where it was decided
  std::string message;
};

struct TraceProblem {
  int line = 0;
  int cpu = -1;
  std::string message;
};

/// Switches the trace does not hold: out of the idle task, or out of a task the tracer never
/// records while it runs (its switch-in is recorded, nothing else). Not faults; the windows are
/// excluded from what is measured.
struct UnrecordedRuns {
  int64_t windows = 0;
  int64_t total_ns = 0;
};

struct KernelReport {
  std::string file;
  KernelCheckOptions options;
  Range base_slice_ns;
  std::string base_slice_source;
  int64_t tick_ns = 0;
  int64_t first_ns = 0, last_ns = 0;
  std::vector<int> recorded_cpus;
  int machine_cpus = 0;
  std::string machine_cpus_source;
  bool all_cpus_recorded = false;
  std::map<int64_t, TaskService> tasks;        // fair tasks by pid
  std::map<std::string, GroupService> groups;  // by path (not "/")
  std::map<std::string, VerdictTally> checks;  // by ID
  std::vector<KernelFinding> findings;         // violated and inconclusive, by ID then subject
  std::map<std::string, std::map<std::string, Verdict>> verdict_of;  // ID → subject → verdict
  std::map<int64_t, UnrecordedRuns> unrecorded;  // by the pid whose switch-out is missing
  std::vector<TraceProblem> problems;            // the first kMaxProblems
  int64_t problem_count = 0;                     // all of them
  Verdict worst = Verdict::NotApplicable;
  bool ok() const { return worst != Verdict::Violated; }
};

inline constexpr size_t kMaxProblems = 200;

/// The layer as a stream: feed events in time order, then finish. Memory grows with the tasks
/// and CPUs seen, and with the trace only by each wakeup's wait (kept for its percentiles) and
/// each missing switch-out of a task other than idle (classified at the end).
class KernelServiceLayer {
 public:
  KernelServiceLayer(std::string file, const KernelCheckOptions& options);
  ~KernelServiceLayer();
  KernelServiceLayer(const KernelServiceLayer&) = delete;
  KernelServiceLayer& operator=(const KernelServiceLayer&) = delete;

  void on_event(const KernelEvent& e);
  /// The machine's CPU count, when reading the capture told it (trace-cmd's "cpus=N") and no
  /// snapshot did.
  void note_machine_cpus(int n);
  KernelReport finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// All of a trace at once (the events in time order).
KernelReport check_kernel_trace(const std::vector<KernelEvent>& events, const std::string& file,
                                const KernelCheckOptions& options);

}  // namespace vlag::kernel
