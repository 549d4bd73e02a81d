// `vlag kernel …`: checks on what the real Linux kernel exposes. `vlag kernel snapshot FILE|-`
// parses /sys/kernel/debug/sched/debug and checks SNAP-* (SPEC.md §6.1).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "checker/kernel_service.h"
#include "checker/snapshot_check.h"
#include "cli/commands.h"
#include "cli/json_out.h"
#include "cli/kernel_record.h"
#include "sim/stats.h"
#include "spec/error.h"
#include "trace/kernel_import.h"
#include "trace/perf_script.h"
#include "trace/sched_debug.h"
#include "trace/time_merge.h"
#include "trace/writer.h"

namespace vlag::cli {
namespace {

// Events a per-CPU stream may trail the others by and still be merged in time order.
constexpr size_t kMergeWindow = 4096;

struct SnapshotOptions {
  std::vector<std::string> files;
  bool json = false;
};

trace::SchedDebugSnapshot load(const std::string& file) {
  if (file == "-") return trace::parse_sched_debug(std::cin, "<stdin>");
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  return trace::parse_sched_debug(in, file);
}

void print_text(const checker::SnapshotReport& r) {
  fmt::print("{}: sched debug {}\n", r.file, r.version);
  fmt::print("  {:<20} {:>8} {:>8} {:>8}\n", "check", "checked", "held", "violated");
  for (const auto& [id, c] : r.counts)
    fmt::print("  {:<20} {:>8} {:>8} {:>8}\n", id, c.checked, c.checked - c.violated, c.violated);
  for (const auto& f : r.findings)
    fmt::print("  {} {}:{}: {}: {}\n", f.violation ? "VIOLATION" : "note", r.file, f.line, f.id,
               f.where + ": " + f.message);
  for (const auto& n : r.notes) fmt::print("  not checked: {}\n", n);
}

std::string to_json(const checker::SnapshotReport& r) {
  JsonArray counts, findings, notes;
  for (const auto& [id, c] : r.counts)
    counts.add(JsonObject().str("id", id).num("checked", c.checked).num("violated", c.violated));
  for (const auto& f : r.findings)
    findings.add(JsonObject()
                     .str("id", f.id)
                     .num("line", f.line)
                     .str("where", f.where)
                     .str("message", f.message)
                     .boolean("violation", f.violation));
  for (const auto& n : r.notes) notes.add_string(n);
  return JsonObject()
      .str("file", r.file)
      .str("version", r.version)
      .boolean("ok", r.ok())
      .raw("checks", counts.text())
      .raw("findings", findings.text())
      .raw("not_checked", notes.text())
      .text();
}

struct CheckOptions {
  std::vector<std::string> files;
  std::vector<std::string> snapshots;
  std::string groups;
  int hz = 250;
  bool hz_given = false;
  int cpu = -1;
  double starvation_ms = 1000;
  bool keep_going = false;
  bool json = false;
};

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
    const auto lat = sim::summarize(t.delays_ns);
    const auto wake = sim::summarize(t.wakeup_delays_ns);
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
    const auto lat = sim::summarize(t.delays_ns);
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
                  .num("wakeup_delay_p50_ns", sim::summarize(t.wakeup_delays_ns).p50_ns)
                  .num("wakeup_delay_p99_ns", sim::summarize(t.wakeup_delays_ns).p99_ns)
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

int run_check(const CheckOptions& o) {
  checker::KernelCheckOptions ko;
  ko.hz = o.hz;
  ko.starvation_ns = static_cast<int64_t>(o.starvation_ms * 1e6);
  if (o.cpu >= 0) ko.only_cpu = o.cpu;
  for (const auto& s : o.snapshots) checker::learn_from_snapshot(load(s), ko);
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

int run_snapshot(const SnapshotOptions& o) {
  bool ok = true;
  JsonArray all;
  for (const auto& file : o.files) {
    const auto report = checker::check_snapshot(load(file));
    ok = ok && report.ok();
    if (o.json)
      all.add_raw(to_json(report));
    else
      print_text(report);
  }
  if (o.json) fmt::print("{}\n", all.text());
  return ok ? 0 : 1;
}

struct ImportOptions {
  std::string file;
  std::vector<std::string> snapshots;
  std::string out;
  int cpu = 0;
  int hz = 250;
  bool keep_going = false;
};

// perf script text of one CPU → spec/TRACE.md, for `vlag check`.
int run_import(const ImportOptions& o) {
  trace::KernelImportOptions io;
  io.cpu = o.cpu;
  io.hz = o.hz;
  for (const auto& s : o.snapshots) {
    checker::KernelCheckOptions ko;
    checker::learn_from_snapshot(load(s), ko);
    io.slice_of.insert(ko.slice_of.begin(), ko.slice_of.end());
  }
  std::ofstream file;
  if (!o.out.empty() && o.out != "-") {
    file.open(o.out);
    if (!file) throw Error(o.out + ": cannot write");
  }
  std::ostream& out = file.is_open() ? file : std::cout;
  trace::Writer writer(out);
  trace::KernelImporter importer(writer, io, o.file);
  trace::TimeMerger merge(kMergeWindow, [&](const trace::KernelEvent& e) { importer.on_event(e); });
  const auto sink = [&](trace::KernelEvent& e) { merge.push(std::move(e)); };
  trace::PerfParseStats stats;
  if (o.file == "-") {
    stats = trace::parse_perf_script(std::cin, "<stdin>", sink, {o.keep_going});
  } else {
    std::ifstream in(o.file);
    if (!in) throw Error(o.file + ": cannot open");
    stats = trace::parse_perf_script(in, o.file, sink, {o.keep_going});
  }
  merge.flush();
  std::cerr << "vlag kernel import: " << stats.events << " kernel events, " << importer.written()
            << " trace events for cpu " << o.cpu;
  if (stats.skipped) std::cerr << ", " << stats.skipped << " malformed lines skipped";
  std::cerr << "\n";
  return 0;
}

struct LiveOptions {
  RecordOptions record;
  int hz = 250;
  bool hz_given = false;
  bool json = false;
};

int run_record(const LiveOptions& o) {
  const auto missing = record_prerequisites();
  if (!missing.empty()) {
    std::string what;
    for (const auto& m : missing) what += "\n  missing: " + m;
    std::cerr << "vlag kernel record: cannot record here:" << what << "\n";
    return 2;
  }
  const RecordedFiles files = record(o.record);
  if (!o.json)
    fmt::print("recorded into {}: perf.txt and {} snapshots\n\n", files.dir,
               files.snapshots.size());
  SnapshotOptions snaps;
  snaps.files = files.snapshots;
  snaps.json = o.json;
  const int snap_status = files.snapshots.empty() ? 0 : run_snapshot(snaps);
  CheckOptions check;
  check.files = {files.perf_text};
  check.snapshots = files.snapshots;
  check.hz = o.hz;
  check.hz_given = o.hz_given;
  check.cpu = o.record.cpu;
  check.json = o.json;
  if (!o.json) fmt::print("\n");
  const int check_status = run_check(check);
  return std::max(snap_status, check_status);
}

}  // namespace

void add_kernel_command(CLI::App& app, int& exit_code) {
  CLI::App* kernel = app.add_subcommand("kernel", "Check what the real Linux kernel exposes");
  kernel->require_subcommand(1);
  auto opts = std::make_shared<SnapshotOptions>();
  CLI::App* snap = kernel->add_subcommand(
      "snapshot", "Check /sys/kernel/debug/sched/debug snapshots (SNAP-* checks, SPEC.md 6.1)");
  snap->add_option("files", opts->files, "Snapshot files, or - for standard input")->required();
  snap->add_flag("--json", opts->json, "Machine-readable output");
  snap->callback([opts, &exit_code] { exit_code = run_snapshot(*opts); });

  auto copts = std::make_shared<CheckOptions>();
  CLI::App* check = kernel->add_subcommand(
      "check", "Check perf script / trace-cmd report text of the sched tracepoints (SPEC.md 6.2)");
  check->add_option("files", copts->files, "perf script text files, or - for standard input")
      ->required();
  check->add_option("--snapshot", copts->snapshots,
                    "sched debug snapshot(s): task groups, custom slices, base slice");
  check->add_option("--groups", copts->groups, "File of 'PID GROUP' lines: the task groups");
  check->add_option("--hz", copts->hz, "The kernel's CONFIG_HZ")
      ->check(CLI::Range(100, 1000))
      ->each([copts](const std::string&) { copts->hz_given = true; });
  check->add_option("--cpu", copts->cpu, "Only account this CPU");
  check->add_option("--starvation-ms", copts->starvation_ms, "Longest acceptable wait")
      ->capture_default_str();
  check->add_flag("--keep-going", copts->keep_going, "Skip and count malformed lines");
  check->add_flag("--json", copts->json, "Machine-readable output");
  check->callback([copts, &exit_code] { exit_code = run_check(*copts); });

  auto iopts = std::make_shared<ImportOptions>();
  CLI::App* imp = kernel->add_subcommand(
      "import", "Write one CPU's fair-class events of a perf script text as a spec/TRACE.md trace");
  imp->add_option("file", iopts->file, "perf script text, or - for standard input")->required();
  imp->add_option("--cpu", iopts->cpu, "The CPU whose runqueue becomes the trace")
      ->capture_default_str();
  imp->add_option("--snapshot", iopts->snapshots, "sched debug snapshot(s): custom slices");
  imp->add_option("--hz", iopts->hz, "The kernel's CONFIG_HZ")->check(CLI::Range(100, 1000));
  imp->add_option("-o,--out", iopts->out, "Output file (default: standard output)");
  imp->add_flag("--keep-going", iopts->keep_going, "Skip and count malformed lines");
  imp->callback([iopts, &exit_code] { exit_code = run_import(*iopts); });

  auto lopts = std::make_shared<LiveOptions>();
  CLI::App* rec = kernel->add_subcommand(
      "record", "Record the sched tracepoints and snapshots around a command, then check them");
  rec->add_option("--cpu", lopts->record.cpu, "Record only this CPU (default: all)");
  rec->add_option("--duration", lopts->record.duration_s,
                  "Seconds to record (stops the command after that long)")
      ->check(CLI::Range(0.1, 3600.0));
  rec->add_option("--out", lopts->record.out_dir, "Directory for perf.data, perf.txt, snapshots");
  rec->add_option("--hz", lopts->hz, "The kernel's CONFIG_HZ")
      ->check(CLI::Range(100, 1000))
      ->each([lopts](const std::string&) { lopts->hz_given = true; });
  rec->add_flag("--json", lopts->json, "Machine-readable output");
  rec->add_option("command", lopts->record.command, "Command to run (after --)");
  rec->callback([lopts, &exit_code] { exit_code = run_record(*lopts); });
}

}  // namespace vlag::cli
