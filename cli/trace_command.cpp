// `vlag trace export TRACE [--check] [-o OUT]`: a spec/TRACE.md trace as Chrome JSON trace events
// for the Perfetto UI (trace/perfetto.h). `--perfetto` names that format; it is the only one, so
// it may be left out. `--check` first runs `vlag check` on the trace and marks each violation and
// inconclusive verdict it keeps as an instant on the track of its event's CPU, named with its ID,
// its message and reason in the instant's arguments.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "checker/run.h"
#include "cli/commands.h"
#include "cli/verdict_json.h"
#include "spec/error.h"
#include "trace/perfetto.h"

namespace vlag::cli {
namespace {

struct ExportOptions {
  std::string trace;
  std::string out;  // empty: stdout
  bool check = false;
};

trace::PerfettoMark mark(const std::string& id, Verdict verdict, Reasons why, int64_t line,
                         const std::optional<RunqueueId>& rq, const std::string& message) {
  trace::PerfettoMark m;
  m.name = (verdict == Verdict::Violated ? "VIOLATION " : "INCONCLUSIVE ") + id;
  m.category = "check";
  m.args.str("id", id)
      .str("verdict", verdict_name(verdict))
      .str("message", message)
      .num("line", line);
  if (!why.empty()) m.args.str("reason", reasons_text(why));
  if (rq) m.args.num("rq", *rq);
  return m;
}

// What `vlag check` finds in the trace, as marks; `left_out`: those it counted but did not keep.
trace::PerfettoMarks check_marks(const checker::Source& source, int64_t& left_out) {
  checker::CheckOptions quiet;
  quiet.arbiter = false;  // a mark needs the finding, not its evidence
  const checker::Report r = checker::check({source}, quiet);
  trace::PerfettoMarks marks;
  for (const checker::Violation& v : r.violations)
    marks.emplace(v.line, mark(v.id, Verdict::Violated, {}, v.line, v.rq, v.detail));
  for (const checker::Finding& f : r.findings)
    if (f.verdict == Verdict::Inconclusive)
      marks.emplace(f.line, mark(f.id, f.verdict, f.reasons, f.line, f.rq, f.detail));
  left_out = r.violations_left_out() + r.findings_left_out();
  return marks;
}

void write_export(const ExportOptions& o, std::ostream& out) {
  const checker::Source source = checker::file_source(o.trace);
  int64_t left_out = 0;
  const trace::PerfettoMarks marks =
      o.check ? check_marks(source, left_out) : trace::PerfettoMarks{};
  const auto in = source.open();
  trace::Reader reader(*in, source.name);
  const trace::PerfettoCounts n = trace::export_perfetto(reader, out, marks);
  if (!out) throw Error("cannot write " + (o.out.empty() ? std::string("stdout") : o.out));
  fmt::print(stderr, "{}: {} events -> {} run slices, {} counter samples", source.name, n.events,
             n.slices, n.counters);
  if (o.check)
    fmt::print(
        stderr, ", {} check marks{}", n.marks,
        left_out > 0 ? fmt::format(" ({} more findings counted but not kept)", left_out) : "");
  fmt::print(stderr, "\n");
}

void run_export(const ExportOptions& o) {
  if (o.out.empty()) return write_export(o, std::cout);
  std::ofstream file(o.out);
  if (!file) throw Error("cannot open " + o.out + " for writing");
  write_export(o, file);
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Work with spec/TRACE.md traces");
  trace->require_subcommand(1);
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = trace->add_subcommand(
      "export",
      "Export a trace as Chrome JSON trace events (ui.perfetto.dev, chrome://tracing): per-CPU "
      "tracks of task run slices, instants, counters for V, W and each task's lag");
  cmd->add_flag("--perfetto")
      ->description("Chrome JSON trace-event format (the default and only format)");
  cmd->add_flag("--check", opts->check,
                "Run vlag check on the trace first and mark each violation and inconclusive "
                "verdict as an instant on its CPU's track, with its ID and message");
  cmd->add_option("trace", opts->trace, "Trace file (JSON Lines), or - for standard input")
      ->required();
  cmd->add_option("-o,--output", opts->out, "Output file (default: stdout)");
  cmd->callback([opts] { run_export(*opts); });
}

}  // namespace vlag::cli
