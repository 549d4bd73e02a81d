#include "compare/json.h"

#include "json/writer.h"

namespace vlag::compare {
namespace {

using json::Array;
using json::Object;

std::string better_name(sim::Better b) { return b == sim::Better::Lower ? "lower" : "higher"; }

Object settings_json(const Settings& s) {
  Object o;
  for (const auto& [k, v] : s) o.str(k, v);
  return o;
}

Array labeled_json(const std::vector<Labeled>& list) {
  Array a;
  for (const Labeled& l : list)
    a.add(Object().str("label", l.label).object("settings", settings_json(l.settings)));
  return a;
}

Object config_json(const GridSpec& spec) {
  return Object()
      .str("workload", spec.base.workload)
      .real("seconds", static_cast<double>(spec.base.limit_ns) / 1e9)
      .num("base_seed", static_cast<int64_t>(spec.base.machine.seed))
      .num("repeat", spec.repeat)
      .object("common", settings_json(spec.common))
      .array("rows", labeled_json(spec.rows))
      .array("variants", labeled_json(spec.variants))
      .str("baseline", spec.variants[0].label);
}

Array runs_json(const RunResults& results) {
  Array a;
  for (const RunRecord& run : results.runs) {
    Array metrics;
    for (const sim::Metric& m : run.metrics)
      metrics.add(Object()
                      .str("name", m.name)
                      .str("unit", m.unit)
                      .real("value", m.value)
                      .str("better", better_name(m.better)));
    a.add(Object()
              .str("row", results.spec.rows[run.row].label)
              .str("variant", results.spec.variants[run.variant].label)
              .num("rep", run.rep)
              .num("seed", static_cast<int64_t>(run.seed))
              .num("end_ns", run.end_ns)
              .array("metrics", metrics));
  }
  return a;
}

Array tables_json(const GridSpec& spec, const std::vector<MetricTable>& tables) {
  Array a;
  for (const MetricTable& t : tables) {
    Array cells;
    for (size_t r = 0; r < t.cells.size(); ++r)
      for (size_t v = 0; v < t.cells[r].size(); ++v) {
        const Cell& c = t.cells[r][v];
        if (!c.sample) continue;
        cells.add(Object()
                      .str("row", spec.rows[r].label)
                      .str("variant", spec.variants[v].label)
                      .num("n", c.sample->n)
                      .real("mean", c.sample->mean)
                      .real("stddev", c.sample->stddev)
                      .real("change_pct", c.change_pct)
                      .boolean("noise", c.noise));
      }
    a.add(Object()
              .str("name", t.name)
              .str("unit", t.unit)
              .str("better", better_name(t.better))
              .array("cells", cells));
  }
  return a;
}

Array summary_json(const GridSpec& spec, const std::vector<Change>& changes) {
  Array a;
  for (const Change& c : changes)
    a.add(Object()
              .str("metric", c.metric)
              .str("unit", c.unit)
              .str("row", spec.rows[c.row].label)
              .str("variant", spec.variants[c.variant].label)
              .real("base_mean", c.base_mean)
              .real("mean", c.mean)
              .real("change_pct", c.change_pct)
              .boolean("noise", c.noise));
  return a;
}

}  // namespace

std::string comparison_json(const RunResults& results, const std::vector<MetricTable>& tables,
                            const std::vector<Change>& changes,
                            const std::vector<std::string>& plots) {
  Array plot_array;
  for (const std::string& p : plots) plot_array.add_string(p);
  return Object()
             .object("config", config_json(results.spec))
             .str("sign_convention", "change_pct: % against the baseline, positive = better")
             .str("noise_rule",
                  "noise: |mean - base_mean| < 2*sqrt(stddev_base^2/n_base + stddev^2/n)")
             .array("runs", runs_json(results))
             .array("metrics", tables_json(results.spec, tables))
             .array("summary", summary_json(results.spec, changes))
             .array("plots", plot_array)
             .text() +
         "\n";
}

}  // namespace vlag::compare
