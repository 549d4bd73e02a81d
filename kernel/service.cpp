// The event side of the kernel service layer (SPEC.md §6.2): where each fair task is — asleep,
// queued on a CPU, running — as far as the recorded CPUs show it, and per CPU who runs, with
// the windows whose switches were not recorded. Every change of where a task is becomes a join,
// pick, stop or leave on the cfs_rqs of its group hierarchy on that CPU (kernel/cfs_rq_track.h),
// which do the measuring.
#include "kernel/service.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <set>
#include <string_view>

#include "kernel/cfs_rq_track.h"
#include "kernel/flat_table.h"
#include "kernel/group_weight.h"
#include "kernel/inline_table.h"
#include "kernel/kernel_release.h"
#include "kernel/pid_weights.h"
#include "kernel/verdict_book.h"
#include "spec/features.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::kernel {
namespace {

bool fair_prio(int prio) { return prio >= 100 && prio <= 139; }

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

bool under(const std::string& path, const std::string& group) {
  return path == group || (path.size() > group.size() &&
                           path.compare(0, group.size(), group) == 0 && path[group.size()] == '/');
}

enum class Where : uint8_t { Unknown, Asleep, Runnable, Running, Gone };

// A group path the layer met, held once: its parent's, and on each CPU its cfs_rq and its group
// entity's id once looked up, so that the chain of a task's cfs_rqs, which every switch, wakeup
// and run walks, follows pointers instead of building paths and finding them in tree maps.
struct PathNode {
  std::string path;
  PathNode* parent = nullptr;         // nullptr for the root
  std::vector<CfsRqTrack*> level_on;  // by CPU (nullptr: not looked up yet)
  std::vector<int64_t> gid_on;        // by CPU (0: not looked up yet)
};

struct PidSlot;

struct TaskState {
  PidSlot* slot = nullptr;  // its pid's (new_task()): the report's row without a lookup
  Where where = Where::Unknown;
  int cpu = -1;           // Runnable/Running: its CPU; Asleep: the CPU it slept on
  bool on_level = false;  // a member of its cfs_rqs on `cpu` (that CPU is judged)
  bool seen = false;      // an event named it (or its fork), so its past is not "mid-life"
  int64_t last_seen = 0;  // its last event
  PrevState last_leave = PrevState::Runnable;
  int64_t migrated_at = -1;  // joined by a migration of a task not known to sleep, then
  int prio = 120;
  std::string path;          // its group; "/?PID" when no snapshot or map gave one
  PathNode* node = nullptr;  // path's (new_task())
  bool group_known = false;
  Range slice;
  Reasons unknown;  // MissingSnapshot when group or slice is not known
  // When it last left each other CPU it was on (woken or moved elsewhere): the load it had there
  // stays in its groups' tg->load_avg until that CPU removes it (SPEC.md §6.2).
  std::map<int, int64_t> left_cpu_at;
  // What its report's latest phase (TaskService::phases) is still owed: its last sighting and
  // run time since the phase's row was last written. Kept here, in a line every event of the
  // task reads anyway; written into the row when a phase ends and at the end (fold_phase()).
  int64_t phase_to = INT64_MIN;
  int64_t phase_runtime = 0;

  void move_to(int to, int64_t t) {
    if (cpu >= 0 && cpu != to) left_cpu_at[cpu] = t;
    cpu = to;
  }
};

// What is kept of every pid met: its task's state and report row (find_task(), service()),
// and the two facts classify_windows() asks of any pid.
struct PidSlot {
  TaskState* state = nullptr;      // in tasks_
  TaskService* service = nullptr;  // in r_.tasks
  bool recorded_out = false;       // the trace holds its switch-out at least once
  bool current_seen = false;       // some event was recorded while it ran
  // Its latest wakeup delays, on their way into its histogram: a histogram spans kilobytes, so
  // the bucket an add lands on is seldom in cache, and added a batch at a time the misses
  // overlap (the histogram's figures do not depend on the order of its samples).
  uint8_t pending = 0;
  std::array<int64_t, 15> pending_ns;
};

struct Timeline {
  bool known = false;       // who runs here is known (after a switch, until a fault)
  bool ever_known = false;  // judged from its first switch on
  bool recorded = false;
  int64_t current = 0;
  int64_t since = 0;
  int64_t accounted_to = 0;
  int64_t last_t = INT64_MIN;
  int64_t last_idle = INT64_MIN;
  int64_t first_event_ns = 0;
  double unknown_ns = 0;  // time whose runner the trace does not show (before the first switch,
                          // unrecorded windows)
  // The first event since the last switch recorded while another task than `current` ran:
  // who that was, and since when at the latest it ran (its sched_stat_runtime says how long).
  int64_t revealed_pid = -1;
  int64_t revealed_since = 0;
  // sched_stat_runtime: the kernel's own accounting (rq_clock_task, without IRQ and steal
  // time). Once the CPU records it, what a run gives the checks is its sum, not wall time.
  bool stat_mode = false;
  int64_t stat_pending = 0;   // of the running task, not yet accounted
  int64_t revealed_stat = 0;  // of the revealed task, during an unrecorded window
  // The CPU's last event was a record of its running task, at this time.
  bool last_was_own_stat = false;
  int64_t last_stat_ns = 0;
  // Tasks of unknown group queued here (pid → task weight): any group open to them may hold them.
  PidWeights outsiders;
  int64_t marked_current = -1;  // the last task an event here named current: its slot says so
};

// The cfs_rqs of a task's hierarchy on a CPU, from its own up to the root, each with the entity
// that stands for it there. A switch makes several, and most tasks sit at most a group below
// the root: up to two links are kept in place, without an allocation; a deeper chain moves to
// the heap. Contiguous either way.
class Chain {
 public:
  using Link = std::pair<PathNode*, int64_t>;
  Chain() = default;
  Chain(const Link* first, const Link* last) {
    for (; first != last; ++first) emplace_back(first->first, first->second);
  }
  void emplace_back(PathNode* path, int64_t id) {
    if (n_ < near_.size())
      near_[n_] = {path, id};
    else
      emplace_far(path, id);
    ++n_;
  }
  const Link* begin() const { return n_ <= near_.size() ? near_.data() : far_.data(); }
  const Link* end() const { return begin() + n_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Link& operator[](size_t i) const { return begin()[i]; }

 private:
  // Out of line, so that the common case inlines.
  [[gnu::noinline]] void emplace_far(PathNode* path, int64_t id) {
    if (n_ == near_.size()) far_.assign(near_.begin(), near_.end());
    far_.emplace_back(path, id);
  }

  size_t n_ = 0;
  std::array<Link, 2> near_;
  std::vector<Link> far_;
};

// A wakeup this soon after the migration of the same task is its end (try_to_wake_up moves the
// task, then enqueues it and records the wakeup).
constexpr int64_t kSameArrivalNs = 1'000'000;

// Two records of the running task this close together with nothing between them are the tick's
// update_curr() and the one schedule() makes when the tick asked for a pick: when no switch
// follows, the pick chose the same task again, with a new request (SPEC.md §6.2).
constexpr int64_t kRepickNs = 100'000;

}  // namespace

class KernelServiceLayer::Impl {
 public:
  Impl(std::string file, const KernelCheckOptions& o) : o_(o) {
    r_.file = std::move(file);
    r_.options = o;
    preset_ = kernel_preset(o.kernel_release, o.kernel_release_source);
    r_.tick_ns = make_params(preset_by_name(preset_.name), o.hz).tick_ns();
    for (const auto& [pid, path] : o.group_of) members_[path].insert(pid);
    for (const auto& [pid, path] : o.group_of)
      for (std::string p = path; p != "/"; p = parent_of(p)) known_paths_.insert(p);
  }

