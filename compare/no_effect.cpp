#include "compare/no_effect.h"

#include <fmt/format.h>

#include <set>

namespace vlag::compare {
namespace {

// Why the cell ignores the setting `key`, or "" when it reads it.
std::string why_ignored(const std::string& key, const std::string& value,
                        const sim::ScenarioConfig& c) {
  const bool latency_policy = c.machine.policy == sim::Policy::EevdfLatencyNice ||
                              c.machine.policy == sim::Policy::CfsLatencyNice;
  if (!latency_policy && (key == "latency_nice" || key.ends_with(".latency_nice") ||
                          (key == "group" && value.find("latency_nice") != std::string::npos)))
    return fmt::format(
        "policy {} ignores latency_nice (only eevdf-latency-nice and cfs-latency-nice read it; "
        "add policy=eevdf-latency-nice)",
        sim::policy_name(c.machine.policy));
  if (c.machine.params.ncpus == 1 &&
      (key == "placement" || key == "balance" || key == "balance_ticks"))
    return "one CPU has no wakeup placement or load balancing to change";
  if (key == "kernel_cpus" && c.machine.params.base_slice_override_ns > 0)
    return "base_slice_us is set, so the CPU count no longer scales the base slice";
  return "";
}

}  // namespace

std::vector<std::string> ignored_settings(const GridSpec& spec) {
  std::vector<std::string> out;
  std::set<std::string> said;
  const auto check = [&](const Labeled& l, const std::string& what, size_t row, size_t variant) {
    const sim::ScenarioConfig c = cell_config(spec, row, variant, 0);
    for (const auto& [key, value] : l.settings) {
      const std::string why = why_ignored(key, value, c);
      if (why.empty()) continue;
      const std::string msg =
          l.settings.size() == 1
              ? fmt::format("{} {} has no effect: {}", what, l.label, why)
              : fmt::format("{} {}: {}={} has no effect: {}", what, l.label, key, value, why);
      if (said.insert(msg).second) out.push_back(msg);
    }
  };
  for (size_t v = 0; v < spec.variants.size(); ++v) check(spec.variants[v], "variant", 0, v);
  for (size_t r = 0; r < spec.rows.size(); ++r) check(spec.rows[r], "row", r, 0);
  return out;
}

std::vector<std::string> variants_without_effect(const RunResults& results) {
  const GridSpec& spec = results.spec;
  std::vector<std::string> out;
  for (size_t v = 1; v < spec.variants.size(); ++v) {
    bool same = true;
    for (const RunRecord& run : results.runs) {
      if (run.variant != v) continue;
      for (const RunRecord& base : results.runs) {
        if (base.variant != 0 || base.row != run.row || base.rep != run.rep) continue;
        if (base.metrics.size() != run.metrics.size()) {
          same = false;
          break;
        }
        for (size_t i = 0; i < run.metrics.size() && same; ++i)
          same = run.metrics[i].name == base.metrics[i].name &&
                 run.metrics[i].value == base.metrics[i].value;
      }
      if (!same) break;
    }
    if (same)
      out.push_back(fmt::format(
          "variant {} gave exactly the baseline's figures in every run: what it sets changed "
          "nothing in these runs",
          spec.variants[v].label));
  }
  return out;
}

}  // namespace vlag::compare
