#include "compare/json.h"

#include <cmath>

#include "cli/json_out.h"

namespace vlag::compare {
namespace {

using cli::JsonArray;
using cli::JsonObject;

JsonObject& real_or_null(JsonObject& o, const std::string& key, std::optional<double> x) {
  if (!x || !std::isfinite(*x)) return o.raw(key, "null");
  return o.real(key, *x);
}

std::string better_name(sim::Better b) { return b == sim::Better::Lower ? "lower" : "higher"; }

std::string settings_json(const Settings& s) {
  JsonObject o;
  for (const auto& [k, v] : s) o.str(k, v);
  return o.text();
}

std::string labeled_json(const std::vector<Labeled>& list) {
  JsonArray a;
  for (const Labeled& l : list)
    a.add(JsonObject().str("label", l.label).raw("settings", settings_json(l.settings)));
  return a.text();
}

std::string config_json(const GridSpec& spec) {
  return JsonObject()
      .str("workload", spec.base.workload)
      .real("seconds", static_cast<double>(spec.base.limit_ns) / 1e9)
      .num("base_seed", static_cast<int64_t>(spec.base.machine.seed))
      .num("repeat", spec.repeat)
      .raw("common", settings_json(spec.common))
      .raw("rows", labeled_json(spec.rows))
      .raw("variants", labeled_json(spec.variants))
      .str("baseline", spec.variants[0].label)
      .text();
}

std::string runs_json(const RunResults& results) {
  JsonArray a;
  for (const RunRecord& run : results.runs) {
    JsonArray metrics;
    for (const sim::Metric& m : run.metrics) {
      JsonObject o;
      o.str("name", m.name).str("unit", m.unit);
      real_or_null(o, "value", m.value).str("better", better_name(m.better));
      metrics.add(o);
    }
    a.add(JsonObject()
              .str("row", results.spec.rows[run.row].label)
              .str("variant", results.spec.variants[run.variant].label)
              .num("rep", run.rep)
              .num("seed", static_cast<int64_t>(run.seed))
              .num("end_ns", run.end_ns)
              .raw("metrics", metrics.text()));
  }
  return a.text();
}

std::string tables_json(const GridSpec& spec, const std::vector<MetricTable>& tables) {
  JsonArray a;
  for (const MetricTable& t : tables) {
    JsonArray cells;
    for (size_t r = 0; r < t.cells.size(); ++r)
      for (size_t v = 0; v < t.cells[r].size(); ++v) {
        const Cell& c = t.cells[r][v];
        if (!c.sample) continue;
        JsonObject o;
        o.str("row", spec.rows[r].label)
            .str("variant", spec.variants[v].label)
            .num("n", c.sample->n);
        real_or_null(o, "mean", c.sample->mean);
        real_or_null(o, "stddev", c.sample->stddev);
        real_or_null(o, "change_pct", c.change_pct).boolean("noise", c.noise);
        cells.add(o);
      }
    a.add(JsonObject()
              .str("name", t.name)
              .str("unit", t.unit)
              .str("better", better_name(t.better))
              .raw("cells", cells.text()));
  }
  return a.text();
}

std::string summary_json(const GridSpec& spec, const std::vector<Change>& changes) {
  JsonArray a;
  for (const Change& c : changes) {
    JsonObject o;
    o.str("metric", c.metric)
        .str("unit", c.unit)
        .str("row", spec.rows[c.row].label)
        .str("variant", spec.variants[c.variant].label);
    real_or_null(o, "base_mean", c.base_mean);
    real_or_null(o, "mean", c.mean);
    real_or_null(o, "change_pct", c.change_pct).boolean("noise", c.noise);
    a.add(o);
  }
  return a.text();
}

}  // namespace

std::string comparison_json(const RunResults& results, const std::vector<MetricTable>& tables,
                            const std::vector<Change>& changes,
                            const std::vector<std::string>& plots) {
  JsonArray plot_array;
  for (const std::string& p : plots) plot_array.add_string(p);
  return JsonObject()
             .raw("config", config_json(results.spec))
             .str("sign_convention", "change_pct: % against the baseline, positive = better")
             .str("noise_rule",
                  "noise: |mean - base_mean| < 2*sqrt(stddev_base^2/n_base + stddev^2/n)")
             .raw("runs", runs_json(results))
             .raw("metrics", tables_json(results.spec, tables))
             .raw("summary", summary_json(results.spec, changes))
             .raw("plots", plot_array.text())
             .text() +
         "\n";
}

}  // namespace vlag::compare
