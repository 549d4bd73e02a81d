#include "compare/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vlag::compare {
namespace {

std::string stddev_pct(const Sample& s) {
  if (s.stddev == 0) return "(± 0.0%)";
  if (s.mean == 0) return "(± n/a)";
  return fmt::format("(± {:.1f}%)", 100.0 * s.stddev / std::abs(s.mean));
}

std::string change_text(const Cell& c) {
  if (!c.change_pct) return "n/a";
  return fmt::format("{:+.1f}%{}", *c.change_pct, c.noise ? "~" : "");
}

// Widths count code points: "±" is two bytes in UTF-8 but one column.
size_t display_width(const std::string& s) {
  size_t len = 0;
  for (unsigned char ch : s) len += (ch & 0xC0) != 0x80;
  return len;
}

std::string pad(const std::string& s, size_t width) {
  const size_t len = display_width(s);
  return s + std::string(width > len ? width - len : 0, ' ');
}

}  // namespace

std::string format_value(double x) {
  if (std::abs(x) >= 1000) return fmt::format("{:.0f}", x);
  return fmt::format("{:.4g}", x);
}

std::string legend(int repeat) {
  return fmt::format(
      "Legend: mean of {} run(s) on seeds base..base+{}; (± x%) = sample stddev as % of the "
      "mean; change = % against the first variant (the baseline), POSITIVE = BETTER whatever the "
      "metric's direction; ~ = within noise (|difference of means| < 2·sqrt(s_base²/n + "
      "s_variant²/n)).\n",
      repeat, repeat - 1);
}

std::string table_text(const MetricTable& table, const GridSpec& spec) {
  // grid[line][column], line 0 the header; column 0 the row labels.
  std::vector<std::vector<std::string>> grid;
  std::vector<std::string> header{"row"};
  for (size_t v = 0; v < spec.variants.size(); ++v)
    header.push_back(spec.variants[v].label + (v == 0 ? " (baseline)" : ""));
  grid.push_back(header);
  for (size_t r = 0; r < spec.rows.size(); ++r) {
    std::vector<std::string> line{spec.rows[r].label};
    for (size_t v = 0; v < spec.variants.size(); ++v) {
      const Cell& c = table.cells[r][v];
      if (!c.sample) {
        line.push_back("-");
        continue;
      }
      std::string s = format_value(c.sample->mean) + " " + stddev_pct(*c.sample);
      if (v > 0) s += ' ' + change_text(c);
      line.push_back(s);
    }
    grid.push_back(line);
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& line : grid)
    for (size_t i = 0; i < line.size(); ++i)
      widths[i] = std::max(widths[i], display_width(line[i]));
  std::string out = fmt::format("{} [{}], {} is better\n", table.name, table.unit,
                                table.better == sim::Better::Lower ? "lower" : "higher");
  for (const auto& line : grid) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i)
      text += (i ? " | " : "") + (i + 1 < line.size() ? pad(line[i], widths[i]) : line[i]);
    out += text + "\n";
  }
  return out;
}

std::string summary_text(const std::vector<Change>& changes, const GridSpec& spec) {
  std::string out =
      "Summary: every change against the baseline, worst regression first, best improvement "
      "last (positive = better; noise = within the noise rule above)\n";
  size_t metric_w = 0;
  size_t row_w = 0;
  size_t variant_w = 0;
  for (const Change& c : changes) {
    metric_w = std::max(metric_w, display_width(c.metric));
    row_w = std::max(row_w, display_width(spec.rows[c.row].label));
    variant_w = std::max(variant_w, display_width(spec.variants[c.variant].label));
  }
  for (const Change& c : changes) {
    const std::string pct = c.change_pct ? fmt::format("{:+.1f}%", *c.change_pct) : "n/a";
    const std::string kind = !c.change_pct        ? "n/a"
                             : c.noise            ? "noise"
                             : *c.change_pct == 0 ? "same"
                             : *c.change_pct < 0  ? "regression"
                                                  : "improvement";
    out += fmt::format("  {:>8}  {:<11}  {}  {}  {}  {} → {} {}\n", pct, kind,
                       pad(c.metric, metric_w), pad(spec.rows[c.row].label, row_w),
                       pad(spec.variants[c.variant].label, variant_w), format_value(c.base_mean),
                       format_value(c.mean), c.unit);
  }
  return out;
}

}  // namespace vlag::compare