  void on_event(const KernelEvent& e) {
    if (!started_) {
      started_ = true;
      r_.first_ns = e.time_ns;
    }
    r_.last_ns = std::max(r_.last_ns, e.time_ns);
    last_line_ = std::max(last_line_, e.line);
    note_cpu(e.cpu);
    for (const auto& c : {e.target_cpu, e.orig_cpu, e.dest_cpu})
      if (c) note_cpu(*c);
    Timeline& tl = timeline(e.cpu);
    if (!tl.recorded) tl.first_event_ns = e.time_ns;
    tl.recorded = true;
    if (e.time_ns < tl.last_t) {
      problem(e.line, e.cpu,
              "clock went backwards on this CPU: who runs here is unknown until its next switch");
      tl.known = false;
      return;
    }
    tl.last_t = e.time_ns;
    if (e.current_pid) {
      names_current_ = true;
      if (*e.current_pid != tl.marked_current) {  // a CPU's events name one task for a while
        pid_slot(*e.current_pid).current_seen = true;
        tl.marked_current = *e.current_pid;
      }
    }
    if (e.current_pid && tl.known && *e.current_pid != tl.current && tl.revealed_pid < 0) {
      tl.revealed_pid = *e.current_pid;
      tl.revealed_since = e.time_ns;
      if (e.kind == KernelEventKind::StatRuntime && e.pid == *e.current_pid && e.runtime_ns)
        tl.revealed_since = std::max(tl.since, e.time_ns - *e.runtime_ns);
    }
    if (e.kind == KernelEventKind::StatRuntime && e.runtime_ns) {
      tl.stat_mode = true;
      if (tl.known && e.pid == tl.current) {
        charge_running(e.cpu, *e.runtime_ns);
        if (tl.last_was_own_stat && e.time_ns - tl.last_stat_ns <= kRepickNs)
          repick(e.cpu, e.time_ns, e.line);
      } else if (tl.known && e.pid == tl.revealed_pid)
        tl.revealed_stat += *e.runtime_ns;
      else
        charge_remote(e.pid, e.cpu, *e.runtime_ns);
    }
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
      case KernelEventKind::Fork:
        on_fork(e);
        break;
      case KernelEventKind::Exit:
      case KernelEventKind::Waking:
      case KernelEventKind::StatRuntime:
        break;
    }
    tl.last_was_own_stat =
        e.kind == KernelEventKind::StatRuntime && tl.known && e.pid == tl.current && e.runtime_ns;
    if (tl.last_was_own_stat) tl.last_stat_ns = e.time_ns;
  }

  void note_machine_cpus(int n) {
    if (!o_.machine_cpus) {
      o_.machine_cpus = n;
      machine_source_ = "trace-cmd's cpus= line";
    }
  }

  KernelReport finish() {
    // What is still open is judged at the trace's last line.
    for (size_t c = 0; c < cpus_.size(); ++c) advance(static_cast<int>(c), r_.last_ns, last_line_);
    for (auto& [key, level] : levels_) level->finish(r_.last_ns, last_line_);
    for (size_t i = 0; i < pid_slots_.size(); ++i) flush_wakeup_delays(pid_slots_.value(i));
    r_.machine_cpus = o_.machine_cpus.value_or(max_cpu_ + 1);
    r_.machine_cpus_source = !o_.machine_cpus          ? "the CPUs the trace names"
                             : machine_source_.empty() ? "the snapshot's cpu# sections"
                                                       : machine_source_;
    r_.all_cpus_recorded = true;
    for (int c = 0; c < r_.machine_cpus; ++c) {
      const bool rec = static_cast<size_t>(c) < cpus_.size() && cpus_[c].recorded;
      if (rec)
        r_.recorded_cpus.push_back(c);
      else
        r_.all_cpus_recorded = false;
    }
    if (o_.base_slice_ns) {
      r_.base_slice_ns = Range::exact(static_cast<double>(*o_.base_slice_ns));
      r_.base_slice_source = o_.base_slice_source;
    } else {
      const int n = std::clamp(r_.machine_cpus, 1, 8);  // the CPU factor stops at 8
      r_.base_slice_ns = Range::exact(
          static_cast<double>(make_params(preset_by_name(preset_.name), o_.hz, n).base_slice_ns()));
      r_.base_slice_source = "assumed: " + preset_.name + "'s default (" + preset_.source +
                             ") for " + std::to_string(n) +
                             " CPUs (no snapshot gave sysctl_sched_base_slice)";
    }
    for (auto& [pid, t] : r_.tasks) {
      TaskState& s = tasks_.at(pid);
      t.slice_ns = s.slice;
      t.group = s.group_known ? s.path : "?";
      t.group_known = s.group_known;
      fold_phase(s, t);
      if (!t.phases.empty()) t.phases.back().to_ns = std::max(t.phases.back().to_ns, s.last_seen);
    }
    for (auto& [path, g] : r_.groups) {
      g.path = path;
      const auto k = o_.groups.find(path);
      if (k != o_.groups.end()) {
        g.shares = k->second.shares;
        g.shares_source = k->second.shares_source;
      }
    }
    for (const auto& [pid, t] : r_.tasks)
      if (t.group_known)
        for (std::string p = t.group; p != "/"; p = parent_of(p))
          r_.groups[p].runtime_ns += t.runtime_ns;
    for (auto& [path, g] : r_.groups) g.path = path;
    classify_windows();
    book_.close(r_, r_.all_cpus_recorded, [&](int64_t id) { return name(id); });
    return std::move(r_);
  }

 private:
  // --- bookkeeping -----------------------------------------------------------------------

  void note_cpu(int c) { max_cpu_ = std::max(max_cpu_, c); }

  Timeline& timeline(int c) {
    const auto at = static_cast<size_t>(c);
    return at < timeline_at_.size() ? *timeline_at_[at] : new_timeline(at);
  }
  // Out of line: timeline() is asked for several times per event, and inlined only without this.
  [[gnu::noinline]] Timeline& new_timeline(size_t at) {
    cpus_.resize(at + 1);
    for (size_t i = timeline_at_.size(); i <= at; ++i) timeline_at_.push_back(&cpus_[i]);
    return cpus_[at];
  }

  // Whether every CPU of the machine has recorded an event by now (unknown CPU count: no).
  bool every_cpu_recorded() const {
    if (!o_.machine_cpus) return false;
    for (int c = 0; c < *o_.machine_cpus; ++c)
      if (static_cast<size_t>(c) >= cpus_.size() || !cpus_[static_cast<size_t>(c)].recorded)
        return false;
    return true;
  }

  // A CPU is judged once it has recorded an event (and --cpu does not exclude it).
  bool judged(int c) { return timeline(c).recorded && (!o_.only_cpu || *o_.only_cpu == c); }

