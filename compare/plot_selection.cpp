#include "compare/plot_selection.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vlag::compare {

ShareSelection select_share_tasks(const std::vector<std::vector<double>>& shares, size_t top) {
  ShareSelection s;
  size_t ntasks = 0;
  for (const auto& v : shares) ntasks = std::max(ntasks, v.size());
  const auto at = [&](size_t v, size_t t) {
    return t < shares[v].size() ? shares[v][t] : std::nan("");
  };
  if (ntasks <= top + 1) {
    s.named.resize(ntasks);
    std::iota(s.named.begin(), s.named.end(), size_t{0});
    return s;
  }
  std::vector<double> score(ntasks, 0);
  double largest = 0;
  for (size_t t = 0; t < ntasks; ++t)
    for (size_t v = 1; v < shares.size(); ++v) {
      const double a = at(0, t);
      const double b = at(v, t);
      // A task one variant lacks changes most of all.
      const double d = std::isnan(a) != std::isnan(b) ? INFINITY : std::abs(b - a);
      if (!std::isnan(d)) score[t] = std::max(score[t], d);
      largest = std::max(largest, score[t]);
    }
  s.rank = ShareSelection::Rank::ByChange;
  if (largest == 0) {
    s.rank = ShareSelection::Rank::ByMean;
    double mean = 0;
    size_t n = 0;
    for (size_t t = 0; t < ntasks; ++t)
      if (!std::isnan(at(0, t))) mean += at(0, t), ++n;
    mean /= static_cast<double>(std::max<size_t>(n, 1));
    for (size_t t = 0; t < ntasks; ++t)
      score[t] = std::isnan(at(0, t)) ? 0 : std::abs(at(0, t) - mean);
  }
  std::vector<size_t> order(ntasks);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score[a] > score[b]; });
  s.named.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top));
  s.others.assign(order.begin() + static_cast<std::ptrdiff_t>(top), order.end());
  std::sort(s.named.begin(), s.named.end());
  std::sort(s.others.begin(), s.others.end());
  return s;
}

AxisRange value_axis(const std::vector<double>& values) {
  double lo = INFINITY;
  double hi = -INFINITY;
  for (const double x : values)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!std::isfinite(lo)) return {};
  AxisRange r;
  const double spread = hi - lo;
  // From 0 when the bars' differences are at least a quarter of their height (or some value is
  // not positive): then their lengths compare honestly and the differences still show.
  if (lo <= 0 || spread >= 0.25 * hi) {
    r.hi = hi > 0 ? hi * 1.08 : 1;
    return r;
  }
  const double pad = std::max(spread * 0.25, hi * 1e-4);
  r.lo = std::max(0.0, lo - pad);
  r.hi = hi + pad;
  r.from_zero = false;
  return r;
}

std::vector<int64_t> largest_lag_tasks(const LagSeries& lag, size_t k) {
  std::vector<std::pair<double, int64_t>> by_size;  // (max |lag|, id)
  for (const auto& [id, points] : lag.by_task) {
    double m = 0;
    for (const LagPoint& p : points) m = std::max(m, std::abs(p.lag_ns));
    by_size.emplace_back(m, id);
  }
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<int64_t> ids;
  for (size_t i = 0; i < std::min(k, by_size.size()); ++i) ids.push_back(by_size[i].second);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<LagBand> lag_band(const LagSeries& lag, int64_t end_ns, int buckets) {
  const int n = std::max(buckets, 1);
  const double width = static_cast<double>(std::max<int64_t>(end_ns, 1)) / n;
  const auto bucket_of = [&](int64_t t) {
    return std::clamp<int64_t>(static_cast<int64_t>(static_cast<double>(t) / width), 0, n - 1);
  };
  std::map<int64_t, LagBand> by_bucket;
  const auto add = [&](int64_t b, double lag_ns) {
    const auto [it, fresh] =
        by_bucket.try_emplace(b, LagBand{(static_cast<double>(b) + 0.5) * width, lag_ns, lag_ns});
    if (!fresh) {
      it->second.lo_ns = std::min(it->second.lo_ns, lag_ns);
      it->second.hi_ns = std::max(it->second.hi_ns, lag_ns);
    }
  };
  for (const auto& [id, points] : lag.by_task) {
    if (points.size() == 1) add(bucket_of(points[0].t_ns), points[0].lag_ns);
    // The line from one sample to the next, as the plot draws it: in each bucket it crosses,
    // its extremes are where it enters and leaves the bucket.
    for (size_t i = 1; i < points.size(); ++i) {
      const LagPoint& a = points[i - 1];
      const LagPoint& z = points[i];
      const auto at = [&](double t) {
        if (z.t_ns == a.t_ns) return z.lag_ns;
        const double f = (t - static_cast<double>(a.t_ns)) / static_cast<double>(z.t_ns - a.t_ns);
        return a.lag_ns + f * (z.lag_ns - a.lag_ns);
      };
      for (int64_t b = bucket_of(a.t_ns); b <= bucket_of(z.t_ns); ++b) {
        const double from = std::max(static_cast<double>(a.t_ns), static_cast<double>(b) * width);
        const double to = std::min(static_cast<double>(z.t_ns), static_cast<double>(b + 1) * width);
        add(b, at(from));
        add(b, at(std::max(from, to)));
      }
    }
  }
  std::vector<LagBand> out;
  for (const auto& [b, band] : by_bucket) out.push_back(band);
  return out;
}

Ccdf ccdf_of(const stats::LatencyHistogram& h) {
  Ccdf c;
  c.count = h.count();
  for (const auto& [ns, at_most] : h.cdf()) {
    if (ns == 0) {
      c.zero_fraction = at_most;
      continue;
    }
    c.later_than.emplace_back(ns, std::max(0.0, 1.0 - at_most));
  }
  return c;
}

}  // namespace vlag::compare
