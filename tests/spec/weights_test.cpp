#include "spec/weights.h"

#include <gtest/gtest.h>

#include "spec/error.h"

namespace vlag {
namespace {

TEST(Weights, TableMatchesTheKernelAtItsAnchors) {
  EXPECT_EQ(nice_to_weight(0), 1024);
  EXPECT_EQ(nice_to_weight(-20), 88761);
  EXPECT_EQ(nice_to_weight(5), 335);
  EXPECT_EQ(nice_to_weight(19), 15);
}

TEST(Weights, NeighboursDifferByAboutTenPercentOfCpu) {
  // One nice step changes a task's share against a nice-0 peer by ~10%: ratio ~1.25.
  for (int n = -20; n < 19; ++n) {
    const double ratio =
        static_cast<double>(nice_to_weight(n)) / static_cast<double>(nice_to_weight(n + 1));
    EXPECT_GT(ratio, 1.18) << "nice " << n;
    EXPECT_LT(ratio, 1.32) << "nice " << n;
  }
}

TEST(Weights, RejectsOutOfRange) {
  EXPECT_THROW(nice_to_weight(20), Error);
  EXPECT_THROW(nice_to_weight(-21), Error);
  EXPECT_THROW(validate_weight(0), Error);
  EXPECT_THROW(validate_weight(1), Error);
  EXPECT_THROW(validate_weight(kMaxWeight + 1), Error);
  EXPECT_NO_THROW(validate_weight(2));
  EXPECT_NO_THROW(validate_weight(kMaxWeight));
}

TEST(Weights, SliceRangeIsTheSyscalls) {
  EXPECT_NO_THROW(validate_slice(0));
  EXPECT_NO_THROW(validate_slice(100'000));
  EXPECT_NO_THROW(validate_slice(100'000'000));
  EXPECT_THROW(validate_slice(99'999), Error);
  EXPECT_THROW(validate_slice(100'000'001), Error);
  EXPECT_THROW(validate_slice(-1), Error);
  EXPECT_EQ(clamp_custom_slice(1), 100'000);
  EXPECT_EQ(clamp_custom_slice(1'000'000'000), 100'000'000);
  EXPECT_EQ(clamp_custom_slice(0), 0);
}

TEST(Weights, LatencyNiceMapsInverselyToWeight) {
  const int64_t b = 3'000'000;
  EXPECT_EQ(latency_nice_slice(0, b), b);
  EXPECT_EQ(latency_nice_slice(5, b), b * 1024 / 335);
  // ln 19 would be 3 ms * 1024 / 15 = 204.8 ms: clamped to 100 ms.
  EXPECT_EQ(latency_nice_slice(19, b), 100'000'000);
  // ln -20: 3 ms * 1024 / 88761 = 34.6 us: clamped to 0.1 ms.
  EXPECT_EQ(latency_nice_slice(-20, b), 100'000);
  EXPECT_LT(latency_nice_slice(-5, b), latency_nice_slice(-4, b));
}

}  // namespace
}  // namespace vlag
