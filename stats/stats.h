// Summaries reported per task, by the simulator's drivers and by the real-kernel check alike:
// nearest-rank percentiles of latencies and the ideal (weighted max-min fair, "water-filling")
// CPU share of tasks with limited demand. Plain numbers in, plain numbers out: it includes
// nothing of vlag.
#pragma once

#include <cstdint>
#include <vector>

#include "stats/latency_histogram.h"

namespace vlag::stats {

struct LatencySummary {
  int64_t count = 0;
  double avg_ns = 0;
  int64_t p50_ns = 0;
  int64_t p99_ns = 0;
  int64_t max_ns = 0;
};

/// Nearest-rank percentiles; an empty sample gives count 0 and zeros.
LatencySummary summarize(std::vector<int64_t> samples_ns);
/// The same from a histogram: count, mean and max exact, p50 and p99 within its 1/64 (never
/// above the largest sample).
LatencySummary summarize(const LatencyHistogram& h);

/// The fluid (GPS) share of each task on one CPU when task i can use at most demand[i] of the
/// CPU: shares are weight-proportional, except that a task never gets more than its demand and
/// what it leaves is shared among the others in proportion to weight.
std::vector<double> ideal_shares(const std::vector<int64_t>& weights,
                                 const std::vector<double>& demands);

}  // namespace vlag::stats