  void problem(int line, int cpu, std::string msg) {
    ++r_.problem_count;
    if (r_.problems.size() < kMaxProblems) r_.problems.push_back({line, cpu, std::move(msg)});
  }

  std::string name(int64_t id) const {
    if (id < 0) {
      const auto& [path, cpu] = gnames_[static_cast<size_t>(-id - 1)];
      return "group " + path + " on cpu" + std::to_string(cpu);
    }
    const auto it = r_.tasks.find(id);
    return (it == r_.tasks.end() ? std::string("?") : it->second.comm) + ":" + std::to_string(id);
  }

  int64_t gid(const std::string& path, int cpu) {
    const auto key = std::make_pair(path, cpu);
    const auto it = gids_.find(key);
    if (it != gids_.end()) return it->second;
    gnames_.push_back(key);
    const int64_t id = -static_cast<int64_t>(gnames_.size());
    gids_[key] = id;
    return id;
  }

  LevelContext& context(int cpu) {
    while (contexts_.size() <= static_cast<size_t>(cpu)) {
      const int c = static_cast<int>(contexts_.size());
      LevelContext& ctx = contexts_.emplace_back();
      ctx.cpu = c;
      ctx.tick_ns = r_.tick_ns;
      ctx.user_threshold_ns = o_.starvation_ns;
      ctx.book = &book_;
      ctx.name = [this](int64_t id) { return name(id); };
      ctx.on_fluid = [this](int64_t id, const FluidTotals& f) { on_fluid(id, f); };
      ctx.on_wait = [this](int64_t id, const WaitFigure& w) { on_wait(id, w); };
      ctx.cpu_unknown_ns = &timeline(c).unknown_ns;
    }
    return contexts_[static_cast<size_t>(cpu)];
  }

  // A task's state, and the report's row of a task (made on first use): both are std::maps for
  // their order, whose nodes stay put (no task is erased), so the pid's slot finds one without
  // the tree walk. An event asks for the slots of its one or two pids many times: the last two
  // found are kept at hand (slots stay put: the table's values never move).
  PidSlot& pid_slot(int64_t pid) {
    if (PidSlot* near = recent_slot(pid)) return *near;
    PidSlot& slot = pid_slots_[pid];
    remember_slot(pid, slot);
    return slot;
  }
  TaskState* find_task(int64_t pid) {
    PidSlot* slot = find_slot(pid);
    return slot ? slot->state : nullptr;
  }
  // The slot of a pid met, or nullptr. Its state and report row are read from it side by side:
  // through the state, the row's address waits for the state's line to come in.
  PidSlot* find_slot(int64_t pid) {
    PidSlot* slot = recent_slot(pid);
    if (!slot) {
      slot = pid_slots_.find(pid);
      if (slot) remember_slot(pid, *slot);
    }
    return slot;
  }
  PidSlot* recent_slot(int64_t pid) {
    if (recent_[0].first == pid) return recent_[0].second;
    if (recent_[1].first != pid) return nullptr;
    std::swap(recent_[0], recent_[1]);
    return recent_[0].second;
  }
  void remember_slot(int64_t pid, PidSlot& slot) {
    recent_[1] = recent_[0];
    recent_[0] = {pid, &slot};
  }
  TaskState& new_task(int64_t pid, const TaskState& s) {
    TaskState& made = tasks_.emplace(pid, s).first->second;
    made.node = &path_node(made.path);
    made.slot = &pid_slot(pid);
    made.slot->state = &made;
    return made;
  }

  TaskService& service(int64_t pid) { return service(pid_slot(pid), pid); }
  // What s still owes the latest phase of its row ts, written into it.
  static void fold_phase(TaskState& s, TaskService& ts) {
    if (!ts.phases.empty()) {
      ts.phases.back().to_ns = std::max(ts.phases.back().to_ns, s.phase_to);
      ts.phases.back().runtime_ns += s.phase_runtime;
    }
    s.phase_to = INT64_MIN;
    s.phase_runtime = 0;
  }
  TaskService& service(const TaskState& s, int64_t pid) { return service(*s.slot, pid); }
  TaskService& service(PidSlot& slot, int64_t pid) {
    if (!slot.service) slot.service = &r_.tasks[pid];
    return *slot.service;
  }

  PathNode& path_node(const std::string& path) {
    const auto it = path_nodes_.find(path);
    if (it != path_nodes_.end()) return it->second;
    PathNode* parent = path == "/" ? nullptr : &path_node(parent_of(path));
    PathNode& made = path_nodes_[path];
    made.path = path;
    made.parent = parent;
    return made;
  }

  CfsRqTrack& level(int cpu, PathNode* path) {
    const auto c = static_cast<size_t>(cpu);
    if (path->level_on.size() <= c) path->level_on.resize(c + 1, nullptr);
    if (!path->level_on[c]) path->level_on[c] = &level(cpu, path->path);
    return *path->level_on[c];
  }

  int64_t gid(PathNode* path, int cpu) {
    const auto c = static_cast<size_t>(cpu);
    if (path->gid_on.size() <= c) path->gid_on.resize(c + 1, 0);
    if (path->gid_on[c] == 0) path->gid_on[c] = gid(path->path, cpu);
    return path->gid_on[c];
  }

  CfsRqTrack& level(int cpu, const std::string& path) {
    auto it = levels_.find(std::pair<int, std::string_view>(cpu, path));  // no key copied
    if (it == levels_.end()) it = levels_.emplace(std::pair(cpu, path), nullptr).first;
    auto& slot = it->second;
    if (!slot) {
      slot = std::make_unique<CfsRqTrack>(path, &context(cpu));
      if (open_to_outsiders(path))
        for (const auto& [pid, w] : timeline(cpu).outsiders.ascending())
          slot->add_possible_member(pid, w);
      // The CPU's list, in the order of levels_, made again (a cfs_rq is new rarely).
      if (levels_on_.size() <= static_cast<size_t>(cpu))
        levels_on_.resize(static_cast<size_t>(cpu) + 1);
      std::vector<LevelOnCpu>& on = levels_on_[static_cast<size_t>(cpu)];
      on.clear();
      for (auto at = levels_.lower_bound({cpu, std::string()});
           at != levels_.end() && at->first.first == cpu; ++at)
        on.push_back({at->second.get(), open_to_outsiders(at->first.second)});
    }
    return *slot;
  }

  // The fair task `pid`, created on its first appearance with a fair prio; nullptr for others.
  TaskState* task(int64_t pid, const std::string& comm, std::optional<int> prio, int64_t t,
                  int line) {
    if (pid == 0) return nullptr;
    PidSlot* slot = find_slot(pid);
    TaskState* known = slot ? slot->state : nullptr;
    if (!known) {
      if (!prio || !fair_prio(*prio)) return nullptr;
      TaskState s;
      s.prio = *prio;
      s.last_seen = r_.first_ns;
      const auto g = o_.group_of.find(pid);
      if (g != o_.group_of.end()) {
        s.path = g->second;
        s.group_known = true;
      } else {  // somewhere under the root: an entity of the root of unknown weight
        s.path = "/";
        s.unknown |= Reason::MissingSnapshot;
        outsiders_.insert(pid);
      }
      s.slice = slice_of(pid);
      if (!s.slice.is_exact()) s.unknown |= Reason::MissingSnapshot;
      known = &new_task(pid, s);
      slot = known->slot;
      TaskService& ts = service(*slot, pid);
      ts.pid = pid;
      ts.prio = *prio;
      ts.weight = nice_to_weight(*prio - 120);
      ts.phases.push_back({*prio, ts.weight, t, t});
    }
    TaskState& s = *known;
    TaskService& ts = service(*slot, pid);
    // The name compared first: it is the one that changes least, so the rest is seldom asked.
    if (!comm.empty() && ts.comm != comm && comm != std::string_view("<...>")) ts.comm = comm;
    if (prio && !fair_prio(*prio)) {  // it left the fair class (sched_setscheduler)
      if (s.where == Where::Runnable || s.where == Where::Running) remove(s, pid, t, line, false);
      s.where = Where::Unknown;
      return nullptr;
    }
    if (prio && *prio != s.prio) reprio(s, pid, *prio, t, line);
    s.phase_to = std::max(s.phase_to, t);
    return &s;
  }

