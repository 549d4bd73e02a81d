// `vlag demo`: SPEC.md's default preset on the built-in workload (sim/demo.h: one CPU of the
// simulator over the exact runqueue), printed per task; the run is written as a trace
// (spec/TRACE.md) and checked by the trace checker, whose summary follows.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "checker/run.h"
#include "cli/check_report.h"
#include "cli/commands.h"
#include "sim/demo.h"
#include "spec/error.h"
#include "spec/weights.h"
#include "trace/observer.h"

namespace vlag::cli {
namespace {

struct DemoOptions {
  std::string preset{kDefaultPreset};
  std::string features;
  int hz = 250;
  double seconds = 2.0;
  std::string trace_file;  // empty: the trace stays in memory
};

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }
std::string us(double ns) { return fmt::format("{:.1f}", ns / 1e3); }

int run_demo(const DemoOptions& o) {
  Preset preset = preset_by_name(o.preset);
  apply_feature_overrides(preset, o.features);
  const Params params = make_params(preset, o.hz);
  const auto duration = static_cast<int64_t>(o.seconds * 1e9);
  std::ostringstream trace_text;
  trace::Header header;
  header.producer = "vlag demo (reference runqueue)";
  header.params = params;
  const std::vector<sim::DemoTask> workload = sim::demo_workload();
  // The demo's tasks are created in the workload's order: task i + 1 is workload[i].
  trace::TraceObserver<reference::Num> tracer(
      trace_text, header, [&](TaskId id) { return workload.at(static_cast<size_t>(id - 1)).name; });
  const sim::DemoReport r = sim::run_demo(params, workload, duration, true, &tracer);

  fmt::print(
      "vlag demo: preset {}, HZ {}, base slice {}, {:.3f} s simulated on one CPU of the machine "
      "(exact reference runqueue)\n\n",
      params.preset.name, params.hz, ms(static_cast<double>(params.base_slice_ns())),
      static_cast<double>(duration) / 1e9);
  fmt::print("{:<10} {:>4} {:>6} {:>9} {:>8} {:>8} {:>7} {:>11}   {}\n", "task", "nice", "weight",
             "slice", "share", "ideal", "diff", "max|lag|",
             "wakeup latency us: avg / p50 / p99 / max (n)");
  for (const auto& t : r.tasks) {
    std::string lat = "-";
    if (t.wakeup.count > 0)
      lat = fmt::format("{} / {} / {} / {} ({})", us(t.wakeup.avg_ns),
                        us(static_cast<double>(t.wakeup.p50_ns)),
                        us(static_cast<double>(t.wakeup.p99_ns)),
                        us(static_cast<double>(t.wakeup.max_ns)), t.wakeup.count);
    fmt::print("{:<10} {:>4} {:>6} {:>9} {:>7.2f}% {:>7.2f}% {:>+7.2f} {:>11}   {}\n", t.spec.name,
               t.spec.nice, t.weight, ms(static_cast<double>(t.slice_ns)), 100 * t.share,
               100 * t.ideal_share, 100 * (t.share - t.ideal_share),
               ms(std::max(-t.min_lag_ns, t.max_lag_ns)), lat);
  }
  fmt::print(
      "\nshares: ideal = weighted max-min fair share given each task's demand; diff in "
      "percentage points.\nlag: w(V - v)/1024 in ns of service, of every queued task at every "
      "decision point (each "
      "pick), as vlag check measures THM-LAG-BOUND-LINUX.\n");
  fmt::print("invariants (SPEC.md section 6): {} state checks, {} violations\n", r.invariant_checks,
             r.violations.size());
  for (const auto& v : r.violations) fmt::print("  {}\n", v);

  checker::Source source = checker::text_source("demo trace", trace_text.str());
  if (!o.trace_file.empty()) {
    std::ofstream out(o.trace_file);
    out << trace_text.str();
    if (!out) throw Error("cannot write " + o.trace_file);
    out.close();
    source = checker::file_source(o.trace_file);
  }
  fmt::print("\nvlag check of the demo's trace{}:\n",
             o.trace_file.empty() ? "" : " (" + o.trace_file + ")");
  checker::CheckOptions options;
  options.evidence_dir = "vlag-evidence";
  const checker::Report checked = checker::check({source}, options);
  print_summary(checked);
  return r.violations.empty() ? exit_code(checked, false) : 1;
}

}  // namespace

void add_demo_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "Three CPU hogs (nice 0, 0, 5) and a periodic task (1 ms period, 100 us of work, "
      "0.5 ms slice) on one CPU of the simulator, over the exact reference runqueue");
  cmd->add_option("--preset", opts->preset, preset_help())->capture_default_str();
  cmd->add_option("--features", opts->features, "Feature overrides: NAME,-NAME,...");
  cmd->add_option("--hz", opts->hz, "Timer tick frequency")->capture_default_str();
  cmd->add_option("--seconds", opts->seconds, "Simulated time")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--trace", opts->trace_file, "Also write the run's trace to this file");
  cmd->callback([opts, &exit_code] { exit_code = run_demo(*opts); });
}

}  // namespace vlag::cli
