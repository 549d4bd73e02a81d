#include "compare/lag_series.h"

#include <algorithm>
#include <cmath>

#include "spec/weights.h"

namespace vlag::compare {

void LagSampler::on_event(const trace::Event& e) {
  // An event that carries a task's vlag carries its weight with it (trace/observer.h).
  if (!e.task || !e.state.vlag) return;
  const int64_t w = e.state.weight.value_or(kNice0Weight);
  const double lag = static_cast<double>(w) * e.state.vlag->get_d() / kNice0Weight;
  max_abs_lag_ns_ = std::max(max_abs_lag_ns_, std::abs(lag));
  const auto cpu = static_cast<size_t>(e.cpu);
  if (by_cpu_.size() <= cpu) by_cpu_.resize(cpu + 1);
  by_cpu_[cpu].push_back({*e.task, {e.t, lag}});
}

LagSeries LagSampler::series(const Params& params, int64_t end_ns, int buckets) const {
  const double bucket_ns = static_cast<double>(std::max<int64_t>(end_ns, 1)) / std::max(buckets, 1);
  LagSeries out;
  out.bound_ns = static_cast<double>(params.base_slice_ns() + params.tick_ns());
  out.max_abs_lag_ns = max_abs_lag_ns_;
  // Per task: the bucket being filled and its most extreme point so far.
  struct Pending {
    int64_t bucket = -1;
    LagPoint extreme;
  };
  for (const std::vector<Sample>& samples : by_cpu_) {
    std::map<int64_t, Pending> pending;
    auto flush = [&](int64_t task, const Pending& p) {
      if (p.bucket >= 0) out.by_task[task].push_back(p.extreme);
    };
    for (const Sample& s : samples) {
      const auto bucket = static_cast<int64_t>(static_cast<double>(s.point.t_ns) / bucket_ns);
      Pending& p = pending[s.task];
      if (bucket != p.bucket) {
        flush(s.task, p);
        p = {bucket, s.point};
      } else if (std::abs(s.point.lag_ns) > std::abs(p.extreme.lag_ns)) {
        p.extreme = s.point;
      }
    }
    // A task that migrates continues in another CPU's samples: its bucket closes per CPU so that
    // the points stay in time order within one CPU's events.
    for (const auto& [task, p] : pending) flush(task, p);
  }
  for (auto& [id, points] : out.by_task)
    std::stable_sort(points.begin(), points.end(),
                     [](const LagPoint& a, const LagPoint& b) { return a.t_ns < b.t_ns; });
  return out;
}

}  // namespace vlag::compare