  Range slice_of(int64_t pid) const {
    const auto s = o_.slice_of.find(pid);
    if (s != o_.slice_of.end()) return Range::exact(static_cast<double>(s->second));
    return {static_cast<double>(kMinCustomSliceNs), static_cast<double>(kMaxCustomSliceNs)};
  }

  // A task of unknown group stands at the root for its group's entity, whose weight is
  // anything MIN_SHARES..MAX_SHARES.
  EntityInfo task_info(int64_t pid, const TaskState& s) const {
    const Range w = s.group_known
                        ? Range::exact(static_cast<double>(nice_to_weight(s.prio - 120)))
                        : Range{static_cast<double>(kMinWeight), static_cast<double>(kMaxWeight)};
    // The figures take it as a task of the root (stated in the report's "groups" line).
    return {pid, w, s.slice, s.unknown, static_cast<double>(nice_to_weight(s.prio - 120))};
  }

  // A group entity's weight and slice on a CPU now (SPEC.md §6.2).
  EntityInfo group_info(const std::string& path, int cpu, int64_t t) {
    EntityInfo e;
    e.id = gid(path, cpu);
    Range shares{static_cast<double>(kMinWeight), static_cast<double>(kMaxWeight)};
    const auto k = o_.groups.find(path);
    const bool flat = std::none_of(known_paths_.begin(), known_paths_.end(),
                                   [&](const auto& p) { return p != path && under(p, path); });
    if (k != o_.groups.end() && k->second.shares && flat && path.find('?') == std::string::npos)
      shares = *k->second.shares;
    double w_run = 0, residue = 0, unseen = 0;
    bool sample_ok = true;  // the snapshot's figure for the other CPUs' load still applies
    Range slice;
    bool first = true;
    for (const int64_t pid : members_[path]) {
      const auto it = tasks_.find(pid);
      const double w =
          static_cast<double>(nice_to_weight((it == tasks_.end() ? 120 : it->second.prio) - 120));
      if (it != tasks_.end()) {
        slice = first ? it->second.slice : slice.hull(it->second.slice);
        first = false;
      }
      if (it == tasks_.end() || !it->second.seen) {
        // Not in the trace yet. Seen asleep by a snapshot on a recorded CPU: asleep since
        // the trace began (waking would have named it). Seen runnable: it may have been
        // waiting all along, queued behind others, which no event records, and on another CPU
        // than the snapshot's (a migration between the snapshot and the trace's start), so
        // its whole load may be elsewhere. On a CPU that is not recorded, or unknown to any
        // snapshot: anything.
        const auto snap = o_.snapshot_tasks.find(pid);
        if (snap == o_.snapshot_tasks.end() || snap->second.state == 'R') {
          unseen = std::numeric_limits<double>::infinity();
          if (snap != o_.snapshot_tasks.end()) sample_ok = false;
        } else if (snap->second.cpu != cpu) {
          const int x = snap->second.cpu;
          if (static_cast<size_t>(x) < cpus_.size() && cpus_[x].recorded)
            unseen += residue_after(w, t - r_.first_ns);
          else
            unseen = std::numeric_limits<double>::infinity();
        }
        continue;
      }
      const TaskState& s = it->second;
      if ((s.where == Where::Runnable || s.where == Where::Running) && s.cpu == cpu && s.on_level)
        w_run += w;
      residue += load_elsewhere(s, w, cpu, t);
    }
    // A task of unknown group may be one of this group's: the load it carries elsewhere may be
    // in the group's load there. (Queued here, it would only add to w_run: the weight's lower
    // end, taken without it, stays a lower end.)
    if (open_to_outsiders(path))
      for (const int64_t pid : outsiders_) {
        const TaskState& s = tasks_.at(pid);
        residue += load_elsewhere(s, static_cast<double>(nice_to_weight(s.prio - 120)), cpu, t);
      }
    if (k != o_.groups.end() && sample_ok)
      for (const auto& sample : k->second.samples)
        if (sample.cpu == cpu) {  // the snapshot's figure for what the other CPUs carried
          const double dt = static_cast<double>(t - sample.at_ns);
          const double bound = dt >= 0 ? residue_after(sample.other_load, t - sample.at_ns)
                                       : sample.other_load * std::exp2(-dt / (32 * 1'024'000.0));
          unseen = std::min(unseen, bound);
        }
    e.weight = group_entity_weight(shares, w_run, residue + unseen);
    e.slice = first ? Range{static_cast<double>(kMinCustomSliceNs),
                            static_cast<double>(kMaxCustomSliceNs)}
                    : slice;
    if (!e.weight.is_exact()) e.unknown |= Reason::WeightUnknown;
    if (!e.slice.is_exact()) e.unknown |= Reason::MissingSnapshot;
    return e;
  }

  // The load a task of weight w may carry at t in its groups' load on CPUs other than `cpu`:
  // all of it while it is queued elsewhere, what PELT has not yet decayed of where it was.
  double load_elsewhere(const TaskState& s, double w, int cpu, int64_t t) const {
    double residue = 0;
    switch (s.where) {
      case Where::Runnable:
      case Where::Running:
        if (s.cpu != cpu || !s.on_level) return std::numeric_limits<double>::infinity();
        break;
      case Where::Asleep:
        if (s.cpu != cpu) residue += residue_after(w, t - s.last_seen);
        break;
      case Where::Unknown:
        residue += residue_after(w, t - s.last_seen);
        break;
      case Where::Gone:
        return 0;
    }
    // What it left on the other CPUs it was on lately (the CPU it sleeps on is counted above).
    const bool resting = s.where == Where::Asleep || s.where == Where::Unknown;
    for (const auto& [c, at] : s.left_cpu_at)
      if (c != cpu && !(resting && c == s.cpu)) residue += residue_after(w, t - at);
    return residue;
  }

  // The cfs_rqs from the task's own up to the root, with the entity that stands for it in each.
  // Inlined: every switch, wakeup and run asks for chains, most of them one link long.
  [[gnu::always_inline]] Chain chain(int64_t pid, const TaskState& s, int cpu) {
    Chain out;
    out.emplace_back(s.node, pid);
    for (PathNode* p = s.node; p->parent; p = p->parent) out.emplace_back(p->parent, gid(p, cpu));
    return out;
  }

  // --- presence on the cfs_rqs -----------------------------------------------------------

