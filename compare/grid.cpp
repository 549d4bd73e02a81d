#include "compare/grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "compare/group_metrics.h"
#include "spec/error.h"

namespace vlag::compare {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// "key=v1,v2" → one Labeled per value; the key is checked here so that a typo fails at once.
std::vector<Labeled> one_key_values(const std::string& text, const std::string& what) {
  const auto [key, values] = parse_setting(text);
  if (values.empty()) throw Error(what + " '" + text + "' has no values");
  std::vector<Labeled> out;
  for (const std::string& v : split(values, ',')) {
    if (v.empty()) throw Error(what + " '" + text + "' has an empty value");
    out.push_back({key + "=" + v, {{key, v}}});
  }
  return out;
}

}  // namespace

std::vector<Labeled> parse_rows(const std::string& text) {
  if (text.empty()) return {{"all", {}}};
  return one_key_values(text, "--rows");
}

std::vector<Labeled> parse_variants(const std::string& text) {
  std::vector<Labeled> out;
  for (const std::string& part : split(text, ';')) {
    Settings s = parse_settings(part);
    if (s.empty()) throw Error("--variants '" + text + "' has an empty variant");
    out.push_back({settings_label(s), std::move(s)});
  }
  return out;
}

std::vector<Labeled> parse_vary(const std::string& text) { return one_key_values(text, "--vary"); }

sim::ScenarioConfig cell_config(const GridSpec& spec, size_t row, size_t variant, int rep) {
  Settings s = spec.common;
  for (const auto& [k, v] : spec.rows[row].settings) s[k] = v;
  for (const auto& [k, v] : spec.variants[variant].settings) s[k] = v;
  sim::ScenarioConfig c = spec.base;
  apply_settings(c, s);
  c.machine.seed = spec.base.machine.seed + static_cast<uint64_t>(rep);
  // Params checks hz and ncpus together with the preset.
  c.machine.params = remake_params(c.machine.params);
  return c;
}

RunResults run_grid(const GridSpec& spec, int jobs, const Progress& progress) {
  if (spec.rows.empty() || spec.variants.empty() || spec.repeat < 1)
    throw Error("a comparison needs a row, a variant and a repetition");
  RunResults out{spec, {}};
  std::vector<sim::ScenarioConfig> configs;
  for (size_t r = 0; r < spec.rows.size(); ++r)
    for (size_t v = 0; v < spec.variants.size(); ++v)
      for (int i = 0; i < spec.repeat; ++i) {
        configs.push_back(cell_config(spec, r, v, i));
        out.runs.push_back({r, v, i, configs.back().machine.seed, 0, {}, {}, {}});
      }

  std::atomic<size_t> next{0};
  std::mutex mu;  // guards done, first_error and the progress callback
  size_t done = 0;
  std::exception_ptr first_error;
  auto worker = [&] {
    while (true) {
      const size_t i = next.fetch_add(1);
      if (i >= configs.size()) return;
      RunRecord& run = out.runs[i];
      try {
        const bool sample_lag = spec.lag_points > 0 && run.row == 0 && run.rep == 0;
        LagSampler lag;
        sim::ScenarioResult res = sim::run_scenario(configs[i], sample_lag ? &lag : nullptr);
        if (sample_lag)
          run.lag = lag.series(configs[i].machine.params, res.stats.end_ns, spec.lag_points);
        run.end_ns = res.stats.end_ns;
        run.metrics = std::move(res.metrics);
        for (sim::Metric& m :
             group_metrics(res.tasks, res.stats.end_ns, configs[i].machine.params.ncpus))
          run.metrics.push_back(std::move(m));
        if (run.rep == 0) run.tasks = std::move(res.tasks);
      } catch (...) {
        const std::lock_guard lock(mu);
        if (!first_error) first_error = std::current_exception();
        next = configs.size();
        return;
      }
      const std::lock_guard lock(mu);
      ++done;
      if (progress)
        progress(done, configs.size(),
                 fmt::format("{} {} {} seed {}", spec.base.workload, spec.rows[run.row].label,
                             spec.variants[run.variant].label, run.seed));
    }
  };
  const int n = std::max(1, std::min<int>(jobs, static_cast<int>(configs.size())));
  std::vector<std::thread> threads;
  for (int t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
  return out;
}

}  // namespace vlag::compare
