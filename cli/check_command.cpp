// `vlag check TRACE...`: the three layers of checker/ over spec/TRACE.md traces, a directory's
// traces or one machine's per-CPU traces as a whole (checker/machine.h).
#include <fmt/format.h>

#include "checker/checker_bug.h"
#include "checker/infer.h"
#include "checker/run.h"
#include "cli/check_progress.h"
#include "cli/check_report.h"
#include "cli/check_worst.h"
#include "cli/commands.h"
#include "cli/validators.h"

namespace vlag::cli {
namespace {

struct CheckCommandOptions {
  std::vector<std::string> files;
  bool json = false;
  bool strict = false;
  bool keep_going = false;
  bool no_z3 = false;
  bool infer = false;
  std::string evidence_dir = "vlag-evidence";
  size_t max_evidence = 5;
  int jobs = 1;
  size_t worst = 0;  // --worst N: list the N worst wakeups of each trace
};

// --infer: one Z3 query per trace (checker/infer.h).
int run_infer(const CheckCommandOptions& o) {
  int code = 0;
  for (const auto& f : o.files) {
    const checker::Inference r = checker::infer_weights(checker::file_source(f), o.evidence_dir);
    if (r.consistent) {
      std::string weights;
      for (const auto& [id, w] : r.weights) weights += fmt::format(" {}:{}", id, w);
      fmt::print(
          "{}: consistent: these weights make all {} picks EEVDF decisions (task:weight){}\n", f,
          r.picks, weights);
    } else {
      std::string lines;
      for (int64_t l : r.core_lines) lines += fmt::format(" {}", l);
      fmt::print(
          "{}: inconsistent: no weights make all {} picks EEVDF decisions; unsat core, "
          "picks at lines{}\n",
          f, r.picks, lines);
      code = 1;
    }
    fmt::print("  query: {}\n", r.smt_file);
  }
  return code;
}

int run_check(const CheckCommandOptions& o) {
  if (o.infer) return run_infer(o);
  checker::CheckOptions options;
  options.keep_going = o.keep_going;
  options.evidence_dir = o.evidence_dir;
  options.max_evidence = o.max_evidence;
  options.arbiter = !o.no_z3;
  options.jobs = o.jobs;
  std::vector<checker::Source> sources;
  for (const auto& f : o.files)
    for (checker::Source& s : checker::trace_sources(f)) sources.push_back(std::move(s));
  const CheckInterrupt interrupt;
  checker::Progress progress;
  options.progress = &progress;
  options.stop = &CheckInterrupt::stop();
  checker::Report report;
  try {
    const ProgressLine line(progress);
    report = checker::check(sources, options);
  } catch (const checker::CheckerBug& bug) {
    fmt::print(stderr, "vlag check: {} (please report it)\n", bug.what());
    return checker::kCheckerBugExit;
  }
  // Interrupted without a violation: what was checked holds, the rest is unknown (as prove's 3).
  const int code = CheckInterrupt::stop() && !report.violated() ? 3 : exit_code(report, o.strict);
  if (o.json) {
    fmt::print("{}\n", report_json(report, "check", code,
                                   o.worst ? model_worst_json(sources, o.worst) : ""));
  } else {
    print_summary(report);
    if (o.worst) fmt::print("{}", model_worst_text(sources, o.worst));
  }
  return code;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<CheckCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check traces (spec/TRACE.md) against SPEC.md's invariants: exit 0 all hold, 1 a "
      "violation (or, under --strict, an inconclusive check), 2 bad input");
  cmd->add_option("traces", opts->files,
                  "Trace files (JSON Lines), - for standard input, or directories of them "
                  "(*.jsonl); the per-CPU traces of one run are checked as one machine")
      ->required();
  cmd->add_flag("--json", opts->json, "Print the report as JSON (docs/json-schema.md)");
  cmd->add_flag("--strict", opts->strict,
                "Exit 1 when a check is inconclusive too (as on a kernel reconstruction)");
  cmd->add_flag("--keep-going", opts->keep_going,
                "Count and skip faulty lines instead of stopping at the first (exit 2 if any "
                "was skipped)");
  cmd->add_option("--evidence-dir,--evidence", opts->evidence_dir,
                  "Directory for the SMT-LIB2 file and the replayable window of each violation")
      ->capture_default_str();
  cmd->add_option("--max-evidence", opts->max_evidence,
                  "Violations that get Z3 re-checking, an SMT-LIB2 file and a window")
      ->check(unsigned_integer(1'000'000))
      ->capture_default_str();
  cmd->add_flag("--no-z3", opts->no_z3, "Do not re-check violations with Z3");
  cmd->add_option("--jobs,-j", opts->jobs,
                  "Threads checking the traces of one run (the report is the same for any N)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--worst", opts->worst,
                  "List the N worst wakeups of each trace one by one (task, CPU, times, delay, "
                  "what ran meanwhile), as kernel check --worst N lists the kernel's")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--infer", opts->infer,
                "Ask Z3 for weights (\"weight\":null in new events) that make every pick an "
                "EEVDF decision; name an unsat core of picks when there are none");
  cmd->callback([opts, &exit_code] { exit_code = run_check(*opts); });
}

}  // namespace vlag::cli
