// `vlag kernel check FILE|-`: perf script / trace-cmd report text of the sched tracepoints
// through the kernel service layer (SPEC.md §6.2), printed like perf sched latency.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "checker/kernel_service.h"
#include "cli/json_out.h"
#include "cli/kernel_commands.h"
#include "spec/error.h"
#include "stats/stats.h"
#include "trace/perf_script.h"
#include "trace/time_merge.h"

namespace vlag::cli {
namespace {

// Streams one perf script text through the kernel service layer.
checker::KernelReport check_file(const std::string& file, const checker::KernelCheckOptions& ko,
                                 bool keep_going, trace::PerfParseStats& stats) {
  checker::KernelServiceLayer layer(file == "-" ? "<stdin>" : file, ko);
  trace::TimeMerger merge(kMergeWindow, [&](const trace::KernelEvent& e) { layer.on_event(e); });
  const auto sink = [&](trace::KernelEvent& e) { merge.push(std::move(e)); };
  if (file == "-") {
    stats = trace::parse_perf_script(std::cin, "<stdin>", sink, {keep_going});
  } else {
    std::ifstream in(file);
    if (!in) throw Error(file + ": cannot open");
    stats = trace::parse_perf_script(in, file, sink, {keep_going});
  }
  merge.flush();
  return layer.finish();
}

// "PID GROUP" per line, '#' comments: a user-given group map.
void read_group_map(const std::string& file, checker::KernelCheckOptions& o) {
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    int64_t pid = 0;
    std::string group;
    if (!(ss >> pid >> group))
      throw Error(file + ":" + std::to_string(n) + ": expected 'PID GROUP'");
    o.group_of[pid] = group;
  }
  o.group_source = "group map " + file;
}

std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

void print_kernel_text(const checker::KernelReport& r, const trace::PerfParseStats& stats,
                       bool hz_given) {
  fmt::print("{}: {} events, {:.6f} s .. {:.6f} s, {} CPUs\n", r.file, stats.events,
             static_cast<double>(r.first_ns) / 1e9, static_cast<double>(r.last_ns) / 1e9, r.ncpus);
  fmt::print(
      "bounds: base slice r = {} ms{}, TICK = {} ms (HZ {}{}), lag clamp max(2r, TICK) = {} ms\n",
      ms(static_cast<double>(r.slice_ns)),
      r.options.base_slice_ns ? "" : " (linux-6.18 default for this CPU count)",
      ms(static_cast<double>(r.tick_ns)), r.options.hz, hz_given ? "" : ", assumed; set --hz",
      ms(static_cast<double>(std::max(2 * r.slice_ns, r.tick_ns))));
  fmt::print("groups: {}\n\n", r.options.group_source);
  fmt::print(" {:<24}|{:>12} |{:>9} |{:>10} |{:>10} |{:>17} |{:>8} |{:>8}\n", "Task", "Runtime ms",
             "Switches", "Avg delay", "Max delay", "Max delay at", "wake p50", "wake p99");
  fmt::print(" {:-<110}\n", "");
  for (const auto& [pid, t] : r.tasks) {
    if (t.switches == 0) continue;
    const auto lat = stats::summarize(t.delays_ns);
    const auto wake = stats::summarize(t.wakeup_delays_ns);
    fmt::print(" {:<24}|{:>12} |{:>9} |{:>10} |{:>10} |{:>15.6f} s |{:>8} |{:>8}\n",
               t.comm + ":" + std::to_string(pid), ms(static_cast<double>(t.runtime_ns)),
               t.switches, ms(lat.avg_ns), ms(static_cast<double>(lat.max_ns)),
               static_cast<double>(t.max_delay_at_ns) / 1e9, ms(static_cast<double>(wake.p50_ns)),
               ms(static_cast<double>(wake.p99_ns)));
  }
  std::map<std::string, double> group_total;
  for (const auto& [pid, t] : r.tasks) group_total[t.group] += t.counted_ns;
  fmt::print(
      "\nCPU share inside each group while runnable (fluid ideal = weighted share of the "
      "group's time among its runnable tasks):\n");
  fmt::print(" {:<24} {:<16} {:>6} {:>11} {:>11} {:>8} {:>8} {:>8} {:>10} {:>10}\n", "Task",
             "group", "weight", "got ms", "ideal ms", "share", "ideal", "diff pp", "min lag",
             "max lag");
  for (const auto& [pid, t] : r.tasks) {
    const double total = group_total[t.group];
    if (t.counted_ns <= 0 || total <= 0) continue;
    fmt::print(" {:<24} {:<16} {:>6} {:>11} {:>11} {:>7.2f}% {:>7.2f}% {:>+8.2f} {:>10} {:>10}\n",
               t.comm + ":" + std::to_string(pid), t.group, t.weight, ms(t.counted_ns),
               ms(t.ideal_ns), 100 * t.counted_ns / total, 100 * t.ideal_ns / total,
               100 * (t.counted_ns - t.ideal_ns) / total, ms(t.min_lag_ns), ms(t.max_lag_ns));
  }
  fmt::print("\n {:<22} {:>8} {:>8} {:>8}\n", "check", "checked", "held", "violated");
  for (const auto& [id, c] : r.counts)
    fmt::print(" {:<22} {:>8} {:>8} {:>8}\n", id, c.checked, c.checked - c.violated, c.violated);
  for (const auto& f : r.findings) fmt::print(" VIOLATION {}: {}: {}\n", f.id, f.where, f.message);
  if (stats.skipped)
    fmt::print(" skipped {} malformed lines (first: {})\n", stats.skipped, stats.first_error);
  fmt::print(" trace problems: {} (task windows restarted after them: {})\n", r.problems.size(),
             r.restarted_windows);
  for (const auto& p : r.problems)
    fmt::print("  {}:{}: cpu{}: {}\n", r.file, p.line, p.cpu, p.message);
}

std::string kernel_json(const checker::KernelReport& r) {
  JsonArray tasks, checks, problems;
  for (const auto& [pid, t] : r.tasks) {
    const auto lat = stats::summarize(t.delays_ns);
    tasks.add(JsonObject()
                  .num("pid", pid)
                  .str("comm", t.comm)
                  .str("group", t.group)
                  .num("weight", t.weight)
                  .num("runtime_ns", t.runtime_ns)
                  .num("switches", t.switches)
                  .real("received_ns", t.counted_ns)
                  .real("ideal_ns", t.ideal_ns)
                  .real("min_lag_ns", t.min_lag_ns)
                  .real("max_lag_ns", t.max_lag_ns)
                  .real("delay_avg_ns", lat.avg_ns)
                  .num("delay_max_ns", lat.max_ns)
                  .num("wakeup_delay_p50_ns", stats::summarize(t.wakeup_delays_ns).p50_ns)
                  .num("wakeup_delay_p99_ns", stats::summarize(t.wakeup_delays_ns).p99_ns)
                  .num("longest_wait_ns", t.longest_wait_ns));
  }
  for (const auto& [id, c] : r.counts)
    checks.add(JsonObject().str("id", id).num("checked", c.checked).num("violated", c.violated));
  for (const auto& p : r.problems)
    problems.add(JsonObject().num("line", p.line).num("cpu", p.cpu).str("message", p.message));
  return JsonObject()
      .str("file", r.file)
      .boolean("ok", r.ok())
      .num("slice_ns", r.slice_ns)
      .num("tick_ns", r.tick_ns)
      .str("groups", r.options.group_source)
      .raw("tasks", tasks.text())
      .raw("checks", checks.text())
      .raw("trace_problems", problems.text())
      .text();
}

}  // namespace

int run_kernel_check(const CheckOptions& o) {
  checker::KernelCheckOptions ko;
  ko.hz = o.hz;
  ko.starvation_ns = static_cast<int64_t>(o.starvation_ms * 1e6);
  if (o.cpu >= 0) ko.only_cpu = o.cpu;
  for (const auto& s : o.snapshots) checker::learn_from_snapshot(load_snapshot(s), ko);
  if (!o.groups.empty()) read_group_map(o.groups, ko);
  bool ok = true;
  JsonArray all;
  for (const auto& file : o.files) {
    trace::PerfParseStats stats;
    const auto report = check_file(file, ko, o.keep_going, stats);
    ok = ok && report.ok();
    if (o.json)
      all.add_raw(kernel_json(report));
    else
      print_kernel_text(report, stats, o.hz_given);
  }
  if (o.json) fmt::print("{}\n", all.text());
  return ok ? 0 : 1;
}

}  // namespace vlag::cli
