#include "replay/extract.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>

#include "kernel/capture_reader.h"
#include "kernel/check_options.h"
#include "spec/error.h"

namespace vlag::replay {
namespace {

namespace fs = std::filesystem;
using kernel::KernelEvent;
using kernel::KernelEventKind;

// ---- the capture's files ------------------------------------------------------------------------

std::vector<std::string> snapshots_named(const std::string& prefix) {
  std::vector<std::string> out;
  for (int n = 1; n <= 16; ++n)
    if (const std::string f = prefix + std::to_string(n) + ".txt"; fs::exists(f)) out.push_back(f);
  return out;
}

// ---- what the pass over the events records ------------------------------------------------------

// A task that ran on the waking CPU (or, for a wakeup in an idle CPU's interrupt, on another
// CPU) when a wakeup came, and how far it was into its burst then.
struct WakerCandidate {
  int64_t pid = 0;
  size_t burst = 0;
  int64_t cpu_off = 0;
  int64_t wall_off = 0;
  bool same_cpu = false;
};

struct Renice {
  int64_t cpu_off = 0;
  int64_t wall_off = 0;
  int nice = 0;
};

struct BurstRec {
  int64_t begin_t = 0;     // its wakeup (or the task's first sight)
  int64_t first_run = -1;  // its first switch in
  int64_t last_run = -1;   // its last switch in
  int64_t end_t = -1;      // its sleep or exit; -1: still open at the capture's end
  int64_t cpu = 0;
  bool preempted = false;  // switched out runnable at least once
  bool exits = false;
  std::vector<Renice> renices;
  // The sleep after it: the wakeup that ended it (-1: none recorded) and who may have caused it.
  int64_t wake_t = -1;
  std::vector<WakerCandidate> wakers;
};

struct Rec {
  int64_t pid = 0;
  std::string comm;
  int prio = 120;  // at its start: the first prio an event gives
  bool prio_known = false;
  int cur_prio = 120;  // last seen
  bool rt = false;
  enum class State : uint8_t { Unseen, Running, Runnable, Sleeping, Dead } state = State::Unseen;
  int cpu = -1;         // kernel CPU it runs on (Running), or is queued or last ran on
  int start_cpu = -1;   // kernel CPU of its first sight
  bool forked = false;  // first seen in its sched_wakeup_new
  int64_t since = 0;    // Running: its switch in
  int64_t pending_wake = -1;
  bool exiting = false;
  std::vector<BurstRec> bursts;
  KernelTaskFigures fig;
};

bool is_rt(int prio) { return prio < 100; }

// A wall-clock task that exits within this long of being switched in had noticed at once that
// its time was up: its end came while it waited (the exit itself takes ~150 us of CPU here).
constexpr int64_t kNoticeNs = 1'000'000;
constexpr int64_t kCommonEndNs = 5'000'000;

int nice_of(int prio) { return std::clamp(prio - 120, -20, 19); }

// Kernel threads and the recorder: never a workload's unless named by --pids.
bool system_task(const std::string& comm) {
  for (const char* p :
       {"swapper", "kworker", "ksoftirqd", "rcu_", "migration", "kthreadd", "watchdog", "cpuhp",
        "idle_inject", "irq/", "perf", "kcompactd", "khugepaged", "jbd2", "kswapd", "oom_reaper",
        "systemd", "sshd", "process_a"})
    if (comm.rfind(p, 0) == 0) return true;
  return false;
}

// The workload's pids from its output: "started PID:", "pid=PID", "NAME PID:".
std::set<int64_t> pids_from_output(const std::string& file) {
  std::set<int64_t> out;
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  static const std::regex started(R"(^started (\d+):)");
  static const std::regex pid_eq(R"(\bpid=(\d+)\b)");
  static const std::regex name_pid(R"(^[A-Za-z_][\w-]* (\d+):)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, started) || std::regex_search(line, m, pid_eq) ||
        std::regex_search(line, m, name_pid))
      out.insert(std::stoll(m[1]));
  }
  return out;
}

// The median of v (v not empty), and whether v clusters around it: at least 3 values, and the
// median absolute deviation within 5 % of the median.
bool regular(std::vector<int64_t> v) {
  if (v.size() < 3) return false;
  std::sort(v.begin(), v.end());
  const int64_t med = v[v.size() / 2];
  if (med <= 0) return false;
  std::vector<int64_t> dev;
  for (const int64_t x : v) dev.push_back(std::abs(x - med));
  std::sort(dev.begin(), dev.end());
  return static_cast<double>(dev[dev.size() / 2]) < 0.05 * static_cast<double>(med);
}

int64_t median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class Pass {
 public:
  Pass(std::set<int64_t> workload, bool track_forks, std::set<int> cpus)
      : workload_(std::move(workload)), track_forks_(track_forks), cpus_(std::move(cpus)) {}

  // switched_in: when the line's task was switched in, as its own sched_stat_runtime tells
  // (switch_in_hints), or -1.
  void on_event(const KernelEvent& e, int64_t switched_in) {
    if (first_t_ < 0) first_t_ = e.time_ns;
    last_t_ = std::max(last_t_, e.time_ns);
    if (e.current_pid) runs_on(e.cpu, *e.current_pid, e.time_ns, switched_in);
    cpu_event_[e.cpu] = e.time_ns;
    switch (e.kind) {
      case KernelEventKind::Switch:
        on_switch(e);
        break;
      case KernelEventKind::Wakeup:
      case KernelEventKind::WakeupNew:
        on_wakeup(e);
        break;
      case KernelEventKind::Exit:
        if (Rec* r = find(e.pid)) r->exiting = true;
        break;
      case KernelEventKind::Migrate:
        on_migrate(e);
        break;
      case KernelEventKind::Fork:
        if (track_forks_ && workload_.contains(e.pid)) workload_.insert(e.child_pid);
        break;
      case KernelEventKind::StatRuntime:
        stat_times_.emplace_back(e.time_ns, e.runtime_ns.value_or(0));
        break;
      default:
        break;
    }
  }

  // The capture's end: open runs are counted to the last event.
  void finish() {
    for (auto& [pid, r] : recs_)
      if (r.state == Rec::State::Running) charge(r, last_t_);
  }

  std::map<int64_t, Rec>& recs() { return recs_; }
  const std::set<int64_t>& workload() const { return workload_; }
  const std::set<int>& cpus() const { return cpus_; }
  int64_t first_t() const { return first_t_; }
  int64_t last_t() const { return last_t_; }
  int64_t rt_ns() const { return rt_ns_; }
  const std::vector<std::pair<int64_t, int64_t>>& stat_times() const { return stat_times_; }
  const std::vector<int64_t>& preempt_times() const { return preempt_times_; }
  const std::map<int, std::vector<KernelSwitch>>& switches() const { return switches_; }

 private:
  Rec* find(int64_t pid) {
    const auto it = recs_.find(pid);
    return it == recs_.end() ? nullptr : &it->second;
  }

  Rec& rec(int64_t pid, const std::string& comm, std::optional<int> prio) {
    Rec& r = recs_[pid];
    r.pid = pid;
    if (!comm.empty()) r.comm = comm;
    if (prio && !r.prio_known) {
      r.prio = r.cur_prio = *prio;
      r.prio_known = true;
    }
    if (prio) r.rt = is_rt(*prio);
    return r;
  }

  void charge(Rec& r, int64_t t) {
    const int64_t d = t - r.since;
    if (r.rt) {
      rt_ns_ += d;
    } else {
      r.fig.runtime_ns += d;
      r.fig.runtime_on_cpu_ns[r.cpu] += d;
      if (!r.bursts.empty()) r.bursts.back().cpu += d;
    }
    r.since = t;
  }

  void begin_burst(Rec& r, int64_t t, int cpu) {
    if (r.start_cpu < 0) r.start_cpu = cpu;
    BurstRec b;
    b.begin_t = t;
    r.bursts.push_back(b);
  }

  // A prio that changed since last seen: a renice, at the start of the task's current run.
  void check_prio(Rec& r, std::optional<int> prio, int64_t run_start) {
    if (!prio || *prio == r.cur_prio || r.rt || is_rt(*prio) || r.bursts.empty()) return;
    BurstRec& b = r.bursts.back();
    const int64_t cpu_before =
        r.state == Rec::State::Running ? b.cpu - (r.since - run_start) : b.cpu;
    b.renices.push_back({std::max<int64_t>(0, cpu_before),
                         b.first_run < 0 ? 0 : std::max<int64_t>(0, run_start - b.first_run),
                         nice_of(*prio)});
    r.cur_prio = *prio;
  }

  void record_switch(int cpu, int64_t next, const std::string& state, int64_t t) {
    int64_t& shown = fair_current_[cpu];
    if (next == shown) return;
    switches_[cpu].push_back({t, shown, next, state});
    shown = next;
  }

  // Every event names the task that ran on its CPU when it was recorded. The sched_switch out
  // of idle is not always recorded (on the development machine's kernel, mostly not), nor is
  // any event in the context of a task the recorder does not see (there: a daemon's
  // tokio-rt-worker threads, switched in but never out): a task seen running at t on a CPU
  // believed to run another (or idle) was switched in there unseen, at `switched_in` when its
  // own sched_stat_runtime says so (not before the CPU's last event), else at t, and the one
  // before left then. Seen on a CPU not seen before, it was running when the capture began.
  void runs_on(int c, int64_t pid, int64_t t, int64_t switched_in) {
    const auto cur = current_.find(c);
    const bool first_sight = cur == current_.end();
    if (!first_sight && cur->second == pid) return;
    if (switched_in >= 0) {
      const auto last = cpu_event_.find(c);
      t = std::max(switched_in, last == cpu_event_.end() ? first_t_ : last->second);
    }
    if (!first_sight && cur->second != 0) left_unseen(c, cur->second, t);
    current_[c] = pid;
    if (pid == 0) {
      record_switch(c, 0, "?", t);
      return;
    }
    Rec& r = recs_[pid];
    r.pid = pid;
    t = std::max(t, r.pending_wake);
    switch_in(c, r, t, std::nullopt, first_sight);
    if (!r.rt) record_switch(c, pid, "?", t);
  }

  // The task running on CPU c left it at t without a recorded switch: what it did then is not
  // known, so it is taken to sleep (a switch in without a wakeup later is a wakeup then).
  void left_unseen(int c, int64_t pid, int64_t t) {
    Rec* r = find(pid);
    if (!r || r->state != Rec::State::Running || r->cpu != c) return;
    charge(*r, std::max(t, r->since));
    if (r->rt) {
      r->state = Rec::State::Runnable;
      return;
    }
    r->bursts.back().end_t = r->since;
    r->state = Rec::State::Sleeping;
  }

  // since_start: it was running when the capture began (no switch, no wakeup to count).
  void switch_in(int c, Rec& n, int64_t t, std::optional<int> prio, bool since_start = false) {
    if (n.rt) {
      n.state = Rec::State::Running;
      n.cpu = c;
      n.since = t;
      return;
    }
    if (n.state == Rec::State::Unseen) {
      begin_burst(n, t, c);
    } else if (n.state == Rec::State::Sleeping) {
      // Switched in without a recorded wakeup (it came on a CPU not recorded): a wakeup now.
      n.bursts.back().wake_t = t;
      begin_burst(n, t, c);
    } else if (n.state == Rec::State::Dead || n.state == Rec::State::Running) {
      return;
    }
    check_prio(n, prio, t);
    n.state = Rec::State::Running;
    n.cpu = c;
    n.since = t;
    if (!since_start) {
      ++n.fig.switches;
      if (n.pending_wake >= 0) n.fig.wake_to_run_ns.push_back(t - n.pending_wake);
    }
    n.pending_wake = -1;
    if (n.bursts.back().first_run < 0) n.bursts.back().first_run = t;
    n.bursts.back().last_run = t;
  }

  void on_switch(const KernelEvent& e) {
    const int c = e.cpu;
    const int64_t t = e.time_ns;
    runs_on(c, e.prev_pid, t, -1);  // prev ran there, when the line does not say who did
    if (e.prev_pid != 0) {
      Rec& p = rec(e.prev_pid, e.prev_comm, e.prev_prio);
      if (p.state == Rec::State::Running && p.cpu == c) {
        const int64_t run_start = p.since;
        charge(p, t);
        check_prio(p, e.prev_prio, run_start);
      }
      if (!p.rt && !p.bursts.empty()) {
        BurstRec& b = p.bursts.back();
        if (!e.prev_state.empty() && e.prev_state[0] == 'R') {
          b.preempted = true;
          p.state = Rec::State::Runnable;
          preempt_times_.push_back(t);
        } else {
          const bool dead = p.exiting || e.prev_state.find_first_of("XZ") != std::string::npos;
          b.end_t = t;
          b.exits = dead;
          p.state = dead ? Rec::State::Dead : Rec::State::Sleeping;
        }
      } else if (p.rt) {
        p.state = Rec::State::Runnable;
      }
    }
    current_[c] = e.pid;
    if (!(e.prio && is_rt(*e.prio))) record_switch(c, e.pid, e.prev_state, t);
    if (e.pid == 0) return;
    switch_in(c, rec(e.pid, e.comm, e.prio), t, e.prio);
  }

  WakerCandidate candidate(int64_t pid, int64_t t, bool same_cpu) {
    WakerCandidate w;
    w.pid = pid;
    w.same_cpu = same_cpu;
    const Rec* r = find(pid);
    if (!r || r->bursts.empty()) return w;
    const BurstRec& b = r->bursts.back();
    w.burst = r->bursts.size() - 1;
    w.cpu_off = b.cpu + (r->state == Rec::State::Running ? t - r->since : 0);
    w.wall_off = b.first_run < 0 ? 0 : t - b.first_run;
    return w;
  }

  // A queued task moved to a CPU not recorded has gone to sleep as far as the capture shows.
  void on_migrate(const KernelEvent& e) {
    Rec* r = find(e.pid);
    if (r && e.dest_cpu && r->state != Rec::State::Running) r->cpu = *e.dest_cpu;
    if (!r || r->rt || r->state != Rec::State::Runnable || !e.dest_cpu ||
        cpus_.contains(*e.dest_cpu))
      return;
    r->bursts.back().end_t = e.time_ns;
    r->state = Rec::State::Sleeping;
    r->pending_wake = -1;
  }

  void on_wakeup(const KernelEvent& e) {
    if (e.prio && is_rt(*e.prio)) return;
    const int target = e.target_cpu.value_or(e.cpu);
    if (Rec* r = find(e.pid); r && r->state != Rec::State::Running) r->cpu = target;  // queued
    if (!cpus_.contains(target)) return;  // it runs where the capture does not look
    Rec& r = rec(e.pid, e.comm, e.prio);
    if (r.rt) return;
    const int64_t t = e.time_ns;
    if (r.state == Rec::State::Unseen) {
      r.cpu = target;
      begin_burst(r, t, target);
      r.forked = e.kind == KernelEventKind::WakeupNew;
    } else if (r.state == Rec::State::Sleeping) {
      BurstRec& b = r.bursts.back();
      b.wake_t = t;
      const auto ctx = current_.find(e.cpu);
      if (ctx != current_.end() && ctx->second != 0 && ctx->second != r.pid)
        b.wakers.push_back(candidate(ctx->second, t, true));
      for (const auto& [c, pid] : current_)
        if (c != e.cpu && pid != 0 && pid != r.pid) b.wakers.push_back(candidate(pid, t, false));
      begin_burst(r, t, target);
    } else if (r.state == Rec::State::Runnable && r.bursts.size() >= 2 &&
               r.bursts.back().first_run < 0) {
      // Woken again without having run here since its last wakeup: it ran and slept where the
      // capture does not look. The sleep before ends now instead.
      BurstRec& before = r.bursts[r.bursts.size() - 2];
      before.wake_t = t;
      before.wakers.clear();
      r.bursts.back().begin_t = t;
    } else {
      return;  // runnable already, or gone
    }
    r.state = Rec::State::Runnable;
    r.pending_wake = t;
  }

  std::set<int64_t> workload_;
  bool track_forks_;
  std::map<int64_t, Rec> recs_;
  std::map<int, int64_t> current_;       // kernel CPU → the task running there
  std::map<int, int64_t> fair_current_;  // the same, real-time tasks left out
  std::map<int, int64_t> cpu_event_;     // kernel CPU → the time of its last event
  std::map<int, std::vector<KernelSwitch>> switches_;
  std::set<int> cpus_;
  std::vector<std::pair<int64_t, int64_t>> stat_times_;  // (time, runtime charged)
  std::vector<int64_t> preempt_times_;
  int64_t first_t_ = -1;
  int64_t last_t_ = 0;
  int64_t rt_ns_ = 0;
};

// Per event, when the task it was recorded in (its context) was switched in, as that task's
// first own sched_stat_runtime on the CPU before its switch out or another task's event there
// tells (the time it has run since its switch in); -1 where none does. A sched_stat_runtime about
// another task than the line's is an update of another CPU's runqueue and tells nothing of this
// one.
std::vector<int64_t> switch_in_hints(const std::vector<KernelEvent>& events) {
  std::vector<int64_t> out(events.size(), -1);
  std::map<int, std::pair<int64_t, int64_t>> next;  // CPU → (context pid, its switch in)
  for (size_t i = events.size(); i-- > 0;) {
    const KernelEvent& e = events[i];
    if (e.kind == KernelEventKind::Switch) next.erase(e.cpu);  // what follows is another's run
    if (!e.current_pid) continue;
    auto it = next.find(e.cpu);
    if (it != next.end() && it->second.first != *e.current_pid) next.erase(it);
    if (e.kind == KernelEventKind::StatRuntime && e.runtime_ns && e.pid == *e.current_pid)
      next[e.cpu] = {e.pid, e.time_ns - *e.runtime_ns};
    if (const auto n = next.find(e.cpu); n != next.end()) out[i] = n->second.second;
  }
  return out;
}

// Where the ticks fall: the most common position, modulo the tick, of the update_curr() calls
// sched_stat_runtime reports that charged 100 us or more (every tick of a busy CPU makes one;
// the one at the switch after it charges only the few microseconds since), else of the
// preemptions. The result is the kernel time of a tick's update_curr(), to a few microseconds.
int64_t tick_phase(const std::vector<std::pair<int64_t, int64_t>>& stats,
                   const std::vector<int64_t>& preempts, int64_t tick_ns) {
  std::vector<int64_t> times;
  for (const auto& [t, ran] : stats)
    if (ran >= 100'000) times.push_back(t);
  if (times.size() < 20) times = preempts;
  if (times.empty()) return 0;
  constexpr int64_t kBin = 10'000;
  std::map<int64_t, int> bins;
  for (const int64_t t : times) ++bins[(t % tick_ns) / kBin];
  const int64_t best = std::max_element(bins.begin(), bins.end(), [](auto& a, auto& b) {
                         return a.second < b.second;
                       })->first;
  std::vector<int64_t> near;
  for (const int64_t t : times) {
    const int64_t r = t % tick_ns;
    if (std::abs(r / kBin - best) <= 1) near.push_back(r);
  }
  return median(near);
}

}  // namespace

CaptureFiles find_capture(const std::string& path) {
  CaptureFiles f;
  if (fs::is_directory(path)) {
    for (const char* form : {"perf.txt", "perf.data", "trace.dat"})  // any form of the capture
      if (f.perf.empty() && fs::exists(fs::path(path) / form))
        f.perf = (fs::path(path) / form).string();
    if (f.perf.empty())
      throw Error(path + ": no perf.txt, perf.data or trace.dat in this directory");
    f.snapshots = snapshots_named((fs::path(path) / "sched-debug.").string());
    if (const auto out = fs::path(path) / "stdout.txt"; fs::exists(out))
      f.workload_output = out.string();
    return f;
  }
  if (!fs::exists(path)) throw Error(path + ": cannot open");
  f.perf = path;
  std::string stem = fs::path(path).filename().string();
  for (const std::string suffix :
       {".perf.txt", ".perf.data", ".trace.dat", ".txt", ".data", ".dat"})
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  const fs::path dir = fs::path(path).parent_path();
  for (std::string name = stem;;) {
    const std::string base = (dir / name).string();
    if (f.snapshots.empty()) f.snapshots = snapshots_named(base + ".sched-debug.");
    if (f.workload_output.empty() && fs::exists(base + ".stdout.txt"))
      f.workload_output = base + ".stdout.txt";
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos || dash == 0) break;
    name.resize(dash);
  }
  return f;
}

