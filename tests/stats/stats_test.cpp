#include "stats/stats.h"

#include <gtest/gtest.h>

namespace vlag::stats {
namespace {

TEST(Stats, NearestRankPercentiles) {
  std::vector<int64_t> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const auto s = summarize(v);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.avg_ns, 50.5);
  EXPECT_EQ(s.p50_ns, 50);
  EXPECT_EQ(s.p99_ns, 99);
  EXPECT_EQ(s.max_ns, 100);
  EXPECT_EQ(summarize(std::vector<int64_t>{}).count, 0);
  EXPECT_EQ(summarize(std::vector<int64_t>{7}).p99_ns, 7);
}

TEST(Stats, IdealSharesAreWeightProportionalWithoutCaps) {
  const auto s = ideal_shares({1024, 1024, 335}, {1, 1, 1});
  EXPECT_NEAR(s[0], 1024.0 / 2383, 1e-12);
  EXPECT_NEAR(s[2], 335.0 / 2383, 1e-12);
}

TEST(Stats, IdealSharesGiveWhatALightTaskLeavesToTheOthers) {
  const auto s = ideal_shares({1024, 1024, 335, 1024}, {1, 1, 1, 0.1});
  EXPECT_NEAR(s[3], 0.1, 1e-12);
  EXPECT_NEAR(s[0], 0.9 * 1024 / 2383, 1e-12);
  EXPECT_NEAR(s[0] + s[1] + s[2] + s[3], 1.0, 1e-12);
  // A cap that frees enough for a second task to become capped too.
  const auto t = ideal_shares({1, 1, 1}, {0.1, 0.3, 1});
  EXPECT_NEAR(t[0], 0.1, 1e-12);
  EXPECT_NEAR(t[1], 0.3, 1e-12);
  EXPECT_NEAR(t[2], 0.6, 1e-12);
}

}  // namespace
}  // namespace vlag::stats
