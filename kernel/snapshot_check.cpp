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
};

bool fair_prio(int prio) { return prio >= 100 && prio <= 139; }

std::string parent_of(const std::string& path) {
  if (path == "/") return "";
  const size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
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

class Checker {
 public:
  explicit Checker(const SchedDebugSnapshot& snap) : snap_(snap) {
    report_.file = snap.file;
    report_.version = snap.version;
  }

  SnapshotReport run() {
    for (const auto& cpu : snap_.cpus)
      for (const auto& rq : cpu.cfs_rqs) check_rq(cpu, rq);
    return std::move(report_);
  }

 private:
  void add(const std::string& id, bool held, int line, std::string where, std::string message,
           bool violation = true) {
    auto& c = report_.counts[id];
    ++c.checked;
    if (held) return;
    if (violation) ++c.violated;
    report_.findings.push_back({id, line, std::move(where), std::move(message), violation});
  }

  // Tasks in R state of this group, and child groups with queued entities (their group entity
  // is queued here, with the weight and vruntime printed as se->… in the child's section).
  std::vector<Queued> queued_on(const CpuSnapshot& cpu, const CfsRqSnapshot& rq) {
    std::vector<Queued> q;
    for (const auto& t : cpu.tasks) {
      if (t.state != 'R' || t.group_path != rq.path || !t.prio || !fair_prio(*t.prio) ||
          !t.vruntime_ns)
        continue;
      q.push_back({*t.vruntime_ns, nice_to_weight(*t.prio - 120), t.deadline_ns, &t});
    }
    for (const auto& child : cpu.cfs_rqs) {
      if (parent_of(child.path) != rq.path ||
          child.integer("nr_queued", snap_.file).value_or(0) == 0)
        continue;
      const auto v = child.time_ns("se->vruntime", snap_.file);
      const auto w = child.integer("se->load.weight", snap_.file);
      if (v && w) q.push_back({*v, std::max<int64_t>(2, *w >> 10), std::nullopt, nullptr});
    }
    return q;
  }

  void check_rq(const CpuSnapshot& cpu, const CfsRqSnapshot& rq) {
    const std::string& f = snap_.file;
    const auto avg = rq.time_ns("avg_vruntime", f);
    auto v0 = rq.time_ns("zero_vruntime", f);
    if (!v0) v0 = rq.time_ns("min_vruntime", f);
    auto nr = rq.integer("nr_queued", f);
    if (!nr) nr = rq.integer("nr_running", f);
    if (!avg || !v0 || !nr) {
      report_.notes.push_back(where(rq, nullptr) +
                              ": no avg_vruntime/zero_vruntime/nr_queued; skipped");
      return;
    }
    const std::vector<Queued> q = queued_on(cpu, rq);
    const bool complete = static_cast<int64_t>(q.size()) == *nr;

    if (complete && !q.empty())
      check_average(rq, q, *avg, *v0);
    else if (!complete)
      report_.notes.push_back(where(rq, nullptr) + ": nr_queued " + std::to_string(*nr) + " but " +
                              std::to_string(q.size()) +
                              " runnable entities shown (delayed-dequeue sleepers are queued "
                              "without an R state): V not recomputed, left_deadline not checked");

    for (const Queued& e : q) {
      if (!e.row) continue;
      check_eligible(rq, e, *avg);
      check_deadline(rq, e);
    }
    if (complete) check_left(rq, q);
  }

  // SNAP-AVG-VRUNTIME: avg_vruntime = v0 + floor(Σ w·(v − v0) / Σ w) over the queued entities.
  void check_average(const CfsRqSnapshot& rq, const std::vector<Queued>& q, int64_t avg,
                     int64_t v0) {
    __int128 sum = 0, load = 0;
    for (const Queued& e : q) {
      sum += static_cast<__int128>(e.vruntime - v0) * e.weight;
      load += e.weight;
    }
    __int128 floor_div = sum / load;
    if (sum % load != 0 && sum < 0) --floor_div;
    const __int128 expect = v0 + floor_div;
    const auto line = rq.fields.at("avg_vruntime").line;
    add(ids::kSnapAvgVruntime, expect == avg, line, where(rq, nullptr),
        "avg_vruntime " + ns(avg) + " but the weighted average of the " + std::to_string(q.size()) +
            " queued entities is " + ns(expect) + " (off by " + ns(avg - expect) +
            "; the running task may have advanced between the lines)");
  }

  // SNAP-ELIGIBLE: the E/N flag says v ≤ V (V floored, so for integer v this is exact).
  void check_eligible(const CfsRqSnapshot& rq, const Queued& e, int64_t avg) {
    if (!e.row->eligible) return;
    const bool expect = e.vruntime <= avg;
    const bool held = expect == *e.row->eligible;
    const std::string msg = std::string("flag ") + (*e.row->eligible ? "E" : "N") + " but v " +
                            ns(e.vruntime) + (expect ? " <= " : " > ") + "avg_vruntime " + ns(avg);
    if (e.row->current)  // its vruntime is read later than avg_vruntime, and moves while it runs
      add(ids::kSnapEligible, held, e.row->line, where(rq, e.row),
          msg + " (running task: its vruntime is updated lazily, at ticks and events)", false);
    else
      add(ids::kSnapEligible, held, e.row->line, where(rq, e.row), msg);
  }

  // SNAP-DEADLINE: 0 < d − v ≤ vslice = slice·1024/w (+1 ns for the fixed-point rounding).
  void check_deadline(const CfsRqSnapshot& rq, const Queued& e) {
    if (!e.deadline || !e.row->slice_ns) return;
    const int64_t rest = *e.deadline - e.vruntime;
    const int64_t vslice = (*e.row->slice_ns * kNice0Weight + e.weight - 1) / e.weight + 1;
    const bool low_ok = rest > 0 || e.row->current;  // curr may overrun until update_curr
    add(ids::kSnapDeadline, low_ok && rest <= vslice, e.row->line, where(rq, e.row),
        "deadline - vruntime = " + ns(rest) + ", virtual slice " + ns(vslice));
  }

  // SNAP-LEFT-DEADLINE: left_deadline is the least deadline in the tree (curr is not in it).
  void check_left(const CfsRqSnapshot& rq, const std::vector<Queued>& q) {
    const auto left = rq.time_ns("left_deadline", snap_.file);
    if (!left) return;
    std::optional<int64_t> least;
    for (const Queued& e : q) {
      if (e.row && e.row->current) continue;
      if (!e.row) return;  // a group entity's deadline is not printed
      if (!e.deadline) return;
      least = least ? std::min(*least, *e.deadline) : *e.deadline;
    }
    if (!least) return;  // empty tree
    add(ids::kSnapLeftDeadline, *least == *left, rq.fields.at("left_deadline").line,
        where(rq, nullptr),
        "left_deadline " + ns(*left) + " but the least queued deadline is " + ns(*least));
  }

  const SchedDebugSnapshot& snap_;
  SnapshotReport report_;
};

}  // namespace

bool SnapshotReport::ok() const {
  return std::none_of(findings.begin(), findings.end(),
                      [](const SnapshotFinding& f) { return f.violation; });
}

SnapshotReport check_snapshot(const SchedDebugSnapshot& snap) { return Checker(snap).run(); }

}  // namespace vlag::kernel
