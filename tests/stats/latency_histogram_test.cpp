// LatencyHistogram against exact nearest-rank percentiles of the same samples: within the
// documented 1/64 relative error, never below the true value, and merge = adding both samples.
#include "stats/latency_histogram.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "stats/stats.h"

namespace vlag::stats {
namespace {

int64_t exact_percentile(std::vector<int64_t> v, double p) {
  std::sort(v.begin(), v.end());
  const auto rank =
      static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * static_cast<double>(v.size()))));
  return v[rank - 1];
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (int64_t v : {5, 1, 63, 7}) h.add(v);
  EXPECT_EQ(h.count(), 4);
  EXPECT_EQ(h.percentile(25), 1);
  EXPECT_EQ(h.percentile(50), 5);
  EXPECT_EQ(h.percentile(100), 63);
  EXPECT_EQ(LatencyHistogram{}.percentile(99), 0);
}

// The last bucket's bound is the largest int64: reached without an overflow on the way (UBSan
// found one in its sum).
TEST(LatencyHistogram, TheLargestSampleHasTheLargestBound) {
  LatencyHistogram h;
  h.add(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(h.percentile(50), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(h.cdf().back().first, std::numeric_limits<int64_t>::max());
}

TEST(LatencyHistogram, CdfEndsAtOne) {
  LatencyHistogram h;
  for (int64_t v = 1; v <= 1000; ++v) h.add(v * 1000);
  const auto cdf = h.cdf();
  ASSERT_FALSE(cdf.empty());
  EXPECT_DOUBLE_EQ(cdf.back().second, 1.0);
  for (size_t i = 1; i < cdf.size(); ++i) {
    EXPECT_LT(cdf[i - 1].first, cdf[i].first);
    EXPECT_LT(cdf[i - 1].second, cdf[i].second);
  }
}

RC_GTEST_PROP(LatencyHistogramProperties, PercentileWithinOneSixtyFourth,
              (std::vector<uint32_t> raw, uint8_t pct)) {
  RC_PRE(!raw.empty());
  std::vector<int64_t> v(raw.begin(), raw.end());
  const double p = 1 + pct % 100;
  LatencyHistogram h;
  for (int64_t x : v) h.add(x);
  const int64_t truth = exact_percentile(v, p);
  const int64_t got = h.percentile(p);
  RC_ASSERT(got >= truth);
  RC_ASSERT(static_cast<double>(got - truth) <= static_cast<double>(truth) / 64.0);
}

RC_GTEST_PROP(LatencyHistogramProperties, MergeIsUnion,
              (std::vector<uint32_t> a, std::vector<uint32_t> b)) {
  LatencyHistogram ha, hb, all;
  for (int64_t x : a) ha.add(x), all.add(x);
  for (int64_t x : b) hb.add(x), all.add(x);
  ha.merge(hb);
  RC_ASSERT(ha.count() == all.count());
  RC_ASSERT(ha.cdf() == all.cdf());
  RC_ASSERT(ha.max() == all.max());
  RC_ASSERT(ha.mean() == all.mean());
}

// The buckets span only the powers of two from the least sample to the largest, grown down and up
// as samples come: any order of the same samples (rising: each one above the span; falling: each
// one below it) gives the same histogram, over the whole range of int64 (negative samples count
// as 0).
RC_GTEST_PROP(LatencyHistogramProperties, AnyOrderOfTheSamplesGivesTheSameHistogram,
              (std::vector<int64_t> v)) {
  const auto summary = [](const std::vector<int64_t>& samples) {
    LatencyHistogram h;
    for (int64_t x : samples) h.add(x);
    std::vector<int64_t> at;
    for (double p : {0.5, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0}) at.push_back(h.percentile(p));
    return std::tuple(h.count(), h.max(), h.cdf(), at);
  };
  const auto as_given = summary(v);
  std::sort(v.begin(), v.end());
  RC_ASSERT(summary(v) == as_given);
  std::reverse(v.begin(), v.end());
  RC_ASSERT(summary(v) == as_given);
}

// `vlag kernel check`'s wakeup columns: the summary of a histogram against that of the samples
// themselves — count, mean and max exact, p50 and p99 within 1/64 and never above the max.
RC_GTEST_PROP(LatencyHistogramProperties, SummaryMatchesTheSamples, (std::vector<uint32_t> raw)) {
  std::vector<int64_t> v(raw.begin(), raw.end());
  LatencyHistogram h;
  for (int64_t x : v) h.add(x);
  const LatencySummary want = summarize(v), got = summarize(h);
  RC_ASSERT(got.count == want.count);
  RC_ASSERT(got.max_ns == want.max_ns);
  RC_ASSERT(std::fabs(got.avg_ns - want.avg_ns) <= 1e-9 * std::max(1.0, want.avg_ns));
  for (const auto& [g, w] : {std::pair{got.p50_ns, want.p50_ns}, {got.p99_ns, want.p99_ns}}) {
    RC_ASSERT(g >= w);
    RC_ASSERT(g <= want.max_ns);
    RC_ASSERT(static_cast<double>(g - w) <= static_cast<double>(w) / 64.0);
  }
}

}  // namespace
}  // namespace vlag::stats
