// `vlag kernel check FILE|-`: perf script / trace-cmd report text of the sched tracepoints
// through the kernel service layer (SPEC.md §6.2), printed like perf sched latency.
#include <fmt/format.h>

#include <map>

#include "json/writer.h"
#include "cli/kernel_commands.h"
#include "kernel/capture_reader.h"
#include "kernel/check_options.h"
#include "kernel/service.h"
#include "stats/stats.h"

namespace vlag::cli {
namespace {

std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

void print_kernel_text(const kernel::KernelReport& r, const kernel::PerfParseStats& stats,
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

std::string kernel_json(const kernel::KernelReport& r) {
  json::Array tasks, checks, problems;
  for (const auto& [pid, t] : r.tasks) {
    const auto lat = stats::summarize(t.delays_ns);
    tasks.add(json::Object()
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
    checks.add(json::Object().str("id", id).num("checked", c.checked).num("violated", c.violated));
  for (const auto& p : r.problems)
    problems.add(json::Object().num("line", p.line).num("cpu", p.cpu).str("message", p.message));
  return json::Object()
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
  kernel::KernelCheckOptions ko;
  ko.hz = o.hz;
  ko.starvation_ns = static_cast<int64_t>(o.starvation_ms * 1e6);
  if (o.cpu >= 0) ko.only_cpu = o.cpu;
  for (const auto& s : o.snapshots) kernel::learn_from_snapshot(kernel::load_snapshot(s), ko);
  if (!o.groups.empty()) kernel::read_group_map(o.groups, ko);
  bool ok = true;
  json::Array all;
  for (const auto& file : o.files) {
    kernel::KernelServiceLayer layer(kernel::capture_name(file), ko);
    const auto stats = kernel::read_perf_capture(
        file, [&](const kernel::KernelEvent& e) { layer.on_event(e); }, {o.keep_going});
    const auto report = layer.finish();
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
