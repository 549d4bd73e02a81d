// From runs to comparisons: per (metric, row, variant) the mean and sample stddev over the
// repetitions, and per non-baseline variant the % change against the baseline with the sign
// convention "positive = better" (a lower-is-better metric that drops is a positive change), so
// a reader never has to remember each metric's direction. A change is "within noise" when the
// difference of the means is smaller than twice its standard error,
// 2·sqrt(s_base²/n_base + s_variant²/n_variant) — roughly a 95 % interval for normal noise;
// with one repetition there is no stddev and no change is called noise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/grid.h"
#include "sim/metric.h"

namespace vlag::compare {

struct Sample {
  double mean = 0;
  double stddev = 0;  // sample stddev (n − 1); 0 for n = 1
  int n = 0;
};

/// Mean and sample stddev of the values; n = 0 for none.
Sample sample_of(const std::vector<double>& values);

/// % change of `value` against `base`, positive when better in direction `better`; nullopt when
/// the base is 0 and the value is not (no finite percentage).
std::optional<double> better_change_pct(double base, double value, sim::Better better);

/// The noise rule above.
bool within_noise(const Sample& base, const Sample& value);

struct Cell {
  std::optional<Sample> sample;      // nullopt: no run of this cell reported the metric
  std::optional<double> change_pct;  // non-baseline cells only
  bool noise = false;
};

struct MetricTable {
  std::string name;
  std::string unit;
  sim::Better better = sim::Better::Lower;
  std::vector<std::vector<Cell>> cells;  // [row][variant]
};

/// One table per metric, in the order the metrics first appear in the runs.
std::vector<MetricTable> aggregate(const RunResults& results);

struct Change {
  std::string metric;
  std::string unit;
  size_t row = 0;
  size_t variant = 0;
  double base_mean = 0;
  double mean = 0;
  std::optional<double> change_pct;
  bool noise = false;
};

/// Every non-baseline change, worst regression first, best improvement last; changes without a
/// percentage go at the end. Ties keep table order.
std::vector<Change> sorted_changes(const std::vector<MetricTable>& tables);

}  // namespace vlag::compare
