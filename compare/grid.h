// A comparison grid: variants (the columns; the first is the baseline) × rows (one key's values,
// typically a workload size) × R repetitions on seeds base, base+1, …. Every run is an independent
// scenario, so runs may execute on several threads; results are stored by grid position, so the
// output does not depend on which thread finished first.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compare/lag_series.h"
#include "compare/settings.h"
#include "sim/scenario.h"

namespace vlag::compare {

struct Labeled {
  std::string label;  // as printed: "groups=4", "preset=linux-6.6"; "all" for the lone row
  Settings settings;
};

struct GridSpec {
  sim::ScenarioConfig base;  // workload, time limit, machine; base.machine.seed is the first seed
  Settings common;           // applied to every cell, under the row's and the variant's settings
  std::vector<Labeled> rows;
  std::vector<Labeled> variants;  // variants[0] is the baseline
  int repeat = 1;
  /// Per variant, the first run of the first row also samples each task's lag over time from
  /// its own events, at most this many points per task (the lag plot); 0: no lag is sampled.
  int lag_points = 2000;
};

/// What one run left for tables, JSON and plots.
struct RunRecord {
  size_t row = 0;
  size_t variant = 0;
  int rep = 0;
  uint64_t seed = 0;
  int64_t end_ns = 0;
  sim::Metrics metrics;                 // the scenario's, then its groups' (group_metrics.h)
  std::vector<sim::TaskSummary> tasks;  // kept for the first repetition only (plots)
  std::optional<LagSeries> lag;         // row 0, first repetition, when lag_points > 0
};

struct RunResults {
  GridSpec spec;
  std::vector<RunRecord> runs;  // in grid order: row, then variant, then repetition
};

/// Rows from "key=v1,v2,…"; one row labelled "all" for an empty text.
std::vector<Labeled> parse_rows(const std::string& text);
/// Variants from "k=v k2=v2;k=v3" (';' between variants, ' ' between settings).
std::vector<Labeled> parse_variants(const std::string& text);
/// Variants from "key=v1,v2,…": one variant per value of one key.
std::vector<Labeled> parse_vary(const std::string& text);

/// The config of one grid cell: base, then the row's settings, then the variant's; the seed is
/// the base seed + rep. Throws vlag::Error naming a rejected key or value.
sim::ScenarioConfig cell_config(const GridSpec& spec, size_t row, size_t variant, int rep);

/// Called after each finished run with (done, total, the run's description).
using Progress = std::function<void(size_t done, size_t total, const std::string& what)>;

/// Runs every cell on `jobs` threads. Every cell's config is built (and checked) before any run
/// starts, so a bad value fails at once.
RunResults run_grid(const GridSpec& spec, int jobs, const Progress& progress);

}  // namespace vlag::compare
