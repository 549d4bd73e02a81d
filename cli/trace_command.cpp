// `vlag trace export TRACE [-o OUT]`: a spec/TRACE.md trace as Chrome JSON trace events for the
// Perfetto UI (trace/perfetto.h). `--perfetto` names that format; it is the only one, so it may be
// left out.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "checker/run.h"
#include "cli/commands.h"
#include "spec/error.h"
#include "trace/perfetto.h"

namespace vlag::cli {
namespace {

struct ExportOptions {
  std::string trace;
  std::string out;  // empty: stdout
};

void write_export(const ExportOptions& o, std::ostream& out) {
  const auto in = checker::file_source(o.trace).open();
  trace::Reader reader(*in, o.trace);
  const trace::PerfettoCounts n = trace::export_perfetto(reader, out);
  if (!out) throw Error("cannot write " + (o.out.empty() ? std::string("stdout") : o.out));
  fmt::print(stderr, "{}: {} events -> {} run slices, {} counter samples\n", o.trace, n.events,
             n.slices, n.counters);
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
  cmd->add_option("trace", opts->trace, "Trace file (JSON Lines)")->required();
  cmd->add_option("-o,--output", opts->out, "Output file (default: stdout)");
  cmd->callback([opts] { run_export(*opts); });
}

}  // namespace vlag::cli