Extraction extract_capture(const CaptureFiles& files, const ExtractOptions& o) {
  Extraction x;
  x.file = files.perf;
  std::set<int64_t> named(o.pids.begin(), o.pids.end());
  if (!named.empty()) {
    x.workload_source = "the --pids given";
  } else if (!files.workload_output.empty()) {
    named = pids_from_output(files.workload_output);
    x.workload_source = "the pids in " + files.workload_output + " and their children";
  }
  const bool by_comm = named.empty();
  std::vector<KernelEvent> events;
  std::set<int> recorded;
  kernel::read_perf_capture(files.perf,
                            [&](const KernelEvent& e) {
                              recorded.insert(e.cpu);
                              events.push_back(e);
                            },
                            {o.keep_going});
  Pass pass(named, !by_comm, recorded);
  const std::vector<int64_t> hints = switch_in_hints(events);
  for (size_t i = 0; i < events.size(); ++i) pass.on_event(events[i], hints[i]);
  pass.finish();
  if (pass.first_t() < 0) throw Error(files.perf + ": no sched events");

  kernel::KernelCheckOptions learned;  // the task groups
  std::map<int64_t, int64_t> custom_slice;
  for (const std::string& s : files.snapshots) {
    const kernel::SchedDebugSnapshot snap = kernel::load_snapshot(s);
    kernel::learn_from_snapshot(snap, learned);
    for (const auto& [pid, slice] : kernel::custom_slices(snap)) custom_slice[pid] = slice;
    x.kernel_cpus = std::max(x.kernel_cpus, static_cast<int>(snap.cpus.size()));
    if (snap.base_slice_ns) x.base_slice_ns = *snap.base_slice_ns;
  }

  // The workload's tasks, then the others; real-time tasks are left out.
  std::vector<Rec*> order;
  std::set<int64_t> workload;
  // A last wakeup that never got the CPU here (the capture ended, or it ran elsewhere) is no
  // burst: the sleep before it lasts to the end.
  for (auto& [pid, r] : pass.recs())
    if (!r.bursts.empty() && r.bursts.back().first_run < 0) {
      r.bursts.pop_back();
      if (!r.bursts.empty()) {
        r.bursts.back().wake_t = -1;
        r.bursts.back().wakers.clear();
      }
    }
  // Without pids, the workload is the command that used the most CPU time, kernel threads and
  // perf aside: every task of that name.
  std::string top_comm;
  if (by_comm) {
    std::map<std::string, int64_t> by_name;
    for (const auto& [pid, r] : pass.recs())
      if (!r.rt && !system_task(r.comm)) by_name[r.comm] += r.fig.runtime_ns;
    for (const auto& [comm, ns] : by_name)
      if (top_comm.empty() || ns > by_name[top_comm]) top_comm = comm;
    x.workload_source =
        "no pids known: the tasks named " + top_comm + ", the command that used the most CPU";
  }
  for (auto& [pid, r] : pass.recs()) {
    if (r.rt || r.bursts.empty()) continue;
    const bool w = by_comm ? r.comm == top_comm : pass.workload().contains(pid);
    if (w) workload.insert(pid);
  }
  if (workload.empty())
    throw Error(files.perf + ": no task of the workload ran (" + x.workload_source + ")");
  for (auto& [pid, r] : pass.recs())
    if (workload.contains(pid)) order.push_back(&r);
  for (auto& [pid, r] : pass.recs())
    if (!r.rt && !r.bursts.empty() && !workload.contains(pid)) order.push_back(&r);

  for (const int c : pass.cpus()) x.cpus.push_back(c);
  const auto model_cpu = [&](int kernel_cpu) {
    const auto it = std::find(x.cpus.begin(), x.cpus.end(), kernel_cpu);
    return it == x.cpus.end() ? 0 : static_cast<int>(it - x.cpus.begin());
  };
  const int64_t tick = (1'000'000'000 + o.hz / 2) / o.hz;
  const int64_t phase = tick_phase(pass.stat_times(), pass.preempt_times(), tick);
  x.t0 = pass.first_t() - ((pass.first_t() - phase) % tick + tick) % tick;
  x.end_ns = pass.last_t() - x.t0;
  x.rt_ns = pass.rt_ns();
  for (const auto& [c, list] : pass.switches()) {
    auto& out = x.switches[model_cpu(c)];
    for (KernelSwitch s : list) {
      s.t -= x.t0;
      out.push_back(std::move(s));
    }
  }

  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < order.size(); ++i) index[order[i]->pid] = i;

  // Per task: wall-clock or CPU work, and whether its wakeups are timers.
  std::vector<bool> wall(order.size()), timed(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const Rec& r = *order[i];
    std::vector<int64_t> whole, cut, wakes, sleeps;
    bool sleeps_ever = false;
    for (const BurstRec& b : r.bursts) {
      if (b.end_t < 0 || b.exits) continue;
      sleeps_ever = true;
      (b.preempted ? cut : whole).push_back(b.cpu);
      if (b.wake_t >= 0) {
        wakes.push_back(b.wake_t);
        sleeps.push_back(b.wake_t - b.end_t);
      }
    }
    wall[i] = !sleeps_ever ||
              (!cut.empty() && !whole.empty() &&
               static_cast<double>(median(cut)) < 0.8 * static_cast<double>(median(whole)));
    std::vector<int64_t> gaps;
    for (size_t k = 1; k < wakes.size(); ++k) gaps.push_back(wakes[k] - wakes[k - 1]);
    timed[i] = o.open_loop || !workload.contains(r.pid) || regular(gaps) || regular(sleeps);
  }

  // Wall-clock tasks that exit as soon as they run again had their time run out while they
  // waited; those that do so within kCommonEndNs of each other (hogs started with one end)
  // are taken to have reached it together, at the first of those switches in.
  const auto noticed = [](const BurstRec& b) {
    return b.exits && b.preempted && b.last_run >= 0 && b.end_t - b.last_run < kNoticeNs;
  };
  std::vector<int64_t> notice_times;
  for (size_t i = 0; i < order.size(); ++i)
    if (wall[i])
      for (const BurstRec& b : order[i]->bursts)
        if (noticed(b)) notice_times.push_back(b.last_run);
  std::sort(notice_times.begin(), notice_times.end());
  const auto common_end = [&](int64_t last_run) {
    int64_t first = last_run;
    for (auto it = std::upper_bound(notice_times.begin(), notice_times.end(), last_run);
         it != notice_times.begin();) {
      --it;
      if (first - *it > kCommonEndNs) break;
      first = *it;
    }
    return first;
  };

  x.script.tasks.resize(order.size());
  x.tasks.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const Rec& r = *order[i];
    ExtractedTask& et = x.tasks[i];
    et.pid = r.pid;
    et.comm = r.comm;
    et.nice = nice_of(r.prio);
    et.final_nice = nice_of(r.cur_prio);
    et.workload = workload.contains(r.pid);
    et.wall = wall[i];
    et.cpu = model_cpu(r.start_cpu);
    et.kernel = r.fig;
    if (const auto it = custom_slice.find(r.pid); it != custom_slice.end())
      et.slice_ns = it->second;
    if (const auto it = learned.group_of.find(r.pid); it != learned.group_of.end())
      et.group = it->second;

    sim::ScriptTask& st = x.script.tasks[i];
    st.attrs.name = r.comm + ":" + std::to_string(r.pid);
    st.attrs.nice = et.nice;
    st.attrs.slice_ns = et.slice_ns;
    st.attrs.timer_slack_ns = 0;  // the recorded wakeups are already as late as the kernel's
    st.attrs.workload = et.workload ? "workload" : "other";
    st.cpu = et.cpu;
    st.wall = et.wall;
    st.forked = r.forked;
    st.start_ns = std::max<int64_t>(0, r.bursts.front().begin_t - x.t0);
    std::vector<int64_t> whole_spans;
    for (const BurstRec& b : r.bursts)
      if (b.end_t >= 0 && !b.preempted && b.first_run >= 0)
        whole_spans.push_back(b.end_t - b.first_run);
    const int64_t typical_wall = median(whole_spans);
    for (const BurstRec& b : r.bursts) {
      sim::ScriptBurst sb;
      if (b.end_t < 0) {
        sb.ns = sim::kForever;  // it still wanted the CPU when the capture ended
      } else if (!et.wall) {
        sb.ns = b.cpu;
      } else if (b.first_run < 0) {
        sb.ns = 1;
      } else if (noticed(b)) {
        // It exited as soon as it ran again: its time was up while it waited, at the same
        // moment as the others that exited so.
        sb.ns = common_end(b.last_run) - b.first_run;
      } else {
        sb.ns = b.preempted && typical_wall > 0 && !b.exits ? typical_wall : b.end_t - b.first_run;
      }
      sb.ns = std::max<int64_t>(1, sb.ns);
      for (const Renice& rn : b.renices)
        sb.actions.push_back({sim::ScriptAction::Kind::Renice,
                              std::min(sb.ns, et.wall ? rn.wall_off : rn.cpu_off), 0, 0, rn.nice});
      if (b.end_t < 0 || b.exits || b.wake_t < 0) {
        sb.next = sim::ScriptBurst::Next::End;
      } else {
        sb.next = sim::ScriptBurst::Next::Timer;
        sb.wake_at_ns = std::max<int64_t>(0, b.wake_t - x.t0);
      }
      st.bursts.push_back(std::move(sb));
    }
    et.renices = 0;
    for (const BurstRec& b : r.bursts) et.renices += static_cast<int64_t>(b.renices.size());
  }

  // Sleeps ended by another workload task: the waker's burst gets the wakeup at the same point.
  for (size_t i = 0; i < order.size(); ++i) {
    const Rec& r = *order[i];
    for (size_t k = 0; k + 1 < r.bursts.size(); ++k) {
      sim::ScriptBurst& sb = x.script.tasks[i].bursts[k];
      if (sb.next != sim::ScriptBurst::Next::Timer) continue;
      const WakerCandidate* who = nullptr;
      if (!timed[i]) {
        const auto& ws = r.bursts[k].wakers;
        const auto in_workload = [&](const WakerCandidate& w) {
          return workload.contains(w.pid) && index.contains(w.pid);
        };
        const auto same = std::find_if(ws.begin(), ws.end(), [&](const WakerCandidate& w) {
          return w.same_cpu && in_workload(w);
        });
        if (same != ws.end()) {
          who = &*same;
        } else if (std::count_if(ws.begin(), ws.end(), in_workload) == 1) {
          who = &*std::find_if(ws.begin(), ws.end(), in_workload);
        }
      }
      if (!who) {
        ++x.tasks[i].timer_sleeps;
        continue;
      }
      const size_t w = index[who->pid];
      sim::ScriptBurst& wb = x.script.tasks[w].bursts[who->burst];
      const int64_t at = std::min(wb.ns, x.tasks[w].wall ? who->wall_off : who->cpu_off);
      wb.actions.push_back({sim::ScriptAction::Kind::Wake, std::max<int64_t>(0, at), i, k, 0});
      sb.next = sim::ScriptBurst::Next::Task;
      ++x.tasks[i].task_sleeps;
    }
  }
  for (sim::ScriptTask& st : x.script.tasks)
    for (sim::ScriptBurst& b : st.bursts)
      std::stable_sort(
          b.actions.begin(), b.actions.end(),
          [](const sim::ScriptAction& a, const sim::ScriptAction& c) { return a.at_ns < c.at_ns; });

  std::set<std::string> groups;
  for (const ExtractedTask& t : x.tasks)
    if (t.workload) groups.insert(t.group);
  if (groups.size() > 1)
    x.notes.push_back(
        "the workload's tasks are in " + std::to_string(groups.size()) +
        " task groups; the model's runqueue is flat, so group shares are not modelled");
  if (x.rt_ns > 0)
    x.notes.push_back("real-time tasks ran " + std::to_string(x.rt_ns / 1000) +
                      " us on the recorded CPUs; the model has no real-time class");
  return x;
}

}  // namespace vlag::replay