  // Every task Runnable on a CPU became so in add() or by a preemption there, which list it
  // here, each once: the idle task's switch looks at these, not at every task (more may be
  // listed).
  void may_be_queued(int64_t pid, int cpu) {
    if (static_cast<size_t>(cpu) >= maybe_queued_.size())
      maybe_queued_.resize(static_cast<size_t>(cpu) + 1);
    MaybeQueued& q = maybe_queued_[static_cast<size_t>(cpu)];
    bool& listed = q.listed[pid];
    if (listed) return;
    listed = true;
    q.pids.push_back(pid);
  }
  // The tasks listed on c, in ascending pid order as tasks_ walks; the list empties (whoever is
  // Runnable there after the idle switch is listed again as it becomes so).
  std::vector<int64_t> queued_candidates(int c) {
    std::vector<int64_t> v;
    if (static_cast<size_t>(c) >= maybe_queued_.size()) return v;
    MaybeQueued& q = maybe_queued_[static_cast<size_t>(c)];
    v.swap(q.pids);
    for (const int64_t pid : v) *q.listed.find(pid) = false;
    std::sort(v.begin(), v.end());
    return v;
  }

  void add(TaskState& s, int64_t pid, int cpu, int64_t t, JoinKind kind, bool woken,
           int64_t earliest = 0, Reasons why = {}) {
    s.move_to(cpu, t);
    may_be_queued(pid, cpu);
    s.on_level = judged(cpu);
    if (!s.on_level) return;
    if (s.path != "/") members_[s.path].insert(pid);  // only a group's are asked for
    const auto ch = chain(pid, s, cpu);
    for (size_t i = 0; i < ch.size(); ++i) {
      const auto& [path, id] = ch[i];
      CfsRqTrack& lv = level(cpu, path);
      const bool was_empty = i > 0 && !lv.has(id);
      if (i == 0) {
        lv.forget_sleeper(pid);
        lv.join(task_info(pid, s), t, kind, woken, earliest, why);
      } else if (was_empty) {
        lv.join(group_info(ch[i - 1].first->path, cpu, t), t,
                kind == JoinKind::New ? JoinKind::Woken : kind, woken, earliest, why);
      } else {
        break;  // the group entity was queued already: nothing above changes
      }
    }
    if (!s.group_known) outsider_queued(pid, s, cpu);
    refresh_groups(s.path, t);
  }

  // Leaves its cfs_rqs on its CPU (unseen: at a moment since its last sighting).
  void remove(TaskState& s, int64_t pid, int64_t t, int line, bool unseen, Reasons why = {}) {
    if (!s.on_level) return;
    s.on_level = false;
    const int cpu = s.cpu;
    const auto ch = chain(pid, s, cpu);
    for (size_t i = 0; i < ch.size(); ++i) {
      const auto& [path, id] = ch[i];
      CfsRqTrack& lv = level(cpu, path);
      if (i > 0 && !level(cpu, ch[i - 1].first).empty()) break;
      if (unseen)
        lv.leave_unseen(id, t, line, why);
      else
        lv.leave(id, t, line);
    }
    if (!s.group_known) outsider_left(pid, cpu);
    refresh_groups(s.path, t);
  }

  // --- tasks of unknown group ---------------------------------------------------------------
  //
  // A task that neither a snapshot nor the group map places stands at the root, but it may be
  // in any group the map does not say complete (SPEC.md §6.2): its run may have been that
  // group's service, its queueing one more competitor inside that group.

  bool open_to_outsiders(const std::string& path) const {
    if (path == "/") return false;  // the root's entities are the outsider itself and its peers
    for (std::string p = path; p != "/"; p = parent_of(p)) {
      const auto k = o_.groups.find(p);
      if (k != o_.groups.end() && !k->second.complete_source.empty()) return false;
    }
    return true;
  }

  template <typename F>
  void each_level_on(int cpu, F&& f) {
    if (static_cast<size_t>(cpu) >= levels_on_.size()) return;
    for (const LevelOnCpu& on : levels_on_[static_cast<size_t>(cpu)]) f(on.open, *on.track);
  }

  void outsider_queued(int64_t pid, const TaskState& s, int cpu) {
    const double w = static_cast<double>(nice_to_weight(s.prio - 120));
    *timeline(cpu).outsiders.emplace(pid, w).first = w;
    each_level_on(cpu, [&](bool open, CfsRqTrack& lv) {
      if (open) lv.add_possible_member(pid, w);
    });
  }

  void outsider_left(int64_t pid, int cpu) {
    timeline(cpu).outsiders.erase(pid);
    each_level_on(cpu, [&](bool, CfsRqTrack& lv) { lv.forget_possible_member(pid); });
  }

  // An outsider ran ns on cpu: every group open to it may have been served that.
  void outsider_ran(int cpu, double ns) {
    if (ns <= 0) return;
    const auto may_hold = [&](int64_t id) {
      return open_to_outsiders(gnames_[static_cast<size_t>(-id - 1)].first);
    };
    each_level_on(cpu, [&](bool open, CfsRqTrack& lv) {
      if (open) lv.possible_member_ran(ns);
      if (lv.holds_groups()) lv.groups_may_have_run(ns, may_hold);
    });
  }

  // The weights of the group's entities on every judged CPU follow where its tasks are.
  void refresh_groups(const std::string& path, int64_t t) {
    if (path.size() == 1 && path[0] == '/') return;  // the root's tasks: no group above
    for (std::string p = path; p != "/"; p = parent_of(p))
      for (size_t c = 0; c < cpus_.size(); ++c) {
        const auto lv = levels_.find({static_cast<int>(c), parent_of(p)});
        if (lv == levels_.end()) continue;
        const int64_t id = gid(p, static_cast<int>(c));
        if (lv->second->has(id)) lv->second->drift(group_info(p, static_cast<int>(c), t), t, 0);
      }
  }

  void reprio(TaskState& s, int64_t pid, int prio, int64_t t, int line) {
    s.prio = prio;
    TaskService& ts = service(pid);
    ts.prio = prio;
    ts.weight = nice_to_weight(prio - 120);
    if (s.on_level) {  // the old phase's fluid figures go to it, before the new one opens
      const bool running = s.where == Where::Running;
      level(s.cpu, s.node).change(task_info(pid, s), t, line, running);
    }
    fold_phase(s, ts);
    ts.phases.back().to_ns = std::max(ts.phases.back().to_ns, t);
    ts.phases.push_back({prio, ts.weight, t, t});
    if (s.on_level && !s.group_known) outsider_queued(pid, s, s.cpu);
    if (s.on_level) refresh_groups(s.path, t);
  }

  // A missing switch-out is the tracer's habit, not a fault, when it is out of the idle task or
  // out of a task of which nothing else is ever recorded (no switch-out, never the current
  // task of an event) — seen so at least twice when the trace cannot name current tasks.
  // Otherwise events were lost.
  void classify_windows() {
    std::map<int64_t, int> count;
    for (const auto& w : windows_) ++count[w.blind];
    for (const auto& w : windows_) {
      const PidSlot* seen = pid_slots_.find(w.blind);
      const bool silent = !seen || (!seen->recorded_out && !seen->current_seen);
      if (w.blind == 0 || (silent && (names_current_ || count[w.blind] >= 2))) {
        UnrecordedRuns& u = r_.unrecorded[w.blind];
        ++u.windows;
        u.total_ns += w.length_ns;
      } else {
        problem(
            w.line, w.cpu,
            fmt::format("switch away from pid {} but pid {} was running (events lost): {:.3f} ms "
                        "not accounted",
                        w.revealed, w.blind, static_cast<double>(w.length_ns) / 1e6));
      }
    }
  }

