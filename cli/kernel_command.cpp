// `vlag kernel …`: checks on what the real Linux kernel exposes. This file registers the
// subcommands and runs `record`, which captures and then checks with `snapshot` and `check`.
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli/kernel_commands.h"
#include "cli/kernel_replay_command.h"
#include "kernel/record.h"

namespace vlag::cli {
namespace {

struct LiveOptions {
  kernel::RecordOptions record;
  int hz = 250;
  bool hz_given = false;
  bool json = false;
  bool strict = false;
  bool keep_going = false;
};

int run_record(const LiveOptions& o) {
  return with_filesystem_errors("vlag kernel record", [&] {
    const auto missing = kernel::record_prerequisites();
    if (!missing.empty()) {
      std::string what;
      for (const auto& m : missing) what += "\n  missing: " + m;
      throw Error("kernel record: cannot record here:" + what);
    }
    const kernel::RecordedFiles files = kernel::record(o.record);
    if (!o.json)
      fmt::print("recorded into {}: perf.txt and {} snapshots\n\n", files.dir,
                 files.snapshots.size());
    // Under --json one report: the snapshots' and the capture's verdicts in one envelope.
    Envelope envelope("kernel record");
    json::Array snapshot_files, capture_files;
    const JsonPart snapshot_part{envelope, snapshot_files}, capture_part{envelope, capture_files};
    SnapshotOptions snaps;
    snaps.files = files.snapshots;
    snaps.json = o.json;
    snaps.strict = o.strict;
    snaps.keep_going = o.keep_going;
    const int snap_status =
        files.snapshots.empty() ? 0 : run_kernel_snapshot(snaps, o.json ? &snapshot_part : nullptr);
    CheckOptions check;
    check.files = {files.perf_text};
    check.snapshots = files.snapshots;
    check.hz = o.hz;
    check.hz_given = o.hz_given;
    check.cpu = o.record.cpu;
    check.json = o.json;
    check.strict = o.strict;
    check.keep_going = o.keep_going;
    if (!o.json) fmt::print("\n");
    const int check_status = run_kernel_check(check, o.json ? &capture_part : nullptr);
    const int code = std::max(snap_status, check_status);
    if (o.json)
      fmt::print("{}\n", envelope.object(code)
                             .str("dir", files.dir)
                             .array("snapshots", snapshot_files)
                             .array("files", capture_files)
                             .text());
    return code;
  });
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
  snap->add_flag("--strict", opts->strict, "Exit 1 when a check is inconclusive too");
  snap->add_flag("--keep-going", opts->keep_going,
                 "Skip and count malformed lines (exit 2 if any was skipped)");
  snap->callback([opts, &exit_code] { exit_code = run_kernel_snapshot(*opts); });

  auto copts = std::make_shared<CheckOptions>();
  CLI::App* check = kernel->add_subcommand(
      "check",
      "Check a capture of the sched tracepoints: perf script / trace-cmd report text, perf.data "
      "or trace.dat (SPEC.md 6.2)");
  check
      ->add_option("files", copts->files,
                   "Captures: perf script / trace-cmd report text, perf.data (read by vlag "
                   "itself), trace.dat; - for standard input (a binary one only redirected from "
                   "a file)")
      ->required();
  check->add_option("--snapshot", copts->snapshots,
                    "sched debug snapshot(s): task groups, custom slices, base slice");
  check->add_option("--groups", copts->groups,
                    "File of 'PID GROUP' and 'GROUP cpu.shares|cpu.weight N' lines: task groups "
                    "and their shares");
  check->add_option("--hz", copts->hz, "The kernel's CONFIG_HZ")
      ->check(CLI::Range(100, 1000))
      ->each([copts](const std::string&) { copts->hz_given = true; });
  check->add_option("--cpu", copts->cpu, "Judge only this CPU")
      ->check(CLI::Range(0, 8191))
      ->option_text("CPU in [0 - 8191]");
  check
      ->add_option("--starvation-ms", copts->starvation_ms,
                   "A wait shorter than this is never a starvation violation (the weight-scaled "
                   "bound of SPEC.md 6.2 decides the rest)")
      ->check(CLI::Range(0.0, 3.6e6))
      ->capture_default_str();
  check
      ->add_option("--worst", copts->worst,
                   "List the N worst wakeups one by one (task, CPU, times, delay, what ran "
                   "meanwhile), as perf sched timehist -w shows wakeups")
      ->check(CLI::Range(1, 100000))
      ->option_text("N in [1 - 100000]");
  check->add_flag("--keep-going", copts->keep_going,
                  "Skip and count malformed lines (exit 2 if any was skipped)");
  check->add_flag("--json", copts->json, "Machine-readable output");
  check->add_flag("--strict", copts->strict, "Exit 1 when a check is inconclusive too");
  check->callback([copts, &exit_code] { exit_code = run_kernel_check(*copts); });

  auto iopts = std::make_shared<ImportOptions>();
  CLI::App* imp = kernel->add_subcommand(
      "import", "Write one CPU's fair-class events of a capture as a spec/TRACE.md trace");
  imp->add_option("file", iopts->file,
                  "A capture: perf script / trace-cmd report text, perf.data, trace.dat; - for "
                  "standard input")
      ->required();
  imp->add_option("--cpu", iopts->cpu, "The CPU whose runqueue becomes the trace")
      ->check(CLI::Range(0, 8191))
      ->capture_default_str();
  imp->add_option("--snapshot", iopts->snapshots, "sched debug snapshot(s): custom slices");
  imp->add_option("--hz", iopts->hz, "The kernel's CONFIG_HZ")->check(CLI::Range(100, 1000));
  imp->add_option("-o,--out", iopts->out, "Output file (default: standard output)");
  imp->add_flag("--json", iopts->json,
                "Print the summary as a JSON report on stdout (docs/json-schema.md); needs -o");
  imp->add_flag("--keep-going", iopts->keep_going,
                "Skip and count malformed lines (exit 2 if any was skipped)");
  imp->callback([iopts, &exit_code] { exit_code = run_kernel_import(*iopts); });

  auto lopts = std::make_shared<LiveOptions>();
  CLI::App* rec = kernel->add_subcommand(
      "record", "Record the sched tracepoints and snapshots around a command, then check them");
  rec->add_option("--cpu", lopts->record.cpu, "Record only this CPU (default: all)")
      ->check(CLI::Range(0, 8191))
      ->option_text("CPU in [0 - 8191]");
  rec->add_option("--duration", lopts->record.duration_s,
                  "Seconds to record (stops the command after that long)")
      ->check(CLI::Range(0.1, 3600.0));
  rec->add_option("--out", lopts->record.out_dir, "Directory for perf.data, perf.txt, snapshots");
  rec->add_option("--hz", lopts->hz, "The kernel's CONFIG_HZ")
      ->check(CLI::Range(100, 1000))
      ->each([lopts](const std::string&) { lopts->hz_given = true; });
  rec->add_flag("--json", lopts->json, "Machine-readable output");
  rec->add_flag("--strict", lopts->strict, "Exit 1 when a check is inconclusive too");
  rec->add_flag("--keep-going", lopts->keep_going,
                "Skip and count malformed lines (exit 2 if any was skipped)");
  rec->add_option("command", lopts->record.command, "Command to run (after --)");
  rec->callback([lopts, &exit_code] { exit_code = run_record(*lopts); });

  add_kernel_replay_command(*kernel, exit_code);
}

}  // namespace vlag::cli
