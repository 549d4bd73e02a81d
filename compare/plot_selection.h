// What a plot of many tasks shows, so that it reads at a glance for 4 tasks or 400: the tasks a
// CPU-share chart names (those the variants change most, the rest as one "others" mean), a value
// axis that shows differences of a hundredth of a per cent instead of starting at 0, the tasks a
// lag plot draws as lines over the band of all of them, and the complementary CDF of a latency
// histogram whose mass sits at 0. compare/plots.cpp draws what these decide; each is a pure
// function of numbers, tested without gnuplot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compare/lag_series.h"
#include "stats/latency_histogram.h"

namespace vlag::compare {

/// The tasks a share chart names: indices into the task list in task order, and the rest.
struct ShareSelection {
  enum class Rank : uint8_t {
    Every,     // every task is named
    ByChange,  // those whose share the variants change most against the first
    ByMean,    // those whose share is farthest from the mean (one variant, or no change)
  };
  Rank rank = Rank::Every;
  std::vector<size_t> named;
  std::vector<size_t> others;  // drawn as one bar per variant: their mean share
};

/// shares[v][t]: task t's share under variant v (NaN where the variant lacks the task). Every
/// task when there are at most `top` + 1; otherwise the `top` whose share moves most against the
/// first variant, or, when no variant moves any (or there is one), those farthest from the first
/// variant's mean share; ties to the lower index.
ShareSelection select_share_tasks(const std::vector<std::vector<double>>& shares, size_t top);

/// A value axis for bars or points: from 0 when the values' spread is a good part of their size,
/// otherwise zoomed around them so that small differences show.
struct AxisRange {
  double lo = 0;
  double hi = 1;
  bool from_zero = true;
};
AxisRange value_axis(const std::vector<double>& values);

/// The ids of the `k` tasks with the largest max |lag|, in id order; every task when there are
/// at most `k`.
std::vector<int64_t> largest_lag_tasks(const LagSeries& lag, size_t k);

/// Per time bucket of width end_ns / buckets from the first sample to the last: its middle (ns)
/// and the least and the largest lag of any task in it, each task's lag taken as the straight
/// line from one of its samples to the next, as the plot draws its line.
struct LagBand {
  double t_ns = 0;
  double lo_ns = 0;
  double hi_ns = 0;
};
std::vector<LagBand> lag_band(const LagSeries& lag, int64_t end_ns, int buckets);

/// A latency histogram as a complementary CDF: the share of samples later than x, per bucket
/// upper bound x > 0, ascending; `zero_fraction` is the share at 0 (where a log x axis cannot
/// go), `count` the samples.
struct Ccdf {
  int64_t count = 0;
  double zero_fraction = 0;
  std::vector<std::pair<int64_t, double>> later_than;  // (x ns, fraction of samples > x)
};
Ccdf ccdf_of(const stats::LatencyHistogram& h);

}  // namespace vlag::compare
