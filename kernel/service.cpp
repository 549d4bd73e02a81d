#include "kernel/service.h"

#include <algorithm>
#include <cmath>

#include "spec/features.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::kernel {
namespace {

bool fair_prio(int prio) { return prio >= 100 && prio <= 139; }

// The fluid clock of one task group on one CPU (SPEC.md §3 applied per group): v grows by
// dt/W while a task of the group runs, so a runnable task of weight w is owed w·Δv.
struct GroupClock {
  double v = 0;
  int64_t W = 0;
  int sleepers = 0;  // runnable members that are not CPU-bound
  double mixed = 0;  // time accounted while some member was a sleeper (monotone)
};

struct CpuState {
  bool known = false;  // who runs here is known (after its first switch, until a fault)
  int64_t current = 0;
  int64_t last_t = INT64_MIN;
  int64_t accounted_to = 0;
  std::map<std::string, GroupClock> groups;
};

struct LiveTask {
  int cpu = -1;           // runnable on this CPU (-1: not runnable)
  double v_join = 0;      // the group clock when its owed service was last folded in
  double mixed_join = 0;  // the group's mixed time then
  double base_ideal = 0;  // owed and received service when its runnable interval began
  double base_counted = 0;
  int64_t wait_since = -1;    // runnable and waiting since
  bool woken = false;         // that wait started with a wakeup, not a preemption
  bool sleeper = false;       // blocked or was woken in the window: not CPU-bound
  bool with_sleeper = false;  // shared its group's CPU time with a sleeper
  bool seen_sleeping = false;
};

}  // namespace

class KernelServiceLayer::Impl {
 public:
  Impl(std::string file, const KernelCheckOptions& o) {
    r_.file = std::move(file);
    r_.options = o;
    r_.tick_ns = make_params(preset_by_name("linux-6.18"), o.hz).tick_ns();
  }

  void on_event(const KernelEvent& e) {
    if (e.cpu < 0) return;
    if (r_.first_ns == 0) r_.first_ns = e.time_ns;
    r_.last_ns = std::max(r_.last_ns, e.time_ns);
    CpuState& cpu = cpu_state(e.cpu);
    if (e.time_ns < cpu.last_t) {
      problem(e, e.cpu,
              "clock went backwards on this CPU: its state is dropped until the next "
              "switch and the fluid sums of its tasks restart");
      restart_cpu(e.cpu, {cpu.current});
      cpu.known = false;
      return;
    }
    cpu.last_t = e.time_ns;
    switch (e.kind) {
      case KernelEventKind::Switch:
        on_switch(e);
        break;
      case KernelEventKind::Wakeup:
      case KernelEventKind::WakeupNew:
        on_wakeup(e);
        break;
      case KernelEventKind::Migrate:
        on_migrate(e);
        break;
      case KernelEventKind::Exit:
        if (TaskService* t = task(e.pid, e.comm, e.prio)) leave(*t, e.time_ns, false);
        break;
      case KernelEventKind::Waking:
      case KernelEventKind::Fork:
      case KernelEventKind::StatRuntime:
        break;
    }
  }

  KernelReport finish() {
    for (size_t c = 0; c < cpus_.size(); ++c) advance(static_cast<int>(c), r_.last_ns);
    for (auto& [pid, t] : r_.tasks) {
      LiveTask& lt = live_[pid];
      if (lt.cpu >= 0) settle(t, lt, r_.last_ns);
    }
    r_.ncpus = static_cast<int>(cpus_.size());
    r_.slice_ns = r_.options.base_slice_ns != 0
                      ? r_.options.base_slice_ns
                      : make_params(preset_by_name("linux-6.18"), r_.options.hz,
                                    std::clamp(r_.ncpus, 1, 8))  // the factor stops at 8
                            .base_slice_ns();
    for (auto& [pid, t] : r_.tasks)
      if (t.slice_ns == 0) t.slice_ns = r_.slice_ns;
    verdicts();
    return std::move(r_);
  }

