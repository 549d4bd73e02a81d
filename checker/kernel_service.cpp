#include "checker/kernel_service.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "spec/features.h"
#include "spec/weights.h"

namespace vlag::checker {
namespace {

using trace::KernelEvent;
using trace::KernelEventKind;

bool fair_prio(int prio) { return prio >= 100 && prio <= 139; }

struct CpuState {
  bool known = false;          // who runs here is known (after its first switch, until a fault)
  int64_t current = 0;         // pid running; 0: idle
  int64_t last_t = INT64_MIN;  // last event time on this CPU, for clock checks
  int64_t accounted_to = 0;
  std::map<std::string, std::set<int64_t>> runnable;  // group → fair pids runnable here
};

struct LiveTask {
  int cpu = -1;             // runnable on this CPU (-1: not runnable)
  int64_t wait_since = -1;  // runnable and waiting since
  bool woken = false;       // that wait started with a wakeup, not a preemption
  double base_ideal = 0;    // ideal and counted service at the start of the runnable interval
  double base_counted = 0;
  bool slept = false;         // blocked at least once in the window
  bool sleeper = false;       // blocked or was woken in the window: not CPU-bound
  bool with_sleeper = false;  // shared its group's CPU time with a sleeper
  bool seen_sleeping = false;
};

class Analysis {
 public:
  Analysis(const std::string& file, const KernelCheckOptions& o) {
    r_.file = file;
    r_.options = o;
    r_.tick_ns = make_params(preset_by_name("linux-6.18"), o.hz).tick_ns();
  }

  KernelReport run(std::vector<KernelEvent> events) {
    std::stable_sort(events.begin(), events.end(), [](const KernelEvent& a, const KernelEvent& b) {
      return a.time_ns < b.time_ns;
    });
    int max_cpu = 0;
    for (const auto& e : events)
      max_cpu = std::max({max_cpu, e.cpu, e.target_cpu.value_or(0), e.dest_cpu.value_or(0)});
    r_.ncpus = events.empty() ? 0 : max_cpu + 1;
    cpus_.resize(static_cast<size_t>(r_.ncpus));
    r_.slice_ns = r_.options.base_slice_ns != 0 ? r_.options.base_slice_ns
                                                : make_params(preset_by_name("linux-6.18"),
                                                              r_.options.hz, std::max(1, r_.ncpus))
                                                      .base_slice_ns();
    if (!events.empty()) {
      r_.first_ns = events.front().time_ns;
      r_.last_ns = events.back().time_ns;
    }
    for (const auto& e : events) step(e);
    for (size_t c = 0; c < cpus_.size(); ++c) advance(static_cast<int>(c), r_.last_ns);
    verdicts();
    return std::move(r_);
  }

 private:
  void problem(const KernelEvent& e, int cpu, std::string msg) {
    if (r_.problems.size() < 200) r_.problems.push_back({e.line, cpu, std::move(msg)});
  }

  TaskService* task(int64_t pid, const std::string& comm, std::optional<int> prio) {
    if (pid == 0) return nullptr;
    auto it = r_.tasks.find(pid);
    if (it == r_.tasks.end()) {
      if (!prio || !fair_prio(*prio)) return nullptr;
      TaskService t;
      t.pid = pid;
      const auto g = r_.options.group_of.find(pid);
      if (g != r_.options.group_of.end()) t.group = g->second;
      const auto s = r_.options.slice_of.find(pid);
      t.slice_ns = s != r_.options.slice_of.end() ? s->second : r_.slice_ns;
      it = r_.tasks.emplace(pid, t).first;
    }
    TaskService& t = it->second;
    if (!comm.empty()) t.comm = comm;
    if (prio && fair_prio(*prio)) {
      t.prio = *prio;
      t.weight = nice_to_weight(*prio - 120);
    }
    return &t;
  }

  bool counts(int cpu) const { return !r_.options.only_cpu || *r_.options.only_cpu == cpu; }

  // Accounts [accounted_to, t) on one CPU: the running fair task receives it; every runnable
  // task of its group is owed its weighted part (GPS inside the group).
  void advance(int c, int64_t t) {
    CpuState& cpu = cpus_[static_cast<size_t>(c)];
    const int64_t dt = t - cpu.accounted_to;
    cpu.accounted_to = std::max(cpu.accounted_to, t);
    if (!cpu.known || dt <= 0 || cpu.current == 0 || !counts(c)) return;
    const auto run = r_.tasks.find(cpu.current);
    if (run == r_.tasks.end()) return;
    run->second.runtime_ns += dt;
    const auto& group = cpu.runnable[run->second.group];
    if (!group.count(cpu.current)) return;  // running without a known runnable interval
    int64_t W = 0;
    bool mixed = false;
    for (int64_t pid : group) {
      W += r_.tasks.at(pid).weight;
      mixed = mixed || live_[pid].sleeper;
    }
    for (int64_t pid : group) {
      TaskService& ts = r_.tasks.at(pid);
      ts.ideal_ns +=
          static_cast<double>(dt) * static_cast<double>(ts.weight) / static_cast<double>(W);
      if (pid == cpu.current) ts.counted_ns += static_cast<double>(dt);
      LiveTask& lt = live_[pid];
      lt.with_sleeper = lt.with_sleeper || mixed;
      const double lag = (ts.ideal_ns - lt.base_ideal) - (ts.counted_ns - lt.base_counted);
      ts.min_lag_ns = std::min(ts.min_lag_ns, lag);
      ts.max_lag_ns = std::max(ts.max_lag_ns, lag);
      if (lt.wait_since >= 0) ts.longest_wait_ns = std::max(ts.longest_wait_ns, t - lt.wait_since);
    }
  }

