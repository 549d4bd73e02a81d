#include "kernel/snapshot_check.h"

#include <algorithm>
#include <optional>

#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::kernel {
namespace {

// One entity queued on a cfs_rq, as far as the snapshot shows it.
struct Queued {
  int64_t vruntime = 0;
  int64_t weight = 0;  // unscaled, as avg_vruntime() sums it
  std::optional<int64_t> deadline;
  const TaskRowSnapshot* row = nullptr;  // nullptr for a group entity
  bool running = false;                  // the task marked '>', or the group entity above it
  bool inferred = false;                 // a sleeper taken to be delayed-dequeued (see queued_on)
};

bool fair_prio(int prio) { return prio >= 100 && prio <= 139; }

std::string parent_of(const std::string& path) {
  if (path == "/") return "";
  const size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool under(const std::string& path, const std::string& group) {
  return path == group ||
         (path.size() > group.size() && path.compare(0, group.size(), group) == 0 &&
          (group == "/" || path[group.size()] == '/'));
}

std::string where(const CfsRqSnapshot& rq, const TaskRowSnapshot* row) {
  std::string w = "cpu" + std::to_string(rq.cpu) + " " + rq.path;
  if (row) w += " pid " + std::to_string(row->pid) + " (" + row->comm + ")";
  return w;
}

std::string ns(__int128 v) {
  const bool neg = v < 0;
  if (neg) v = -v;
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return (neg ? "-" : "") + s + " ns";
}

// A child between fork and its first placement: listed, never run, vruntime not yet set.
bool unplaced(const TaskRowSnapshot& t) {
  return t.switches && *t.switches == 0 && t.sum_exec_ns && *t.sum_exec_ns == 0 && t.vruntime_ns &&
         *t.vruntime_ns == 0;
}

// The races of one CPU's section: what its lines may disagree on without a bug.
struct CpuRaces {
  std::string curr_changed;  // ".curr->pid N (line L) but the task list marks M running …"
  const TaskRowSnapshot* running = nullptr;
};

class Checker {
 public:
  explicit Checker(const SchedDebugSnapshot& snap) : snap_(snap) {
    report_.file = snap.file;
    report_.version = snap.version;
  }

  SnapshotReport run() {
    for (const auto& cpu : snap_.cpus) {
      const CpuRaces races = races_of(cpu);
      for (const auto& rq : cpu.cfs_rqs) check_rq(cpu, rq, races);
    }
    return std::move(report_);
  }

 private:
  void add(const std::string& id, Verdict v, Reasons why, int line, std::string at,
           std::string message) {
    report_.checks[id].add(v, why);
    report_.worst = join(report_.worst, v);
    if (v == Verdict::Violated || v == Verdict::Inconclusive)
      report_.findings.push_back({id, v, why, line, std::move(at), std::move(message)});
  }

  CpuRaces races_of(const CpuSnapshot& cpu) const {
    CpuRaces r;
    for (const auto& t : cpu.tasks)
      if (t.current) r.running = &t;
    const auto curr = cpu.curr_pid(snap_.file);
    if (!curr) return r;
    const int64_t marked = r.running ? r.running->pid : 0;
    if (*curr != marked) {
      const int line = cpu.fields.at("curr->pid").line;
      r.curr_changed = ".curr->pid " + std::to_string(*curr) + " (line " + std::to_string(line) +
                       ") but the task list marks " +
                       (r.running ? "pid " + std::to_string(marked) + " running (line " +
                                        std::to_string(r.running->line) + ")"
                                  : std::string("no task running")) +
                       ": the CPU switched between the lines";
    }
    return r;
  }

  // Tasks in state R of this group, and child groups with queued entities (their group entity
  // is queued here, with the weight and vruntime printed as se->… in the child's section).
  std::vector<Queued> queued_on(const CpuSnapshot& cpu, const CfsRqSnapshot& rq,
                                const CpuRaces& races, int& unplaced_rows) {
    std::vector<Queued> q;
    for (const auto& t : cpu.tasks) {
      if (t.state != 'R' || t.group_path != rq.path || !t.prio || !fair_prio(*t.prio) ||
          !t.vruntime_ns)
        continue;
      if (unplaced(t)) {
        ++unplaced_rows;
        continue;
      }
      q.push_back({*t.vruntime_ns, nice_to_weight(*t.prio - 120), t.deadline_ns, &t, t.current});
    }
    for (const auto& child : cpu.cfs_rqs) {
      if (parent_of(child.path) != rq.path ||
          child.integer("nr_queued", snap_.file).value_or(0) == 0)
        continue;
      const auto v = child.time_ns("se->vruntime", snap_.file);
      const auto w = child.integer("se->load.weight", snap_.file);
      const bool running = races.running && under(races.running->group_path, child.path);
      if (v && w) q.push_back({*v, std::max<int64_t>(2, *w >> 10), std::nullopt, nullptr, running});
    }
    return q;
  }

  // Delayed-dequeue sleepers are queued but shown in state S (SPEC.md §4.9); they are
  // ineligible. When exactly as many non-R rows of the group flagged N exist as are missing,
  // they are taken to be those sleepers (a guess: a mismatch then is inconclusive).
  void infer_delayed(const CpuSnapshot& cpu, const CfsRqSnapshot& rq, std::vector<Queued>& q,
                     int64_t missing) {
    std::vector<Queued> candidates;
    for (const auto& t : cpu.tasks)
      if (t.state != 'R' && t.group_path == rq.path && t.eligible == false && t.vruntime_ns &&
          t.prio && fair_prio(*t.prio) && !unplaced(t))
        candidates.push_back(
            {*t.vruntime_ns, nice_to_weight(*t.prio - 120), t.deadline_ns, &t, false, true});
    if (static_cast<int64_t>(candidates.size()) == missing)
      q.insert(q.end(), candidates.begin(), candidates.end());
  }

  void check_rq(const CpuSnapshot& cpu, const CfsRqSnapshot& rq, const CpuRaces& races) {
    const std::string& f = snap_.file;
    const auto avg = rq.time_ns("avg_vruntime", f);
    auto v0 = rq.time_ns("zero_vruntime", f);
    if (!v0) v0 = rq.time_ns("min_vruntime", f);
    auto nr = rq.integer("nr_queued", f);
    std::string nr_key = "nr_queued";
    if (!nr) {
      nr = rq.integer("nr_running", f);
      nr_key = "nr_running";
    }
    if (!avg || !v0 || !nr) {
      report_.notes.push_back(where(rq, nullptr) +
                              ": no avg_vruntime/zero_vruntime/nr_queued in this kernel's "
                              "output; nothing checked");
      return;
    }
    int unplaced_rows = 0;
    std::vector<Queued> q = queued_on(cpu, rq, races, unplaced_rows);
    const int64_t shown = static_cast<int64_t>(q.size());
    std::string set_note;  // why the queued set is not what the rows show
    Reasons set_why;
    bool inferred = false;
    if (shown > *nr) {
      set_why = Reason::UnlockedSnapshotRead;
      set_note = std::to_string(shown) + " entities in state R but " + nr_key + " " +
                 std::to_string(*nr) + " (line " + std::to_string(rq.fields.at(nr_key).line) +
                 "): a task was woken between the cfs_rq lines and the task list";
    } else if (shown < *nr) {
      infer_delayed(cpu, rq, q, *nr - shown);
      inferred = static_cast<int64_t>(q.size()) == *nr;
      if (!inferred) {
        set_why = Reason::QueuedSetUnknown;
        set_note = std::to_string(*nr) + " queued (" + nr_key + ", line " +
                   std::to_string(rq.fields.at(nr_key).line) + ") but " + std::to_string(shown) +
                   " entities in state R: delayed-dequeue sleepers are queued without an R "
                   "state, and which ones is not printed";
      }
    }
    if (!races.curr_changed.empty()) {
      set_why |= Reason::UnlockedSnapshotRead;
      set_note = set_note.empty() ? races.curr_changed : set_note + "; " + races.curr_changed;
    }
    const bool complete = set_note.empty() || (inferred && races.curr_changed.empty());
    __int128 v_list = 0;  // V recomputed from the rows (as of the task list), when has_v_list
    bool has_v_list = false;
    const bool group_running = std::any_of(
        q.begin(), q.end(), [](const Queued& e) { return e.running && e.row == nullptr; });
    if (!q.empty()) {
      if (complete) {
        v_list = check_average(rq, q, *avg, *v0, inferred);
        has_v_list = true;
        if (group_running && !inferred) {
          // The running group entity's vruntime comes from its own section, printed at yet
          // another moment: the rows' average is no firmer than avg_vruntime.
          set_why = Reason::UnlockedSnapshotRead;
          set_note = "the running group entity's vruntime was printed at another moment";
          has_v_list = false;
        }
      } else {
        add(ids::kSnapAvgVruntime, Verdict::Inconclusive, set_why,
            rq.fields.at("avg_vruntime").line, where(rq, nullptr),
            "the queued set is not known: " + set_note);
      }
    }
    for (const Queued& e : q) {
      if (!e.row || e.inferred) continue;
      check_eligible(rq, e, *avg, has_v_list, v_list,
                     complete && !group_running ? std::string() : set_note, set_why);
      check_deadline(rq, e);
    }
    for (const auto& t : cpu.tasks)  // children not yet placed: their rows say nothing yet
      if (t.group_path == rq.path && unplaced(t) && t.deadline_ns && t.slice_ns && t.prio &&
          fair_prio(*t.prio) &&
          (*t.deadline_ns <= 0 ||
           *t.deadline_ns > (*t.slice_ns * kNice0Weight) / nice_to_weight(*t.prio - 120) + 1))
        add(ids::kSnapDeadline, Verdict::Inconclusive, Reason::UnlockedSnapshotRead, t.line,
            where(rq, &t),
            "never run and vruntime " + ns(*t.vruntime_ns) +
                ": listed between fork and its first "
                "placement, with the values it inherited");
    if (!q.empty()) check_left(rq, q, complete ? std::string() : set_note, set_why);
  }

  // SNAP-AVG-VRUNTIME: avg_vruntime = v0 + floor(Σ w·(v − v0) / Σ w) over the queued entities.
  // Returns that average.
  __int128 check_average(const CfsRqSnapshot& rq, const std::vector<Queued>& q, int64_t avg,
                         int64_t v0, bool inferred) {
    __int128 sum = 0, load = 0;
    const Queued* running = nullptr;
    for (const Queued& e : q) {
      sum += static_cast<__int128>(e.vruntime - v0) * e.weight;
      load += e.weight;
      if (e.running) running = &e;
    }
    __int128 floor_div = sum / load;
    if (sum % load != 0 && sum < 0) --floor_div;
    const __int128 expect = v0 + floor_div;
    const int line = rq.fields.at("avg_vruntime").line;
    const std::string msg = "avg_vruntime " + ns(avg) + " (line " + std::to_string(line) +
                            ") but the weighted average of the " + std::to_string(q.size()) +
                            " queued entities is " + ns(expect) + " (off by " + ns(avg - expect) +
                            ")";
    if (expect == avg) {
      add(ids::kSnapAvgVruntime, Verdict::Held, {}, line, where(rq, nullptr), "");
    } else if (inferred) {
      add(ids::kSnapAvgVruntime, Verdict::Inconclusive, Reason::QueuedSetUnknown, line,
          where(rq, nullptr), msg + "; the delayed sleepers of this cfs_rq were guessed");
    } else if (running && (running->row == nullptr || avg < expect)) {
      // The running entity's vruntime only grows, and its row (or, for a group entity, its
      // section) is printed at another moment than avg_vruntime.
      const int at = running->row ? running->row->line : 0;
      add(ids::kSnapAvgVruntime, Verdict::Inconclusive, Reason::UnlockedSnapshotRead, line,
          where(rq, nullptr),
          msg + "; the running " +
              (running->row ? "task's row (line " + std::to_string(at) + ")"
                            : std::string("group entity's section")) +
              " was printed at another moment and its vruntime may have advanced between");
    } else {
      add(ids::kSnapAvgVruntime, Verdict::Violated, {}, line, where(rq, nullptr), msg);
    }
    return expect;
  }

  // SNAP-ELIGIBLE: the E/N flag, computed when the row was printed, says v ≤ V then (V floored,
  // so for integer v this is exact). V then is avg_vruntime if nothing moved, or the average of
  // the rows if the running entity advanced meanwhile.
  void check_eligible(const CfsRqSnapshot& rq, const Queued& e, int64_t avg, bool has_v_list,
                      __int128 v_list, const std::string& set_note, Reasons set_why) {
    if (!e.row->eligible) return;
    const bool flag = *e.row->eligible;
    const bool by_avg = e.vruntime <= avg;
    const std::string msg = std::string("flag ") + (flag ? "E" : "N") + " but v " + ns(e.vruntime) +
                            (by_avg ? " <= " : " > ") + "avg_vruntime " + ns(avg) + " (line " +
                            std::to_string(rq.fields.at("avg_vruntime").line) + ")";
    if (flag == by_avg) {
      add(ids::kSnapEligible, Verdict::Held, {}, e.row->line, where(rq, e.row), "");
    } else if (has_v_list && (e.vruntime <= v_list) == flag && v_list != avg) {
      add(ids::kSnapEligible, Verdict::Inconclusive, Reason::UnlockedSnapshotRead, e.row->line,
          where(rq, e.row),
          msg + "; against the average of the rows, " + ns(v_list) +
              ", it holds: V moved between the cfs_rq lines and this row");
    } else if (!set_note.empty()) {
      add(ids::kSnapEligible, Verdict::Inconclusive, set_why, e.row->line, where(rq, e.row),
          msg + "; " + set_note);
    } else {
      add(ids::kSnapEligible, Verdict::Violated, {}, e.row->line, where(rq, e.row), msg);
    }
  }

  // SNAP-DEADLINE: 0 < d − v ≤ vslice = slice·1024/w (+1 ns for the fixed-point rounding).
  void check_deadline(const CfsRqSnapshot& rq, const Queued& e) {
    if (!e.deadline || !e.row->slice_ns) return;
    const int64_t rest = *e.deadline - e.vruntime;
    const int64_t vslice = (*e.row->slice_ns * kNice0Weight + e.weight - 1) / e.weight + 1;
    const bool low_ok = rest > 0 || e.row->current;  // curr may overrun until update_curr
    const bool held = low_ok && rest <= vslice;
    add(ids::kSnapDeadline, held ? Verdict::Held : Verdict::Violated, {}, e.row->line,
        where(rq, e.row), "deadline - vruntime = " + ns(rest) + ", virtual slice " + ns(vslice));
  }

  // SNAP-LEFT-DEADLINE: left_deadline is the least deadline in the tree (curr is not in it).
  void check_left(const CfsRqSnapshot& rq, const std::vector<Queued>& q,
                  const std::string& set_note, Reasons set_why) {
    const auto left = rq.time_ns("left_deadline", snap_.file);
    if (!left) return;
    std::optional<int64_t> least;
    const Queued* curr = nullptr;
    for (const Queued& e : q) {
      if (!e.row) return;  // a group entity's deadline is not printed
      if (e.running) {
        curr = &e;
        continue;
      }
      if (!e.deadline) return;
      least = least ? std::min(*least, *e.deadline) : *e.deadline;
    }
    if (!least) return;  // empty tree
    const int line = rq.fields.at("left_deadline").line;
    const std::string msg =
        "left_deadline " + ns(*left) + " but the least queued deadline is " + ns(*least);
    if (*least == *left) {
      add(ids::kSnapLeftDeadline, Verdict::Held, {}, line, where(rq, nullptr), "");
    } else if (curr && curr->deadline == *left) {
      add(ids::kSnapLeftDeadline, Verdict::Inconclusive, Reason::UnlockedSnapshotRead, line,
          where(rq, nullptr),
          msg + "; it is the deadline of the running task (line " +
              std::to_string(curr->row->line) +
              "): the leftmost was picked between the cfs_rq lines and the task list");
    } else if (!set_note.empty()) {
      add(ids::kSnapLeftDeadline, Verdict::Inconclusive, set_why, line, where(rq, nullptr),
          msg + "; " + set_note);
    } else {
      add(ids::kSnapLeftDeadline, Verdict::Violated, {}, line, where(rq, nullptr), msg);
    }
  }

  const SchedDebugSnapshot& snap_;
  SnapshotReport report_;
};

}  // namespace

SnapshotReport check_snapshot(const SchedDebugSnapshot& snap) { return Checker(snap).run(); }

}  // namespace vlag::kernel