  // --- the kernel's own accounting (sched_stat_runtime) -------------------------------------

  // update_curr() charged the task running on c: what its run gives the checks at its next
  // accounting.
  void charge_running(int c, int64_t runtime) { timeline(c).stat_pending += runtime; }

  // The task running on c was picked again at t: its run so far is accounted, and each of its
  // entities starts a new request.
  void repick(int c, int64_t t, int line) {
    advance(c, t, line);
    for (const auto& [path, id] : chain_on(timeline(c).current, c)) level(c, path).repicked(id);
  }

  // A record of a task that does not run on the recording CPU: another CPU read its runtime
  // (task_sched_runtime() for /proc/PID/stat, getrusage, CPU timers, a group's exit) and
  // charged it on the CPU where it runs. That share of the run is in no later record there, so
  // it goes to that CPU's account of the run; a run already accounted (the CPUs' clocks put the
  // read just after the switch) gets it on its cfs_rqs directly.
  void charge_remote(int64_t pid, int recorded_on, int64_t runtime) {
    const TaskState* found = find_task(pid);
    if (!found || found->cpu < 0 || found->cpu == recorded_on) return;
    const TaskState& s = *found;
    const Timeline& there = timeline(s.cpu);
    if (s.where == Where::Running && there.known && there.current == pid) {
      if (there.stat_mode) charge_running(s.cpu, runtime);
      return;
    }
    if (s.on_level && there.stat_mode) {
      for (const auto& [path, id] : chain(pid, s, s.cpu)) level(s.cpu, path).run(id, runtime, true);
      if (!s.group_known) outsider_ran(s.cpu, static_cast<double>(runtime));
    }
  }

  // --- per-CPU time ----------------------------------------------------------------------

  // Accounts [accounted_to, t) on CPU c to the task running there (at `line`, which a finding
  // of a group entity whose weight moved meanwhile names).
  void advance(int c, int64_t t, int line) {
    Timeline& tl = timeline(c);
    const int64_t dt = t - tl.accounted_to;
    tl.accounted_to = std::max(tl.accounted_to, t);
    if (!tl.known || dt <= 0 || tl.current == 0) return;
    PidSlot* const slot = find_slot(tl.current);
    if (!slot || !slot->state) return;
    TaskState& s = *slot->state;
    if (!o_.only_cpu || *o_.only_cpu == c) {
      TaskService& ts = service(*slot, tl.current);
      ts.runtime_ns += dt;
      s.phase_runtime += dt;
    }
    if (!s.on_level || s.cpu != c || s.where != Where::Running) return;
    const int64_t served = tl.stat_mode ? tl.stat_pending : dt;
    tl.stat_pending = 0;
    for (const auto& [path, id] : chain(tl.current, s, c))
      level(c, path).run(id, served, tl.stat_mode);
    if (!s.group_known) outsider_ran(c, static_cast<double>(served));
    for (const PathNode* p = s.node; p->parent; p = p->parent)
      level(c, p->parent).drift(group_info(p->path, c, t), t, line);
  }

  // The chain of a task present on c's cfs_rqs (empty otherwise).
  Chain chain_on(int64_t pid, int c) {
    const TaskState* s = pid == 0 ? nullptr : find_task(pid);
    if (!s || !s->on_level || s->cpu != c) return {};
    return chain(pid, *s, c);
  }

  static bool contains(const Chain& ch, const Chain::Link& x) {
    return std::find(ch.begin(), ch.end(), x) != ch.end();
  }

  // A switch stops the entities of the outgoing chain that the incoming one does not share.
  void stop_chain(int c, const Chain& out, const Chain& in, int64_t t) {
    for (const auto& x : out)  // (stop() does nothing for an entity not queued there)
      if (!contains(in, x)) level(c, x.first).stop(x.second, t);
  }

  // … and picks those of the incoming chain the outgoing one did not share (window: the pick
  // fell at an unknown moment in [window, t]).
  void pick_chain(int c, const Chain& in, const Chain& out, int64_t t, int line,
                  std::optional<int64_t> window) {
    for (const auto& x : in)
      if (!contains(out, x)) level(c, x.first).pick(x.second, t, line, window);
  }

  // The window [from, to) on CPU c held switches the trace lacks: `blind` ran from `from`,
  // `revealed` was running at `to`; only they (and tasks the tracer never records) can have run.
  void unrecorded(int c, int64_t blind, int64_t revealed, int64_t from, int64_t to, int line) {
    Timeline& tl = timeline(c);
    const double len = static_cast<double>(to - from);
    // An event recorded while `revealed` ran pins down the latest moment its run began: that
    // much of the window is its service, only the rest is unknown.
    const int64_t sure_from =
        tl.revealed_pid == revealed ? std::clamp(tl.revealed_since, from, to) : to;
    // With the kernel's accounting, the revealed task's service since its pick is all there.
    const bool exact = tl.stat_mode && tl.revealed_pid == revealed;
    const int64_t revealed_served = exact ? tl.revealed_stat : to - sure_from;
    const int64_t unknown =
        exact ? std::max<int64_t>(0, to - from - tl.revealed_stat) : sure_from - from;
    if (judged(c)) tl.unknown_ns += static_cast<double>(unknown);
    tl.accounted_to = to;
    if (blind == 0) {  // out of the idle task: never lost events (classify_windows)
      UnrecordedRuns& u = r_.unrecorded[0];
      ++u.windows;
      u.total_ns += to - from;
    } else {
      windows_.push_back({line, c, blind, revealed, to - from});
    }
    const Reasons why = Reason::UnrecordedSwitch;
    const Chain out = chain_on(blind, c);
    TaskState* x = find_task(revealed);
    const Chain in = x ? chain(revealed, *x, c) : Chain();
    for (const auto& [path, id] : out) level(c, path).uncertain(id, len, why);
    if (!out.empty() && !find_task(blind)->group_known) outsider_ran(c, len);
    stop_chain(c, out, in, from);
    if (!out.empty()) {
      TaskState& b = *find_task(blind);
      remove(b, blind, from, line, false);
      b.where = Where::Unknown;
      b.last_seen = from;
    }
    if (!x) return;
    const bool was_queued = x->where == Where::Runnable && x->cpu == c && x->on_level;
    if (!was_queued) appear(*x, revealed, c, to, line);
    x->where = Where::Running;
    x->move_to(c, to);
    pick_chain(c, chain_on(revealed, c), out, sure_from, line, from);
    for (const auto& [path, id] : chain_on(revealed, c)) {
      level(c, path).run(id, revealed_served, exact);
      if (!exact) level(c, path).uncertain(id, static_cast<double>(sure_from - from), why);
    }
    if (!x->group_known && x->on_level)
      outsider_ran(c, static_cast<double>(revealed_served + (exact ? 0 : sure_from - from)));
  }