  void make_runnable(TaskService& t, int c, int64_t now) {
    LiveTask& lt = live_[t.pid];
    if (lt.cpu >= 0) cpus_[static_cast<size_t>(lt.cpu)].runnable[t.group].erase(t.pid);
    lt.cpu = c;
    lt.wait_since = now;
    lt.base_ideal = t.ideal_ns;
    lt.base_counted = t.counted_ns;
    cpus_[static_cast<size_t>(c)].runnable[t.group].insert(t.pid);
  }

  // Leaves the runqueue: blocking (slept) or exiting (the end of a CPU-bound task's run).
  void leave(TaskService& t, bool blocks) {
    LiveTask& lt = live_[t.pid];
    if (lt.cpu >= 0) cpus_[static_cast<size_t>(lt.cpu)].runnable[t.group].erase(t.pid);
    lt.cpu = -1;
    lt.wait_since = -1;
    lt.slept = lt.slept || blocks;
    lt.sleeper = lt.sleeper || blocks;
    lt.seen_sleeping = true;
  }

  void step(const KernelEvent& e) {
    if (e.cpu < 0 || e.cpu >= r_.ncpus) return;
    CpuState& cpu = cpus_[static_cast<size_t>(e.cpu)];
    if (e.time_ns < cpu.last_t) {
      problem(e, e.cpu,
              "clock went backwards on this CPU: its state is dropped until the next "
              "switch and the fluid sums of its tasks restart");
      cpu.known = false;
      exclude_cpu(e.cpu, {cpu.current});
      return;
    }
    cpu.last_t = e.time_ns;
    switch (e.kind) {
      case KernelEventKind::Switch:
        on_switch(e, cpu);
        break;
      case KernelEventKind::Wakeup:
      case KernelEventKind::WakeupNew:
        on_wakeup(e);
        break;
      case KernelEventKind::Migrate:
        on_migrate(e);
        break;
      case KernelEventKind::Exit:
        if (TaskService* t = task(e.pid, e.comm, e.prio)) {
          const int c = live_[t->pid].cpu;
          if (c >= 0) advance(c, e.time_ns);
          leave(*t, false);
        }
        break;
      case KernelEventKind::Waking:
      case KernelEventKind::Fork:
      case KernelEventKind::StatRuntime:
        break;
    }
  }

  // A fault on this CPU: the fluid sums of whoever was runnable here (and of the named tasks)
  // cover a window the trace does not show, so they restart now; that window is excluded.
  void exclude_cpu(int c, std::initializer_list<int64_t> named) {
    std::set<int64_t> pids(named);
    for (const auto& [group, runnable] : cpus_[static_cast<size_t>(c)].runnable)
      pids.insert(runnable.begin(), runnable.end());
    for (int64_t pid : pids) {
      const auto it = r_.tasks.find(pid);
      if (it == r_.tasks.end()) continue;
      TaskService& t = it->second;
      t.ideal_ns = t.counted_ns = t.min_lag_ns = t.max_lag_ns = 0;
      LiveTask& lt = live_[pid];
      lt.base_ideal = lt.base_counted = 0;
      lt.wait_since = -1;  // it may have run unseen: its current wait is unknown
      ++r_.restarted_windows;
    }
  }

  void on_switch(const KernelEvent& e, CpuState& cpu) {
    if (cpu.known && cpu.current != e.prev_pid) {
      problem(e, e.cpu,
              "switch away from pid " + std::to_string(e.prev_pid) + " but pid " +
                  std::to_string(cpu.current) +
                  " was running (events lost): the fluid sums of this CPU's tasks "
                  "restart here");
      cpu.accounted_to = e.time_ns;  // the window since the last good event is not accounted
      exclude_cpu(e.cpu, {e.prev_pid, cpu.current});
    }
    advance(e.cpu, e.time_ns);
    if (TaskService* prev = task(e.prev_pid, e.prev_comm, e.prev_prio)) {
      LiveTask& lt = live_[prev->pid];
      const char st = e.prev_state.empty() ? 'R' : e.prev_state[0];
      if (st == 'R') {
        if (lt.cpu != e.cpu) make_runnable(*prev, e.cpu, e.time_ns);  // preempted: waits again
        lt.wait_since = e.time_ns;
      } else {
        leave(*prev, st != 'Z' && st != 'X');  // zombie / dead: it exited, it did not block
      }
    }
    if (TaskService* next = task(e.pid, e.comm, e.prio)) {
      LiveTask& lt = live_[next->pid];
      if (lt.cpu != e.cpu) {
        if (lt.seen_sleeping && cpu.known)
          problem(e, e.cpu,
                  "pid " + std::to_string(next->pid) +
                      " runs without the wakeup that "
                      "should precede it (events lost, or recorded on an untraced CPU)");
        make_runnable(*next, e.cpu, e.time_ns);
        lt.wait_since = -1;  // its wait is unknown
      }
      if (lt.wait_since >= 0) {
        const int64_t d = e.time_ns - lt.wait_since;
        if (next->delays_ns.empty() ||
            d > *std::max_element(next->delays_ns.begin(), next->delays_ns.end()))
          next->max_delay_at_ns = lt.wait_since;
        next->delays_ns.push_back(d);
        if (lt.woken) next->wakeup_delays_ns.push_back(d);
      }
      lt.woken = false;
      lt.wait_since = -1;
      ++next->switches;
    }
    cpu.known = true;
    cpu.current = e.pid;
  }

