#include "cli/kernel_check_report.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <vector>

#include "cli/json_envelope.h"
#include "cli/verdict_json.h"
#include "json/writer.h"
#include "stats/stats.h"

namespace vlag::cli {
namespace {

using kernel::KernelReport;
using kernel::Range;
using kernel::TaskService;

std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string range_ms(Range r) { return r.is_exact() ? ms(r.lo) : ms(r.lo) + ".." + ms(r.hi); }

// One row of the share table: a task, or a child group, inside a group.
struct ShareRow {
  std::string name;
  bool is_group = false;
  int64_t pid = 0;
  double runtime = 0, ideal = 0, received = 0;
  bool exact = true;  // the fluid figures rest on known weights only
};

struct GroupTable {
  std::vector<ShareRow> rows;
  double runtime = 0, received = 0;
};

// Every group that holds a task that ran, with its direct tasks and child groups as rows.
std::map<std::string, GroupTable> share_tables(const KernelReport& r) {
  std::map<std::string, GroupTable> tables;
  for (const auto& [pid, t] : r.tasks) {
    if (t.runtime_ns <= 0) continue;
    const std::string g = t.group_known ? t.group : "?";
    tables[g].rows.push_back({t.comm + ":" + std::to_string(pid), false, pid,
                              static_cast<double>(t.runtime_ns), t.ideal_ns, t.fluid_received_ns,
                              t.ideal_exact});
  }
  for (const auto& [path, g] : r.groups) {
    if (g.runtime_ns <= 0) continue;
    tables[parent_of(path)].rows.push_back({"group " + path, true, 0,
                                            static_cast<double>(g.runtime_ns), g.ideal_ns,
                                            g.fluid_received_ns, g.ideal_exact});
  }
  for (auto& [path, t] : tables)
    for (const auto& row : t.rows) {
      t.runtime += row.runtime;
      t.received += row.received;
    }
  return tables;
}

// The verdict of `id` on a task ("comm:pid"), or on a group: the join of its entities' verdicts
// on every CPU ("group PATH on cpuN"); nullopt when the check never saw it.
std::optional<Verdict> verdict_on(const KernelReport& r, const std::string& id,
                                  const std::string& subject, bool is_group) {
  const auto it = r.verdict_of.find(id);
  if (it == r.verdict_of.end()) return std::nullopt;
  if (!is_group) {
    const auto v = it->second.find(subject);
    return v == it->second.end() ? std::nullopt : std::optional(v->second);
  }
  const std::string prefix = subject + " on cpu";
  std::optional<Verdict> joined;
  for (auto v = it->second.lower_bound(prefix);
       v != it->second.end() && v->first.compare(0, prefix.size(), prefix) == 0; ++v)
    joined = joined ? join(*joined, v->second) : v->second;
  return joined;
}

std::string verdict_cell(const KernelReport& r, const std::string& id, const ShareRow& row) {
  const auto v = verdict_on(r, id, row.name, row.is_group);
  if (!v) return "-";
  return *v == Verdict::NotApplicable ? "n/a" : std::string(verdict_name(*v));
}

void print_shares(const KernelReport& r) {
  fmt::print(
      "\nCPU share of every task that ran, inside its group, and of every group inside its "
      "parent (share: part of the group's run time; ideal: the renormalised fluid share, "
      "SPEC.md §6.2, '-' where a weight it rests on is unknown):\n");
  for (const auto& [path, table] : share_tables(r)) {
    if (table.runtime <= 0) continue;
    const auto g = r.groups.find(path);
    std::string head =
        path == "?" ? "tasks of unknown group (no snapshot or map names them)" : "group " + path;
    if (g != r.groups.end() && g->second.shares)
      head += fmt::format(
          " (shares {}: {})",
          g->second.shares->is_exact()
              ? fmt::format("{:.0f}", g->second.shares->lo)
              : fmt::format("{:.0f}..{:.0f}", g->second.shares->lo, g->second.shares->hi),
          g->second.shares_source);
    fmt::print(" {}: {} ms of CPU\n", head, ms(table.runtime));
    fmt::print("  {:<30} {:>6} {:>13} {:>11} {:>8} {:>8} {:>8} {:>9} {:>9} {:>12} {:>12}\n", "Task",
               "weight", "slice ms", "runtime ms", "share", "ideal", "diff pp", "min lag",
               "max lag", "THM-SHARE", "THM-LAG");
    for (const auto& row : table.rows) {
      const double share = 100 * row.runtime / table.runtime;
      const bool has_ideal = table.received > 0 && row.received > 0 && row.exact;
      const double ideal = has_ideal ? 100 * row.ideal / table.received : 0;
      std::string weight = "-", slice = "-", min_lag = "-", max_lag = "-";
      if (!row.is_group) {
        const TaskService& t = r.tasks.at(row.pid);
        weight = std::to_string(t.weight);
        slice = range_ms(t.slice_ns);
        if (t.ideal_exact) {
          min_lag = ms(t.min_lag_ns);
          max_lag = ms(t.max_lag_ns);
        }
      }
      fmt::print("  {:<30} {:>6} {:>13} {:>11} {:>7.2f}% {:>8} {:>8} {:>9} {:>9} {:>12} {:>12}\n",
                 row.name, weight, slice, ms(row.runtime), share,
                 has_ideal ? fmt::format("{:.2f}%", ideal) : "-",
                 has_ideal ? fmt::format("{:+.2f}", share - ideal) : "-", min_lag, max_lag,
                 verdict_cell(r, "THM-SHARE", row), verdict_cell(r, "THM-LAG-BOUND-LINUX", row));
      if (row.is_group) continue;
      const TaskService& t = r.tasks.at(row.pid);
      if (t.phases.size() < 2) continue;
      for (const auto& ph : t.phases)
        fmt::print("    phase nice {:>3} (weight {:>5}) {:.6f} .. {:.6f} s: runtime {} ms, {}\n",
                   ph.prio - 120, ph.weight, static_cast<double>(ph.from_ns) / 1e9,
                   static_cast<double>(ph.to_ns) / 1e9, ms(static_cast<double>(ph.runtime_ns)),
                   ph.ideal_exact ? fmt::format("fluid ideal {} ms of {} ms", ms(ph.ideal_ns),
                                                ms(ph.fluid_received_ns))
                                  : std::string("no fluid ideal (a weight of its cfs_rq unknown)"));
    }
  }
}

void print_checks(const KernelReport& r) {
  fmt::print("\n {:<22} {:>8} {:>8} {:>13} {:>9} {:>6}\n", "check", "checked", "held",
             "inconclusive", "violated", "n/a");
  for (const auto& [id, c] : r.checks) {
    fmt::print(" {:<22} {:>8} {:>8} {:>13} {:>9} {:>6}\n", id, c.checked(), c.held, c.inconclusive,
               c.violated, c.not_applicable);
    std::string inc, na;
    for (size_t i = 0; i < kReasonCount; ++i) {
      const auto name = reason_name(static_cast<Reason>(i));
      if (c.inconclusive_by_reason[i])
        inc += fmt::format("{}{} {}", inc.empty() ? "" : ", ", name, c.inconclusive_by_reason[i]);
      if (c.not_applicable_by_reason[i])
        na += fmt::format("{}{} {}", na.empty() ? "" : ", ", name, c.not_applicable_by_reason[i]);
    }
    if (!inc.empty()) fmt::print("   inconclusive: {}\n", inc);
    if (!na.empty()) fmt::print("   not applicable: {}\n", na);
  }
  constexpr size_t kShown = 40;
  std::map<std::string, size_t> shown;
  for (const auto& f : r.findings) {
    if (f.verdict == Verdict::Inconclusive && shown[f.id]++ >= kShown) continue;
    const std::string at = f.line ? fmt::format("{}:{}: ", r.file, f.line) : "";
    if (f.verdict == Verdict::Violated)
      fmt::print(" VIOLATION {}{}: {}: {}\n", at, f.id, f.subject, f.message);
    else
      fmt::print(" inconclusive ({}) {}{}: {}: {}\n", reasons_text(f.reasons), at, f.id, f.subject,
                 f.message);
  }
  for (const auto& [id, n] : shown)
    if (n > kShown)
      fmt::print(" … and {} more inconclusive {} (--json lists them all)\n", n - kShown, id);
}

void print_trace_notes(const KernelReport& r, const kernel::PerfParseStats& stats) {
  if (!r.unrecorded.empty()) {
    fmt::print(" unrecorded switches (their windows are excluded from what is measured):\n");
    for (const auto& [pid, u] : r.unrecorded) {
      const std::string who =
          pid == 0 ? std::string("the idle task")
                   : fmt::format("pid {} ({}; the tracer records nothing while it runs)", pid,
                                 r.tasks.count(pid) ? r.tasks.at(pid).comm : "?");
      fmt::print("  out of {}: {} windows, {} ms\n", who, u.windows,
                 ms(static_cast<double>(u.total_ns)));
    }
  }
  if (stats.skipped)
    fmt::print(" skipped {} malformed lines (first: {})\n", stats.skipped, stats.first_error);
  fmt::print(" trace problems: {}\n", r.problem_count);
  for (const auto& p : r.problems)
    fmt::print("  {}:{}: cpu{}: {}\n", r.file, p.line, p.cpu, p.message);
  if (r.problem_count > static_cast<int64_t>(r.problems.size()))
    fmt::print("  … and {} more not shown\n",
               r.problem_count - static_cast<int64_t>(r.problems.size()));
}

}  // namespace

void print_kernel_text(const KernelReport& r, const kernel::PerfParseStats& stats, bool hz_given,
                       const std::string& extra) {
  std::string cpus;
  for (const int c : r.recorded_cpus) cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
  fmt::print("{}: {} events, {:.6f} s .. {:.6f} s; CPUs recorded: {} of {} ({}){}\n", r.file,
             stats.events, static_cast<double>(r.first_ns) / 1e9,
             static_cast<double>(r.last_ns) / 1e9, cpus.empty() ? "none" : cpus, r.machine_cpus,
             r.machine_cpus_source,
             r.all_cpus_recorded ? "" : " — verdicts that need the others are inconclusive");
  if (r.options.only_cpu) fmt::print("judged: cpu{} only (--cpu)\n", *r.options.only_cpu);
  fmt::print(
      "bounds: base slice {} ms ({}), TICK = {} ms (HZ {}{}); slices of tasks no snapshot "
      "lists: 0.1..100 ms\n",
      range_ms(r.base_slice_ns), r.base_slice_source, ms(static_cast<double>(r.tick_ns)),
      r.options.hz, hz_given ? "" : ", assumed; set --hz");
  fmt::print("groups: {}\n\n", r.options.group_source == "none"
                                   ? std::string("none given (give --snapshot or --groups): "
                                                 "checks that need them are inconclusive")
                                   : r.options.group_source);
  fmt::print(" {:<24}|{:>12} |{:>9} |{:>13} |{:>13} |{:>17} |{:>12} |{:>12}\n", "Task",
             "Runtime ms", "Switches", "Avg delay ms", "Max delay ms", "Max delay at",
             "wake p50 ms", "wake p99 ms");
  fmt::print(" {:-<125}\n", "");
  for (const auto& [pid, t] : r.tasks) {
    if (t.switches == 0 && t.runtime_ns == 0) continue;
    const auto wake = stats::summarize(t.wakeup_delays);
    fmt::print(" {:<24}|{:>12} |{:>9} |{:>13} |{:>13} |{:>15.6f} s |{:>12} |{:>12}\n",
               t.comm + ":" + std::to_string(pid), ms(static_cast<double>(t.runtime_ns)),
               t.switches, ms(t.delays.avg_ns()), ms(static_cast<double>(t.delays.max_ns)),
               static_cast<double>(t.max_delay_at_ns) / 1e9, ms(static_cast<double>(wake.p50_ns)),
               ms(static_cast<double>(wake.p99_ns)));
  }
  fmt::print("{}", extra);
  print_shares(r);
  print_checks(r);
  print_trace_notes(r, stats);
  fmt::print(" result: {}\n", std::string(verdict_name(r.worst)));
}

std::string kernel_json(const KernelReport& r, const kernel::PerfParseStats& stats,
                        const std::string& extra_key, const std::string& extra) {
  const auto tables = share_tables(r);
  const auto share_in = [&](const std::string& group, double runtime) {
    const auto t = tables.find(group);
    return t == tables.end() || t->second.runtime <= 0 ? 0.0 : 100 * runtime / t->second.runtime;
  };
  // A fluid figure, or null where a weight it rests on is unknown.
  const auto figure = [](json::Object& o, const std::string& key, bool exact, double value) {
    if (exact)
      o.real(key, value);
    else
      o.raw(key, "null");
  };
  const auto ideal_in = [&](const std::string& group, double ideal) {
    const auto t = tables.find(group);
    return t == tables.end() || t->second.received <= 0 ? 0.0 : 100 * ideal / t->second.received;
  };
  const auto verdicts = [&](const std::string& subject, bool is_group) {
    json::Object v;
    for (const auto& [id, subjects] : r.verdict_of)
      if (const auto it = verdict_on(r, id, subject, is_group))
        v.str(id, std::string(verdict_name(*it)));
    return v.text();
  };
  json::Array tasks, groups, checks, problems, unrecorded;
  for (const auto& [pid, t] : r.tasks) {
    const auto wake = stats::summarize(t.wakeup_delays);
    const std::string group = t.group_known ? t.group : "?";
    json::Array phases;
    for (const auto& ph : t.phases) {
      json::Object p;
      p.num("prio", ph.prio)
          .num("weight", ph.weight)
          .num("from_ns", ph.from_ns)
          .num("to_ns", ph.to_ns)
          .num("runtime_ns", ph.runtime_ns);
      figure(p, "ideal_ns", ph.ideal_exact, ph.ideal_ns);
      p.real("fluid_received_ns", ph.fluid_received_ns);
      phases.add(p);
    }
    json::Object o;
    o.num("pid", pid).str("comm", t.comm).str("group", group).num("weight", t.weight);
    if (t.slice_ns.is_exact())
      o.real("slice_ns", t.slice_ns.lo);
    else
      o.raw("slice_ns", "null")
          .raw("slice_range_ns", fmt::format("[{},{}]", t.slice_ns.lo, t.slice_ns.hi));
    o.num("runtime_ns", t.runtime_ns)
        .real("share_pct", share_in(group, static_cast<double>(t.runtime_ns)));
    figure(o, "ideal_share_pct", t.ideal_exact, ideal_in(group, t.ideal_ns));
    figure(o, "ideal_ns", t.ideal_exact, t.ideal_ns);
    o.real("fluid_received_ns", t.fluid_received_ns);
    figure(o, "min_lag_ns", t.ideal_exact, t.min_lag_ns);
    figure(o, "max_lag_ns", t.ideal_exact, t.max_lag_ns);
    o.num("switches", t.switches)
        .real("delay_avg_ns", t.delays.avg_ns())
        .num("delay_max_ns", t.delays.max_ns)
        .num("wakeup_delay_p50_ns", wake.p50_ns)
        .num("wakeup_delay_p99_ns", wake.p99_ns)
        .num("longest_wait_ns", t.longest_wait_ns)
        .raw("phases", phases.text())
        .raw("verdicts", verdicts(t.comm + ":" + std::to_string(pid), false));
    tasks.add(o);
  }
  for (const auto& [path, g] : r.groups) {
    json::Object o;
    o.str("path", path).num("runtime_ns", g.runtime_ns);
    o.real("share_pct", share_in(parent_of(path), static_cast<double>(g.runtime_ns)));
    figure(o, "ideal_share_pct", g.ideal_exact, ideal_in(parent_of(path), g.ideal_ns));
    if (g.shares && g.shares->is_exact())
      o.real("shares", g.shares->lo);
    else if (g.shares)
      o.raw("shares", fmt::format("[{},{}]", g.shares->lo, g.shares->hi));
    else
      o.raw("shares", "null");
    if (g.shares) o.str("shares_source", g.shares_source);
    o.raw("verdicts", verdicts("group " + path, true));
    groups.add(o);
  }
  for (const auto& [id, c] : r.checks) checks.add_raw(tally_json(id, c));
  for (const auto& p : r.problems)
    problems.add(json::Object().num("line", p.line).num("cpu", p.cpu).str("message", p.message));
  for (const auto& [pid, u] : r.unrecorded)
    unrecorded.add(
        json::Object().num("pid", pid).num("windows", u.windows).num("total_ns", u.total_ns));
  json::Array cpus;
  for (const int c : r.recorded_cpus) cpus.add_raw(std::to_string(c));
  json::Object o;
  o.str("file", r.file)
      .boolean("ok", r.ok())
      .str("verdict", std::string(verdict_name(r.worst)))
      .num("events", stats.events)
      .num("skipped_lines", stats.skipped)
      .num("first_ns", r.first_ns)
      .num("last_ns", r.last_ns)
      .raw("recorded_cpus", cpus.text())
      .num("machine_cpus", r.machine_cpus)
      .boolean("all_cpus_recorded", r.all_cpus_recorded)
      .real("base_slice_ns", r.base_slice_ns.lo)
      .str("base_slice_source", r.base_slice_source)
      .num("tick_ns", r.tick_ns)
      .str("groups_source", r.options.group_source)
      .raw("tasks", tasks.text())
      .raw("groups", groups.text())
      .raw("checks", checks.text())
      .raw("unrecorded_switches", unrecorded.text())
      .num("trace_problem_count", r.problem_count)
      .num("trace_problems_left_out", r.problem_count - static_cast<int64_t>(r.problems.size()))
      .raw("trace_problems", problems.text());
  if (!extra_key.empty()) o.raw(extra_key, extra);
  return o.text();
}

void add_to_envelope(const KernelReport& r, Envelope& envelope) {
  for (const auto& [id, c] : r.checks) add_tally(c, envelope);
  for (const auto& f : r.findings) {
    EnvelopeFinding e = envelope_finding(f.id, f.verdict, f.reasons, r.file, f.line, f.message);
    e.cpu = f.cpu;
    e.subject = f.subject;
    envelope.add(std::move(e));
  }
}

}  // namespace vlag::cli
