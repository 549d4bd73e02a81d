// What the simulator knows of one task: its attributes, where it is, what it still has to run,
// and what it experienced (CPU time, wakeup latencies, migrations).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "stats/latency_histogram.h"

namespace vlag::sim {

inline constexpr int64_t kForever = std::numeric_limits<int64_t>::max() / 4;

/// Running min / sum / max of wakeup latencies, as cyclictest keeps them, and their histogram for
/// percentiles and CDFs.
struct LatencyStats {
  int64_t count = 0;
  int64_t sum_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t last_ns = 0;
  stats::LatencyHistogram histogram;

  void add(int64_t ns) {
    histogram.add(ns);
    last_ns = ns;
    min_ns = count == 0 ? ns : std::min(min_ns, ns);
    max_ns = count == 0 ? ns : std::max(max_ns, ns);
    sum_ns += ns;
    ++count;
  }
  double avg_ns() const { return count ? static_cast<double>(sum_ns) / count : 0.0; }
};

struct TaskAttrs {
  std::string name;
  int nice = 0;
  int64_t slice_ns = 0;  // custom slice (sched_attr.sched_runtime); 0: the base slice
  int latency_nice = 0;  // -20..19; turned into a slice or an offset by the run's policy
  std::string workload;  // the workload whose task it is and whose settings it took ("": none)
  // The slack of the task's timers (Linux's timer_slack_ns: 50 us for SCHED_OTHER, SPEC.md
  // §9.2): a timer fires at the first hrtimer interrupt of its CPU in [expiry, expiry + slack].
  int64_t timer_slack_ns = kDefaultTimerSlackNs;
  static constexpr int64_t kDefaultTimerSlackNs = 50'000;
};

struct Task {
  TaskAttrs attrs;
  int64_t id = 0;
  int cpu = 0;             // the CPU whose runqueue holds (or last held) the task
  bool runnable = false;   // wants the CPU: woken and its burst not finished
  int64_t remaining = 0;   // ns of CPU the current burst still needs
  int64_t woke_at = -1;    // time of the pending wakeup, -1 when none is pending
  int64_t runtime_ns = 0;  // CPU time received, context-switch cost included
  // The current burst is wall-clock time (rt-app's runtime, a loop on the clock, SPEC.md §9.5):
  // once it first runs it ends at wall_end_ns, however much of that time the task had the CPU.
  // Workloads set it before waking the task or returning the burst; -1: not started yet.
  bool wall_work = false;
  int64_t wall_end_ns = -1;
  int64_t timer_late_ns = 0;  // how late after its expiry the task's last timer fired (slack)
  int64_t switches = 0;       // times switched in (context switches to the task)
  int64_t wakeups = 0;
  int64_t migrations = 0;
  // Linux's dur_avg (SIS_SHORT): the running average, 1/8 per sample as update_avg() weighs it,
  // of the CPU time a task uses between two sleeps.
  int64_t dur_avg_ns = 0;
  int64_t runtime_at_sleep_ns = 0;  // runtime_ns when it last went to sleep
  // Its place in its CPU's list of tasks (Linux's rq->cfs_tasks, which enqueue and every switch
  // in move a task to the head of): the machine's count of those events when it last had one.
  // Load balancing by load looks at the least recent first, the cache-coldest.
  int64_t listed = 0;
  LatencyStats latency;  // wakeup → first run after it
};

}  // namespace vlag::sim
