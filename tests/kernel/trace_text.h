// Hand-made perf script text for the kernel tests: one builder per tracepoint, in the layout
// of `perf script --ns -F comm,pid,tid,cpu,time,event,trace` (so the current task is named),
// and the options a snapshot of the machine would give.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "kernel/perf_script.h"
#include "kernel/service.h"

namespace vlag::kernel::testing {

/// A task as the tracepoints print it.
struct T {
  std::string comm;
  int64_t pid;
  int prio = 120;
};

inline const T kIdle{"swapper/0", 0, 120};

class TraceText {
 public:
  /// `cur` ran on `cpu` when the event was recorded.
  TraceText& sw(int cpu, double t, const T& prev, const char* state, const T& next) {
    return line(cpu, t, prev,
                fmt::format("sched:sched_switch: prev_comm={} prev_pid={} prev_prio={} "
                            "prev_state={} ==> next_comm={} next_pid={} next_prio={}",
                            prev.comm, prev.pid, prev.prio, state, next.comm, next.pid, next.prio));
  }
  TraceText& wake(int cpu, double t, const T& cur, const T& who, int target, bool fresh = false) {
    return line(cpu, t, cur,
                fmt::format("sched:sched_wakeup{}: comm={} pid={} prio={} target_cpu={:03d}",
                            fresh ? "_new" : "", who.comm, who.pid, who.prio, target));
  }
  TraceText& migrate(int cpu, double t, const T& cur, const T& who, int from, int to) {
    return line(cpu, t, cur,
                fmt::format("sched:sched_migrate_task: comm={} pid={} prio={} orig_cpu={} "
                            "dest_cpu={}",
                            who.comm, who.pid, who.prio, from, to));
  }
  TraceText& runtime(int cpu, double t, const T& cur, int64_t ns) {
    return line(cpu, t, cur,
                fmt::format("sched:sched_stat_runtime: comm={} pid={} runtime={} [ns]", cur.comm,
                            cur.pid, ns));
  }
  /// `cur`, on `cpu`, read the runtime of `who`, which runs on another CPU (task_sched_runtime():
  /// /proc/PID/stat, getrusage): the kernel charged who's run so far and recorded it here.
  TraceText& read_runtime(int cpu, double t, const T& cur, const T& who, int64_t ns) {
    return line(cpu, t, cur,
                fmt::format("sched:sched_stat_runtime: comm={} pid={} runtime={} [ns]", who.comm,
                            who.pid, ns));
  }
  /// a and b woken onto `cpu` at t, from idle, and a picked.
  TraceText& start_pair(int cpu, double t, const T& a, const T& b) {
    return wake(cpu, t, kIdle, a, cpu).wake(cpu, t, kIdle, b, cpu).sw(cpu, t, kIdle, "R", a);
  }
  /// a and b, both runnable (state R), take turns on `cpu` from `from` to `to`, `period` each,
  /// a first: a steady pair of hogs. An even count of turns ends with a running.
  TraceText& alternate(int cpu, double from, double to, double period, const T& a, const T& b) {
    const int n = static_cast<int>((to - from) / period + 0.5);
    for (int i = 1; i <= n; ++i) {
      const bool a_runs = i % 2 == 1;
      sw(cpu, from + period * i, a_runs ? a : b, "R", a_runs ? b : a);
    }
    return *this;
  }
  std::string text() const { return out_.str(); }

 private:
  TraceText& line(int cpu, double t, const T& cur, const std::string& body) {
    out_ << fmt::format("{:>16} {:>6}/{:<6} [{:03d}] {:.9f}: {}\n", cur.comm, cur.pid, cur.pid, cpu,
                        t, body);
    return *this;
  }
  std::ostringstream out_;
};

/// What a snapshot of a machine with `cpus` CPUs would say of these tasks: their group and
/// their slice (the base slice of that machine unless given).
inline KernelCheckOptions snapshot_of(int cpus,
                                      std::initializer_list<std::pair<int64_t, const char*>> groups,
                                      int64_t slice_ns = 0) {
  KernelCheckOptions o;
  o.machine_cpus = cpus;
  o.base_slice_ns = cpus == 1 ? 700'000 : 1'400'000;
  o.base_slice_source = "test";
  for (const auto& [pid, group] : groups) {
    o.group_of[pid] = group;
    o.slice_of[pid] = slice_ns ? slice_ns : *o.base_slice_ns;
  }
  o.groups_known = true;
  o.group_source = "test";
  return o;
}

inline KernelReport check_text(const std::string& text, const KernelCheckOptions& o) {
  std::istringstream in(text);
  std::vector<KernelEvent> events;
  parse_perf_script(in, "t.txt", [&](const KernelEvent& e) { events.push_back(e); });
  return check_kernel_trace(events, "t.txt", o);
}

inline Verdict verdict(const KernelReport& r, const std::string& id, const std::string& subject) {
  const auto ids = r.verdict_of.find(id);
  if (ids == r.verdict_of.end()) return Verdict::NotApplicable;
  const auto it = ids->second.find(subject);
  return it == ids->second.end() ? Verdict::NotApplicable : it->second;
}

}  // namespace vlag::kernel::testing
