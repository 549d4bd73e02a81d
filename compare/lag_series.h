// Lag over time for the lag plot, sampled from a run's own events: a LagSampler given to
// sim::run_scenario sees every CPU's events as trace events (trace/observer.h EventSink), takes
// each task's lag in ns of service (SPEC.md §2: lag = w·vlag/N) from every event that carries the
// task's vlag, and thins the samples to the extreme value per time bucket so that a long run
// still plots quickly. The bound drawn with it is THM-LAG-BOUND-LINUX's ±(r + TICK), with r the
// base slice: the theorem is promised for a common slice, and a variant with custom slices is
// expected to cross it.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "spec/features.h"
#include "trace/observer.h"

namespace vlag::compare {

struct LagPoint {
  int64_t t_ns = 0;
  double lag_ns = 0;
};

struct LagSeries {
  std::map<int64_t, std::vector<LagPoint>> by_task;  // task id → points in time order
  double bound_ns = 0;                               // r + TICK
  double max_abs_lag_ns = 0;                         // over every event, before thinning
};

class LagSampler final : public trace::EventSink {
 public:
  void on_event(const trace::Event& e) override;

  /// The samples of a run that ended at end_ns, at most `buckets` points per task, with the
  /// bound of `params`.
  LagSeries series(const Params& params, int64_t end_ns, int buckets) const;

 private:
  struct Sample {
    int64_t task = 0;
    LagPoint point;
  };
  std::vector<std::vector<Sample>> by_cpu_;  // each CPU's samples in its event order
  double max_abs_lag_ns_ = 0;
};

}  // namespace vlag::compare
