// `vlag compare`: a grid of scenarios — variants (columns, the first one the baseline) × rows
// (one key's values) × R seeds — printed as per-metric tables, a summary sorted from the worst
// regression to the best improvement, optionally JSON and gnuplot plots (compare/).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/json_envelope.h"
#include "cli/validators.h"
#include "compare/json.h"
#include "compare/no_effect.h"
#include "compare/plots.h"
#include "compare/report.h"
#include "spec/error.h"

namespace vlag::cli {
namespace {

constexpr double kDefaultJitter = 0.05;

namespace cmp = vlag::compare;

struct CompareOptions {
  std::string workload = "hogs";
  int cpus = 1;
  double seconds = 1.0;
  uint64_t seed = 1;
  int repeat = 3;
  int jobs = 1;
  std::string rows;
  std::string variants;
  std::string vary;
  std::vector<std::string> common;
  bool json = false;
  std::vector<std::string> metrics;  // empty: all
  std::string plot_dir;
};

// "[37/120] hackbench groups=4 latency_nice=19 seed 3 — 12.4 s elapsed, ~28 s left", rewritten
// in place on a terminal; nothing when stderr is a file or a pipe.
class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  ~ProgressLine() {
    if (tty_ && shown_) std::fputs("\r\033[K", stderr);
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(size_t done, size_t total, const std::string& what) {
    if (!tty_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
    fmt::print(stderr, "\r\033[K[{}/{}] {} — {:.1f} s elapsed, ~{:.0f} s left", done, total, what,
               elapsed, left);
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

cmp::GridSpec grid_spec(const CompareOptions& o) {
  if (!o.variants.empty() && !o.vary.empty())
    throw Error("--variants and --vary both give the variants: use one");
  cmp::GridSpec spec;
  spec.base.workload = o.workload;
  spec.base.limit_ns = static_cast<int64_t>(o.seconds * 1e9);
  spec.base.machine.params = make_params(preset_by_name(kDefaultPreset), 250, o.cpus);
  spec.base.machine.seed = o.seed;
  // Without noise every repetition would repeat the first exactly and the stddev column would say
  // nothing; bursts vary by ±5 % unless a setting says otherwise (jitter=0: exact runs).
  spec.base.machine.jitter = kDefaultJitter;
  for (const std::string& s : o.common) {
    auto [key, value] = cmp::parse_setting(s);
    if (const auto it = spec.common.find(key); it != spec.common.end())
      throw Error("--set " + key + " given twice (" + key + "=" + it->second + " and " + s +
                  "): give each key once");
    spec.common.emplace(std::move(key), std::move(value));
  }
  spec.rows = cmp::parse_rows(o.rows);
  if (!o.variants.empty())
    spec.variants = cmp::parse_variants(o.variants);
  else if (!o.vary.empty())
    spec.variants = cmp::parse_vary(o.vary);
  else
    spec.variants = {{"base", {}}};
  spec.repeat = o.repeat;
  if (o.plot_dir.empty()) spec.lag_points = 0;  // only the lag plot needs the lag sampled
  return spec;
}

int run_compare(const CompareOptions& o) {
  const cmp::GridSpec spec = grid_spec(o);
  for (const std::string& w : cmp::ignored_settings(spec))
    fmt::print(stderr, "vlag compare: warning: {}\n", w);
  cmp::RunResults results;
  {
    ProgressLine progress;
    results = cmp::run_grid(spec, o.jobs, [&](size_t done, size_t total, const std::string& what) {
      progress.update(done, total, what);
    });
  }
  for (const std::string& w : cmp::variants_without_effect(results))
    fmt::print(stderr, "vlag compare: warning: {}\n", w);
  std::vector<cmp::MetricTable> tables = cmp::aggregate(results);
  if (!o.metrics.empty()) {
    for (const std::string& name : o.metrics)
      if (std::none_of(tables.begin(), tables.end(),
                       [&](const cmp::MetricTable& t) { return t.name == name; }))
        throw Error("--metrics: no metric '" + name + "' in these runs");
    std::erase_if(tables, [&](const cmp::MetricTable& t) {
      return std::find(o.metrics.begin(), o.metrics.end(), t.name) == o.metrics.end();
    });
  }
  const std::vector<cmp::Change> changes = cmp::sorted_changes(tables);

  cmp::PlotFiles plots;
  if (!o.plot_dir.empty()) plots = cmp::write_plots(results, {.dir = o.plot_dir});

  if (o.json) {
    // A comparison judges nothing: the envelope (docs/json-schema.md) with no verdict.
    fmt::print("{}\n", Envelope("compare")
                           .object(0)
                           .append_json(cmp::comparison_json(
                               results, tables, changes,
                               plots.gnuplot_found ? plots.images : plots.scripts))
                           .text());
  } else {
    fmt::print(
        "vlag compare: {} for {} s, {} row(s) × {} variant(s) × {} seed(s) from {}; bursts "
        "jittered by ±{:g}% unless jitter= is set\n",
        spec.base.workload, o.seconds, spec.rows.size(), spec.variants.size(), spec.repeat,
        spec.base.machine.seed, 100 * kDefaultJitter);
    fmt::print("{}\n", cmp::legend(spec.repeat));
    for (const cmp::MetricTable& t : tables) fmt::print("{}\n", cmp::table_text(t, spec));
    fmt::print("{}", cmp::summary_text(changes, spec));
  }
  // Plot names go where they do not spoil the JSON on stdout.
  std::FILE* plot_out = o.json ? stderr : stdout;
  if (!o.plot_dir.empty()) {
    if (!plots.gnuplot_found)
      fmt::print(plot_out,
                 "\ngnuplot not found: wrote the data and scripts only; run `gnuplot NAME.gp` "
                 "in {} once it is installed\n",
                 o.plot_dir);
    else
      fmt::print(plot_out, "\nplots (each with its NAME.gp script and NAME.dat data):\n");
    for (const std::string& f : plots.gnuplot_found ? plots.images : plots.scripts)
      fmt::print(plot_out, "  {}\n", f);
    for (const std::string& n : plots.notes) fmt::print(plot_out, "  note: {}\n", n);
  }
  return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Runs a grid of simulated scenarios on several seeds and compares their metrics");
  cmd->add_option("--workload", o->workload,
                  "A workload, or several joined by '+' (hackbench+cyclictest): hogs, cyclictest, "
                  "hackbench, schbench, rtapp (its file: --set rtapp=FILE)")
      ->check([](const std::string& text) {
        try {
          sim::split_workloads(text);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      })
      ->capture_default_str();
  cmd->add_option("--cpus", o->cpus, "CPUs (a variant or row may set cpus=N)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--seconds", o->seconds, "Simulated time per run (hackbench: a limit)")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "First seed; repetition i runs on seed + i")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--repeat", o->repeat, "Repetitions per cell, each on its own seed")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--jobs", o->jobs, "Runs in parallel (the output does not depend on it)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--rows", o->rows, "Rows: KEY=V1,V2,... (e.g. groups=1,2,4,8)");
  cmd->add_option("--variants", o->variants,
                  "Variants (columns, the first is the baseline): 'K=V K2=V2;K=V3;...'");
  cmd->add_option("--vary", o->vary, "Variants over one key: KEY=V1,V2,... (the first: baseline)");
  cmd->add_option("--set", o->common, "A setting for every run: KEY=VALUE (repeatable)");
  cmd->add_option("--metrics", o->metrics,
                  "Only these metrics in tables, summary and JSON (default: all)")
      ->delimiter(',');
  cmd->add_flag("--json", o->json, "Print everything as JSON instead of tables");
  cmd->add_option("--plot-dir", o->plot_dir,
                  "Write plots (SVG via gnuplot, with their .gp scripts and .dat data) into DIR");
  std::string keys;
  for (const std::string& k : cmp::setting_keys()) keys += (keys.empty() ? "" : ", ") + k;
  cmd->footer("Keys: " + keys + ".");
  cmd->callback([o, &exit_code] { exit_code = run_compare(*o); });
}

}  // namespace vlag::cli