  void on_wakeup(const KernelEvent& e) {
    TaskService* t = task(e.pid, e.comm, e.prio);
    if (!t) return;
    const int c = e.target_cpu.value_or(e.cpu);
    if (c < 0 || c >= r_.ncpus) return;
    if (live_[t->pid].cpu >= 0) return;  // already runnable
    if (e.kind == KernelEventKind::Wakeup) live_[t->pid].sleeper = true;
    advance(c, e.time_ns);
    make_runnable(*t, c, e.time_ns);
    live_[t->pid].woken = true;
  }

  void on_migrate(const KernelEvent& e) {
    TaskService* t = task(e.pid, e.comm, e.prio);
    if (!t || !e.orig_cpu || !e.dest_cpu) return;
    LiveTask& lt = live_[t->pid];
    if (lt.cpu < 0 || *e.dest_cpu >= r_.ncpus) return;  // sleeping tasks move with their wakeup
    advance(lt.cpu, e.time_ns);
    advance(*e.dest_cpu, e.time_ns);
    cpus_[static_cast<size_t>(lt.cpu)].runnable[t->group].erase(t->pid);
    cpus_[static_cast<size_t>(*e.dest_cpu)].runnable[t->group].insert(t->pid);
    lt.cpu = *e.dest_cpu;
  }

  void verdict(const std::string& id, bool held, const TaskService& t, const std::string& msg) {
    auto& c = r_.counts[id];
    ++c.checked;
    if (held) return;
    ++c.violated;
    r_.findings.push_back({id, 0, t.comm + ":" + std::to_string(t.pid), msg, true});
  }

  // SPEC.md §6.2: THM-SHARE and the lower half of THM-LAG-BOUND-LINUX for CPU-bound tasks that
  // shared their group only with CPU-bound tasks (a static set); STARVATION for every fair task.
  void verdicts() {
    for (auto& [pid, t] : r_.tasks) {
      const LiveTask& lt = live_[pid];
      const int64_t r = t.slice_ns, tick = r_.tick_ns;
      if (!lt.sleeper && !lt.with_sleeper && t.counted_ns > 0) {
        const double bound = static_cast<double>(2 * std::max(r, tick) + tick);
        const double err = t.counted_ns - t.ideal_ns;
        verdict("THM-SHARE", std::abs(err) <= bound, t,
                "received " + std::to_string(err / 1e6) + " ms away from its fluid share (bound " +
                    std::to_string(bound / 1e6) + " ms)");
        verdict("THM-LAG-BOUND-LINUX", t.min_lag_ns >= -static_cast<double>(r + tick), t,
                "lag fell to " + std::to_string(t.min_lag_ns / 1e6) + " ms < -(r + TICK)");
      }
      verdict("STARVATION", t.longest_wait_ns <= r_.options.starvation_ns, t,
              "runnable but waiting for " +
                  std::to_string(static_cast<double>(t.longest_wait_ns) / 1e6) + " ms");
    }
  }

  KernelReport r_;
  std::vector<CpuState> cpus_;
  std::map<int64_t, LiveTask> live_;
};

}  // namespace

bool KernelReport::ok() const { return findings.empty(); }

KernelReport check_kernel_trace(const std::vector<trace::KernelEvent>& events,
                                const std::string& file, const KernelCheckOptions& options) {
  return Analysis(file, options).run(events);
}

void learn_from_snapshot(const trace::SchedDebugSnapshot& snap, KernelCheckOptions& options) {
  for (const auto& cpu : snap.cpus)
    for (const auto& t : cpu.tasks) {
      options.group_of[t.pid] = t.group_path;
      if (t.custom_slice && t.slice_ns) options.slice_of[t.pid] = *t.slice_ns;
    }
  if (snap.base_slice_ns && options.base_slice_ns == 0) options.base_slice_ns = *snap.base_slice_ns;
  options.group_source = "sched debug snapshot " + snap.file;
}

}  // namespace vlag::checker
