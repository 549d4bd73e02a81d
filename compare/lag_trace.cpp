#include "compare/lag_trace.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "spec/weights.h"
#include "trace/reader.h"

namespace vlag::compare {

LagSeries lag_over_time(sim::ScenarioConfig config, const std::string& scratch_dir, int buckets) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(scratch_dir) / ("lag-trace-" + std::to_string(config.machine.seed));
  fs::remove_all(dir);
  fs::create_directories(dir);
  config.machine.trace_dir = dir.string();
  const sim::ScenarioResult result = sim::run_scenario(config);
  const int64_t end_ns = std::max<int64_t>(result.stats.end_ns, 1);
  const double bucket_ns = static_cast<double>(end_ns) / std::max(buckets, 1);

  LagSeries out;
  out.bound_ns =
      static_cast<double>(config.machine.params.base_slice_ns() + config.machine.params.tick_ns());
  // Per task: the bucket being filled and its most extreme point so far.
  struct Pending {
    int64_t bucket = -1;
    LagPoint extreme;
  };
  std::map<int64_t, Pending> pending;
  std::map<int64_t, int64_t> weight;
  auto flush = [&](int64_t task, const Pending& p) {
    if (p.bucket >= 0) out.by_task[task].push_back(p.extreme);
  };
  for (int c = 0; c < config.machine.params.ncpus; ++c) {
    const fs::path file = dir / ("cpu" + std::to_string(c) + ".jsonl");
    std::ifstream in(file);
    trace::Reader reader(in, file.string());
    while (const std::optional<trace::Event> e = reader.next()) {
      if (!e->task) continue;
      const int64_t id = *e->task;
      if ((e->kind == trace::EventKind::New || e->kind == trace::EventKind::Reweight) &&
          e->weight > 0)
        weight[id] = e->weight;
      if (e->state.weight) weight[id] = *e->state.weight;
      if (!e->state.vlag) continue;
      const int64_t w = weight.contains(id) ? weight[id] : kNice0Weight;
      const double lag = static_cast<double>(w) * e->state.vlag->get_d() / kNice0Weight;
      out.max_abs_lag_ns = std::max(out.max_abs_lag_ns, std::abs(lag));
      const auto bucket = static_cast<int64_t>(static_cast<double>(e->t) / bucket_ns);
      Pending& p = pending[id];
      if (bucket != p.bucket) {
        flush(id, p);
        p = {bucket, {e->t, lag}};
      } else if (std::abs(lag) > std::abs(p.extreme.lag_ns)) {
        p.extreme = {e->t, lag};
      }
    }
    // A task that migrates continues on another CPU's stream: close its bucket per stream so
    // that the points stay in time order within one CPU's events.
    for (auto& [id, p] : pending) flush(id, p);
    pending.clear();
  }
  for (auto& [id, points] : out.by_task)
    std::stable_sort(points.begin(), points.end(),
                     [](const LagPoint& a, const LagPoint& b) { return a.t_ns < b.t_ns; });
  fs::remove_all(dir);
  return out;
}

}  // namespace vlag::compare