  // The task is on c's cfs_rqs though the trace did not show it arrive: it was believed
  // elsewhere (it left there unseen), asleep (woken where nothing was recorded) or never seen.
  void appear(TaskState& s, int64_t pid, int c, int64_t t, int line) {
    if ((s.where == Where::Runnable || s.where == Where::Running) && s.on_level)
      remove(s, pid, t, line, true, Reason::LeftUnseen);
    if (s.where == Where::Asleep && s.on_level) level(s.cpu, s.node).forget_sleeper(pid);
    // Its arrival went unrecorded: on a CPU the trace does not hold, or, where it holds every
    // CPU, while a task ran that the tracer records nothing of.
    const Reasons why = !s.seen                ? Reason::MidLife
                        : every_cpu_recorded() ? Reason::UnrecordedSwitch
                                               : Reason::UntracedCpu;
    const int64_t earliest = std::max(s.last_seen, timeline(c).last_idle);
    add(s, pid, c, t, JoinKind::Appeared, false, earliest, why);
  }

  // --- events --------------------------------------------------------------------------

  void on_switch(const KernelEvent& e) {
    const int c = e.cpu;
    const int64_t t = e.time_ns;
    Timeline& tl = timeline(c);
    const bool first = !tl.ever_known;
    tl.ever_known = true;
    if (first && judged(c)) tl.unknown_ns += static_cast<double>(t - tl.first_event_ns);
    bool windowed = false;
    if (tl.known && tl.current != e.prev_pid) {
      unrecorded(c, tl.current, e.prev_pid, tl.since, t, e.line);
      windowed = true;
    } else if (tl.known) {
      advance(c, t, e.line);
    } else if (first && e.prev_pid != 0 && (!o_.only_cpu || *o_.only_cpu == c) &&
               task(e.prev_pid, e.prev_comm, e.prev_prio, t, e.line)) {
      // As perf sched latency and an independent count do, the time before a CPU's first
      // switch goes to the task it switches away from (runtime only: nothing is measured).
      service(e.prev_pid).runtime_ns += t - r_.first_ns;
      service(e.prev_pid).phases.back().runtime_ns += t - r_.first_ns;
    }
    tl.accounted_to = t;
    if (e.prev_pid != 0) pid_slot(e.prev_pid).recorded_out = true;

    TaskState* p = task(e.prev_pid, e.prev_comm, e.prev_prio, t, e.line);
    if (p && !windowed && !(p->where == Where::Running && p->cpu == c)) {
      // Found running (the CPU's first switch, or after a fault): when it was picked is unknown.
      appear(*p, e.prev_pid, c, t, e.line);
      p->where = Where::Running;
      const int64_t earliest = std::max(p->last_seen, tl.last_idle);
      pick_chain(c, chain_on(e.prev_pid, c), {}, t, e.line, earliest);
    }
    TaskState* n = e.pid == 0 ? nullptr : task(e.pid, e.comm, e.prio, t, e.line);
    const Chain out = p ? chain_on(e.prev_pid, c) : Chain();
    const Chain in_prospect = n ? chain(e.pid, *n, c) : Chain();
    const bool prev_stays =
        e.prev_leave == PrevState::Runnable || e.prev_leave == PrevState::Preempted;
    // A task that blocks leaves instead of waiting; its groups stop if the next is not theirs.
    stop_chain(c, prev_stays || out.empty() ? out : Chain(out.begin() + 1, out.end()), in_prospect,
               t);
    if (p) {
      p->move_to(c, t);
      switch (e.prev_leave) {
        case PrevState::Runnable:
        case PrevState::Preempted:
          p->where = Where::Runnable;
          may_be_queued(e.prev_pid, c);
          break;
        case PrevState::Blocked:
        case PrevState::Dead:
          remove(*p, e.prev_pid, t, e.line, false);
          p->where = e.prev_leave == PrevState::Dead ? Where::Gone : Where::Asleep;
          if (p->where == Where::Asleep && judged(c))
            level(c, p->node)
                .add_sleeper(e.prev_pid, static_cast<double>(service(*p, e.prev_pid).weight));
          break;
      }
      p->last_leave = e.prev_leave;
      p->last_seen = t;
      p->seen = true;
    }

    if (e.pid == 0) {
      // The idle task runs only when nothing is runnable here: whoever was thought queued on
      // this CPU had left it unseen (an unrecorded CPU pulled it).
      for (const int64_t pid : queued_candidates(c)) {
        TaskState& s = *find_task(pid);
        if (s.where == Where::Runnable && s.cpu == c) {
          remove(s, pid, t, e.line, true, Reason::LeftUnseen);
          s.where = Where::Unknown;
        }
      }
      tl.last_idle = t;
    } else if (n) {
      if (!(n->where == Where::Runnable && n->cpu == c && n->on_level))
        appear(*n, e.pid, c, t, e.line);
      n->where = Where::Running;
      n->move_to(c, t);
      pick_chain(c, chain_on(e.pid, c), out, t, e.line, std::nullopt);
      n->last_seen = t;
      n->seen = true;
      ++service(*n, e.pid).switches;
    }
    tl.current = e.pid;
    tl.since = t;
    tl.known = true;
    tl.revealed_pid = -1;
    tl.revealed_stat = 0;
    tl.stat_pending = 0;
  }

  void on_wakeup(const KernelEvent& e) {
    TaskState* s = task(e.pid, e.comm, e.prio, e.time_ns, e.line);
    if (!s) return;
    const int x = e.target_cpu.value_or(e.cpu);
    const int64_t t = e.time_ns;
    if (s->where == Where::Running) return;  // woken before it reached schedule()
    if (s->where == Where::Runnable) {
      // A task preempted on its way to sleep ("R+") is still queued, and is woken there; the
      // wakeup that follows the migration of a waking task is that same arrival.
      if (s->last_leave == PrevState::Preempted && s->cpu == x) return;
      if (s->migrated_at >= 0 && t - s->migrated_at <= kSameArrivalNs && s->cpu == x) {
        s->migrated_at = -1;
        return;
      }
      // Otherwise it ran and slept somewhere the trace does not show: its wait here ended at
      // an unknown moment.
      remove(*s, e.pid, t, e.line, true, Reason::LeftUnseen);
    }
    if (s->where == Where::Asleep && s->cpu >= 0 && judged(s->cpu))
      level(s->cpu, s->node).forget_sleeper(e.pid);
    s->where = Where::Runnable;
    add(*s, e.pid, x, t, e.kind == KernelEventKind::WakeupNew ? JoinKind::New : JoinKind::Woken,
        true);
    s->last_seen = t;
    s->seen = true;
  }

  void on_migrate(const KernelEvent& e) {
    TaskState* s = task(e.pid, e.comm, e.prio, e.time_ns, e.line);
    if (!s || !e.dest_cpu) return;
    const int64_t t = e.time_ns;
    if (s->where == Where::Runnable) {
      const bool here = e.orig_cpu && *e.orig_cpu == s->cpu;
      remove(*s, e.pid, t, e.line, !here, Reason::LeftUnseen);
      add(*s, e.pid, *e.dest_cpu, t, JoinKind::Migrated, false);
    } else if (s->where == Where::Asleep) {
      // A sleeping task moves with its wakeup, which follows, or with its affinity; it stays
      // asleep.
      if (s->cpu >= 0 && judged(s->cpu)) level(s->cpu, s->node).forget_sleeper(e.pid);
      s->move_to(*e.dest_cpu, t);
    } else if (s->where == Where::Unknown) {
      // Nothing says it sleeps: it is queued where it goes (a balance), unless the wakeup that
      // follows shows it was waking.
      s->where = Where::Runnable;
      add(*s, e.pid, *e.dest_cpu, t, JoinKind::Migrated, false);
      s->migrated_at = t;
    }
    s->last_seen = t;
    s->seen = true;
  }

