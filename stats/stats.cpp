#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vlag::stats {
namespace {

int64_t nearest_rank(const std::vector<int64_t>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<size_t>(std::max(1.0, std::ceil(p * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

}  // namespace

LatencySummary summarize(std::vector<int64_t> samples) {
  LatencySummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = static_cast<int64_t>(samples.size());
  s.avg_ns = static_cast<double>(std::accumulate(samples.begin(), samples.end(), int64_t{0})) /
             static_cast<double>(samples.size());
  s.p50_ns = nearest_rank(samples, 0.50);
  s.p99_ns = nearest_rank(samples, 0.99);
  s.max_ns = samples.back();
  return s;
}

LatencySummary summarize(const LatencyHistogram& h) {
  LatencySummary s;
  if (h.count() == 0) return s;
  s.count = h.count();
  s.avg_ns = h.mean();
  s.p50_ns = std::min(h.percentile(50), h.max());
  s.p99_ns = std::min(h.percentile(99), h.max());
  s.max_ns = h.max();
  return s;
}

std::vector<double> ideal_shares(const std::vector<int64_t>& weights,
                                 const std::vector<double>& demands) {
  const size_t n = weights.size();
  std::vector<double> share(n, 0.0);
  std::vector<bool> capped(n, false);
  double left = 1.0;
  // Each round caps the tasks whose demand is below their weighted part of what is left.
  for (bool changed = true; changed;) {
    changed = false;
    double w = 0;
    for (size_t i = 0; i < n; ++i)
      if (!capped[i]) w += static_cast<double>(weights[i]);
    for (size_t i = 0; i < n; ++i) {
      if (capped[i] || w == 0) continue;
      if (demands[i] < left * static_cast<double>(weights[i]) / w) {
        capped[i] = true;
        share[i] = demands[i];
        left -= demands[i];
        changed = true;
        break;
      }
    }
  }
  double w = 0;
  for (size_t i = 0; i < n; ++i)
    if (!capped[i]) w += static_cast<double>(weights[i]);
  for (size_t i = 0; i < n; ++i)
    if (!capped[i]) share[i] = left * static_cast<double>(weights[i]) / w;
  return share;
}

}  // namespace vlag::stats
