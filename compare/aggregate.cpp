#include "compare/aggregate.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace vlag::compare {

Sample sample_of(const std::vector<double>& values) {
  Sample s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / s.n;
  if (s.n > 1) {
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / (s.n - 1));
  }
  return s;
}

std::optional<double> better_change_pct(double base, double value, sim::Better better) {
  if (base == 0) return value == 0 ? std::optional<double>(0.0) : std::nullopt;
  const double raw = (value - base) / std::abs(base) * 100.0;
  // + 0.0 turns the -0 of a negated zero change into 0, so it prints as +0.0 %.
  return (better == sim::Better::Higher ? raw : -raw) + 0.0;
}

bool within_noise(const Sample& base, const Sample& value) {
  if (base.n < 2 || value.n < 2) return false;
  const double se =
      std::sqrt(base.stddev * base.stddev / base.n + value.stddev * value.stddev / value.n);
  return std::abs(value.mean - base.mean) < 2 * se;
}

std::vector<MetricTable> aggregate(const RunResults& results) {
  const size_t nrows = results.spec.rows.size();
  const size_t nvars = results.spec.variants.size();
  std::vector<MetricTable> tables;
  std::map<std::string, size_t> index;
  // values[metric][row][variant]: one value per repetition that reported the metric.
  std::vector<std::vector<std::vector<std::vector<double>>>> values;
  for (const RunRecord& run : results.runs)
    for (const sim::Metric& m : run.metrics) {
      auto [it, added] = index.try_emplace(m.name, tables.size());
      if (added) {
        tables.push_back({m.name, m.unit, m.better, {}});
        values.emplace_back(nrows, std::vector<std::vector<double>>(nvars));
      }
      values[it->second][run.row][run.variant].push_back(m.value);
    }
  for (size_t t = 0; t < tables.size(); ++t) {
    MetricTable& table = tables[t];
    table.cells.assign(nrows, std::vector<Cell>(nvars));
    for (size_t r = 0; r < nrows; ++r) {
      for (size_t v = 0; v < nvars; ++v)
        if (!values[t][r][v].empty()) table.cells[r][v].sample = sample_of(values[t][r][v]);
      const Cell& base = table.cells[r][0];
      if (!base.sample) continue;
      for (size_t v = 1; v < nvars; ++v) {
        Cell& c = table.cells[r][v];
        if (!c.sample) continue;
        c.change_pct = better_change_pct(base.sample->mean, c.sample->mean, table.better);
        c.noise = within_noise(*base.sample, *c.sample);
      }
    }
  }
  return tables;
}

std::vector<Change> sorted_changes(const std::vector<MetricTable>& tables) {
  std::vector<Change> out;
  for (const MetricTable& t : tables)
    for (size_t r = 0; r < t.cells.size(); ++r)
      for (size_t v = 1; v < t.cells[r].size(); ++v) {
        const Cell& c = t.cells[r][v];
        const Cell& base = t.cells[r][0];
        if (!c.sample || !base.sample) continue;
        out.push_back(
            {t.name, t.unit, r, v, base.sample->mean, c.sample->mean, c.change_pct, c.noise});
      }
  std::stable_sort(out.begin(), out.end(), [](const Change& a, const Change& b) {
    if (!a.change_pct || !b.change_pct) return a.change_pct.has_value() && !b.change_pct;
    return *a.change_pct < *b.change_pct;
  });
  return out;
}

}  // namespace vlag::compare