  void on_fork(const KernelEvent& e) {
    if (e.child_pid == 0 || o_.group_of.count(e.child_pid)) return;
    const auto parent = tasks_.find(e.pid);
    if (parent == tasks_.end()) {
      // A parent not met yet whose group a snapshot or the map gives: the child starts there.
      const auto g = o_.group_of.find(e.pid);
      if (g == o_.group_of.end()) return;
      o_.group_of[e.child_pid] = g->second;
      members_[g->second].insert(e.child_pid);
      return;
    }
    // The child is in its parent's group until it moves, and did not exist before.
    TaskState child;
    child.prio = parent->second.prio;
    child.path = parent->second.path;
    child.group_known = parent->second.group_known;
    child.slice = slice_of(e.child_pid);
    if (!child.slice.is_exact() && o_.base_slice_ns)
      child.slice = parent->second.slice.hull(Range::exact(static_cast<double>(*o_.base_slice_ns)));
    child.unknown = child.group_known ? Reasons() : Reasons(Reason::MissingSnapshot);
    if (!child.slice.is_exact()) child.unknown |= Reason::MissingSnapshot;
    child.seen = true;
    child.last_seen = e.time_ns;
    if (find_task(e.child_pid)) return;
    new_task(e.child_pid, child);
    if (!child.group_known) outsiders_.insert(e.child_pid);
    members_[child.path].insert(e.child_pid);
    TaskService& ts = service(e.child_pid);
    ts.pid = e.child_pid;
    ts.comm = e.child_comm;
    ts.prio = child.prio;
    ts.weight = nice_to_weight(child.prio - 120);
    ts.phases.push_back({child.prio, ts.weight, e.time_ns, e.time_ns});
  }

  // --- figures ---------------------------------------------------------------------------

  void on_fluid(int64_t id, const FluidTotals& f) {
    if (id < 0) {
      GroupService& g = r_.groups[gnames_[static_cast<size_t>(-id - 1)].first];
      g.ideal_ns += f.ideal_ns;
      g.fluid_received_ns += f.received_ns;
      g.ideal_exact = g.ideal_exact && f.exact;
      return;
    }
    TaskService& t = service(id);
    t.ideal_exact = t.ideal_exact && f.exact;
    t.phases.back().ideal_exact = t.phases.back().ideal_exact && f.exact;
    t.ideal_ns += f.ideal_ns;
    t.fluid_received_ns += f.received_ns;
    t.min_lag_ns = std::min(t.min_lag_ns, f.min_lag_ns);
    t.max_lag_ns = std::max(t.max_lag_ns, f.max_lag_ns);
    t.phases.back().ideal_ns += f.ideal_ns;
    t.phases.back().fluid_received_ns += f.received_ns;
  }

  void on_wait(int64_t id, const WaitFigure& w) {
    if (id < 0 || !w.known) return;
    PidSlot& slot = pid_slot(id);
    TaskService& t = service(slot, id);
    const int64_t d = w.to_ns - w.from_ns;
    t.delays.add(d);
    if (w.woken) {
      slot.pending_ns[slot.pending++] = d;
      if (slot.pending == slot.pending_ns.size()) flush_wakeup_delays(slot);
    }
    if (d > t.max_delay_ns) {
      t.max_delay_ns = d;
      t.max_delay_at_ns = w.from_ns;
    }
    t.longest_wait_ns = std::max(t.longest_wait_ns, d);
  }

  static void flush_wakeup_delays(PidSlot& slot) {
    for (uint8_t i = 0; i < slot.pending; ++i) slot.service->wakeup_delays.add(slot.pending_ns[i]);
    slot.pending = 0;
  }

  KernelCheckOptions o_;
  KernelPreset preset_;  // the kernel's preset: its tick and default base slice
  KernelReport r_;
  VerdictBook book_;
  bool started_ = false;
  int last_line_ = 0;  // the trace's last line so far: where what is still open is judged
  int max_cpu_ = 0;
  std::string machine_source_;
  // A deque: each CPU's runqueue trackers keep a pointer to its unrecorded time, which must
  // stay put when a higher-numbered CPU is first seen.
  std::deque<Timeline> cpus_;
  std::vector<Timeline*> timeline_at_;  // cpus_'s, found without the deque's index arithmetic
  std::map<int64_t, TaskState> tasks_;
  struct MaybeQueued {
    std::vector<int64_t> pids;  // in the order they were listed
    InlineTable<bool> listed;   // whether a pid is in pids
  };
  std::vector<MaybeQueued> maybe_queued_;  // by CPU: may_be_queued()
  FlatTable<int64_t, PidSlot> pid_slots_;
  std::array<std::pair<int64_t, PidSlot*>, 2> recent_{{{-1, nullptr}, {-1, nullptr}}};
  std::map<std::string, std::set<int64_t>> members_;  // group path → its tasks
  std::set<std::string> known_paths_;
  std::set<int64_t> outsiders_;  // tasks no snapshot or map places in a group
  bool names_current_ = false;   // the trace's headers name the current task (tids)
  struct Window {
    int line, cpu;
    int64_t blind, revealed, length_ns;
  };
  std::vector<Window>
      windows_;  // unrecorded switch-outs but the idle task's, classified at the end
  std::map<std::pair<std::string, int>, int64_t> gids_;
  std::map<std::string, PathNode> path_nodes_;  // stable: chains and tasks point into it
  std::vector<std::pair<std::string, int>> gnames_;
  std::deque<LevelContext> contexts_;
  // Ordered by (CPU, path) as std::pair's own less orders them; found by a view of the path.
  struct LevelOrder {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return a.first != b.first ? a.first < b.first
                                : std::string_view(a.second) < std::string_view(b.second);
    }
  };
  std::map<std::pair<int, std::string>, std::unique_ptr<CfsRqTrack>, LevelOrder> levels_;
  // Each CPU's cfs_rqs in the order of levels_, and whether an outsider may be in each
  // (open_to_outsiders()): what a queued, leaving or running outsider walks.
  struct LevelOnCpu {
    CfsRqTrack* track;
    bool open;
  };
  std::vector<std::vector<LevelOnCpu>> levels_on_;
};

KernelServiceLayer::KernelServiceLayer(std::string file, const KernelCheckOptions& options)
    : impl_(std::make_unique<Impl>(std::move(file), options)) {}
KernelServiceLayer::~KernelServiceLayer() = default;
void KernelServiceLayer::on_event(const KernelEvent& e) { impl_->on_event(e); }
void KernelServiceLayer::note_machine_cpus(int n) { impl_->note_machine_cpus(n); }
KernelReport KernelServiceLayer::finish() { return impl_->finish(); }

KernelReport check_kernel_trace(const std::vector<KernelEvent>& events, const std::string& file,
                                const KernelCheckOptions& options) {
  KernelServiceLayer layer(file, options);
  for (const auto& e : events) layer.on_event(e);
  return layer.finish();
}

}  // namespace vlag::kernel