 private:
  CpuState& cpu_state(int c) {
    if (static_cast<size_t>(c) >= cpus_.size()) cpus_.resize(static_cast<size_t>(c) + 1);
    return cpus_[static_cast<size_t>(c)];
  }

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
      t.weight = nice_to_weight(*prio - 120);
      const auto g = r_.options.group_of.find(pid);
      if (g != r_.options.group_of.end()) t.group = g->second;
      const auto s = r_.options.slice_of.find(pid);
      if (s != r_.options.slice_of.end()) t.slice_ns = s->second;
      it = r_.tasks.emplace(pid, t).first;
    }
    TaskService& t = it->second;
    if (!comm.empty()) t.comm = comm;
    if (prio && fair_prio(*prio) && *prio != t.prio) reweight(t, *prio);
    return &t;
  }

  GroupClock& clock_of(const TaskService& t, const LiveTask& lt) {
    return cpus_[static_cast<size_t>(lt.cpu)].groups[t.group];
  }

  // Folds what the group clock owes t into its sums and takes its lag extremes: a waiting
  // task's lag only grows and a running task's only shrinks, so the extremes fall on the
  // instants at which this is called (its switches, migrations, leaving, the end).
  void settle(TaskService& t, LiveTask& lt, int64_t now) {
    GroupClock& g = clock_of(t, lt);
    t.ideal_ns += static_cast<double>(t.weight) * (g.v - lt.v_join);
    lt.v_join = g.v;
    if (g.mixed != lt.mixed_join) lt.with_sleeper = true;
    lt.mixed_join = g.mixed;
    const double lag = (t.ideal_ns - lt.base_ideal) - (t.counted_ns - lt.base_counted);
    t.min_lag_ns = std::min(t.min_lag_ns, lag);
    t.max_lag_ns = std::max(t.max_lag_ns, lag);
    if (lt.wait_since >= 0) t.longest_wait_ns = std::max(t.longest_wait_ns, now - lt.wait_since);
  }

  void reweight(TaskService& t, int prio) {
    LiveTask& lt = live_[t.pid];
    const int64_t w = nice_to_weight(prio - 120);
    if (lt.cpu >= 0) {
      settle(t, lt, cpus_[static_cast<size_t>(lt.cpu)].accounted_to);
      clock_of(t, lt).W += w - t.weight;
    }
    t.prio = prio;
    t.weight = w;
  }

  // Accounts [accounted_to, t) on one CPU to the running task and its group's clock.
  void advance(int c, int64_t t) {
    CpuState& cpu = cpu_state(c);
    const int64_t dt = t - cpu.accounted_to;
    cpu.accounted_to = std::max(cpu.accounted_to, t);
    if (!cpu.known || dt <= 0 || cpu.current == 0) return;
    if (r_.options.only_cpu && *r_.options.only_cpu != c) return;
    const auto run = r_.tasks.find(cpu.current);
    if (run == r_.tasks.end()) return;
    TaskService& ts = run->second;
    ts.runtime_ns += dt;
    if (live_[ts.pid].cpu != c) return;  // running without a known runnable interval
    GroupClock& g = cpu.groups[ts.group];
    g.v += static_cast<double>(dt) / static_cast<double>(g.W);
    if (g.sleepers > 0) g.mixed += static_cast<double>(dt);
    ts.counted_ns += static_cast<double>(dt);
  }

  void join(TaskService& t, int c, int64_t now) {
    LiveTask& lt = live_[t.pid];
    if (lt.cpu >= 0) leave(t, now, false, /*keep_interval=*/true);
    advance(c, now);
    lt.cpu = c;
    GroupClock& g = clock_of(t, lt);
    g.W += t.weight;
    if (lt.sleeper) ++g.sleepers;
    lt.v_join = g.v;
    lt.mixed_join = g.mixed;
    lt.wait_since = now;
    lt.woken = false;
  }

  // Leaves the runqueue: blocking, exiting, or (keep_interval) moving to another CPU.
  void leave(TaskService& t, int64_t now, bool blocks, bool keep_interval = false) {
    LiveTask& lt = live_[t.pid];
    if (lt.cpu >= 0) {
      advance(lt.cpu, now);
      settle(t, lt, now);
      GroupClock& g = clock_of(t, lt);
      g.W -= t.weight;
      if (lt.sleeper) --g.sleepers;
    }
    lt.cpu = -1;
    if (keep_interval) return;
    lt.wait_since = -1;
    lt.sleeper = lt.sleeper || blocks;
    lt.seen_sleeping = true;
  }

  void begin_interval(TaskService& t) {
    LiveTask& lt = live_[t.pid];
    lt.base_ideal = t.ideal_ns;
    lt.base_counted = t.counted_ns;
  }

  // A fault on this CPU: the sums of whoever was runnable here (and of the named tasks) cover a
  // window the trace does not show, so they restart now; that window is excluded.
  void restart_cpu(int c, std::initializer_list<int64_t> named) {
    for (auto& [pid, t] : r_.tasks) {
      LiveTask& lt = live_[pid];
      const bool named_here = std::find(named.begin(), named.end(), pid) != named.end();
      if (lt.cpu != c && !named_here) continue;
      if (lt.cpu >= 0) {
        lt.v_join = clock_of(t, lt).v;
        lt.mixed_join = clock_of(t, lt).mixed;
      }
      t.ideal_ns = t.counted_ns = t.min_lag_ns = t.max_lag_ns = 0;
      lt.base_ideal = lt.base_counted = 0;
      lt.wait_since = -1;  // it may have run unseen: its current wait is unknown
      ++r_.restarted_windows;
    }
  }

  void on_switch(const KernelEvent& e) {
    CpuState& cpu = cpu_state(e.cpu);
    if (cpu.known && cpu.current != e.prev_pid) {
      problem(e, e.cpu,
              "switch away from pid " + std::to_string(e.prev_pid) + " but pid " +
                  std::to_string(cpu.current) +
                  " was running (events lost): the fluid sums of this CPU's tasks "
                  "restart here");
      cpu.accounted_to = e.time_ns;  // the window since the last good event is not accounted
      restart_cpu(e.cpu, {e.prev_pid, cpu.current});
    }
    advance(e.cpu, e.time_ns);
    if (TaskService* prev = task(e.prev_pid, e.prev_comm, e.prev_prio)) {
      LiveTask& lt = live_[prev->pid];
      const char st = e.prev_state.empty() ? 'R' : e.prev_state[0];
      if (st == 'R') {  // preempted: runnable, waiting again
        if (lt.cpu != e.cpu) {
          join(*prev, e.cpu, e.time_ns);
          begin_interval(*prev);
        }
        settle(*prev, lt, e.time_ns);
        lt.wait_since = e.time_ns;
        lt.woken = false;
      } else {
        leave(*prev, e.time_ns, st != 'Z' && st != 'X');  // zombie / dead: exited, not blocked
      }
    }
    if (TaskService* next = task(e.pid, e.comm, e.prio)) {
      LiveTask& lt = live_[next->pid];
      if (lt.cpu != e.cpu) {
        if (lt.seen_sleeping && lt.cpu < 0 && cpu.known)
          problem(e, e.cpu,
                  "pid " + std::to_string(next->pid) +
                      " runs without the wakeup that "
                      "should precede it (events lost, or recorded on an untraced CPU)");
        const bool fresh = lt.cpu < 0;
        join(*next, e.cpu, e.time_ns);
        if (fresh) begin_interval(*next);
        lt.wait_since = -1;  // its wait is unknown
      }
      settle(*next, lt, e.time_ns);
      if (lt.wait_since >= 0) {
        const int64_t d = e.time_ns - lt.wait_since;
        if (d > next->max_delay_ns) {
          next->max_delay_ns = d;
          next->max_delay_at_ns = lt.wait_since;
        }
        next->delays_ns.push_back(d);
        if (lt.woken) next->wakeup_delays_ns.push_back(d);
      }
      lt.wait_since = -1;
      lt.woken = false;
      ++next->switches;
    }
    cpu.known = true;
    cpu.current = e.pid;
  }

  void on_wakeup(const KernelEvent& e) {
    TaskService* t = task(e.pid, e.comm, e.prio);
    if (!t) return;
    const int c = e.target_cpu.value_or(e.cpu);
    if (c < 0) return;
    cpu_state(c);
    LiveTask& lt = live_[t->pid];
    if (lt.cpu >= 0) return;  // already runnable
    if (e.kind == KernelEventKind::Wakeup) lt.sleeper = true;
    join(*t, c, e.time_ns);
    begin_interval(*t);
    lt.woken = true;
  }

  void on_migrate(const KernelEvent& e) {
    TaskService* t = task(e.pid, e.comm, e.prio);
    if (!t || !e.dest_cpu || *e.dest_cpu < 0) return;
    LiveTask& lt = live_[t->pid];
    if (lt.cpu < 0) return;  // a sleeping task moves with its next wakeup
    cpu_state(*e.dest_cpu);
    const int64_t waiting = lt.wait_since;
    const bool woken = lt.woken;
    join(*t, *e.dest_cpu, e.time_ns);
    lt.wait_since = waiting;  // still the same wait
    lt.woken = woken;
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
        verdict(ids::kThmShare, std::abs(err) <= bound, t,
                "received " + std::to_string(err / 1e6) + " ms away from its fluid share (bound " +
                    std::to_string(bound / 1e6) + " ms)");
        verdict(ids::kThmLagBoundLinux, t.min_lag_ns >= -static_cast<double>(r + tick), t,
                "lag fell to " + std::to_string(t.min_lag_ns / 1e6) + " ms < -(r + TICK)");
      }
      verdict(ids::kInvNoStarvation, t.longest_wait_ns <= r_.options.starvation_ns, t,
              "runnable but waiting for " +
                  std::to_string(static_cast<double>(t.longest_wait_ns) / 1e6) + " ms");
    }
  }

  KernelReport r_;
  std::vector<CpuState> cpus_;
  std::map<int64_t, LiveTask> live_;
};

KernelServiceLayer::KernelServiceLayer(std::string file, const KernelCheckOptions& options)
    : impl_(std::make_unique<Impl>(std::move(file), options)) {}
KernelServiceLayer::~KernelServiceLayer() = default;
void KernelServiceLayer::on_event(const KernelEvent& e) { impl_->on_event(e); }
KernelReport KernelServiceLayer::finish() { return impl_->finish(); }

bool KernelReport::ok() const { return findings.empty(); }

KernelReport check_kernel_trace(const std::vector<KernelEvent>& events, const std::string& file,
                                const KernelCheckOptions& options) {
  KernelServiceLayer layer(file, options);
  for (const auto& e : events) layer.on_event(e);
  return layer.finish();
}

}  // namespace vlag::kernel
