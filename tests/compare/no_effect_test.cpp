// Warnings for varied settings that change nothing (compare/no_effect.h), and rt-app
// descriptions as a comparison's workload.
#include "compare/no_effect.h"

#include <gtest/gtest.h>

#include <string>

#include "compare/aggregate.h"

namespace vlag::compare {
namespace {

GridSpec grid(const std::string& workload, const std::string& vary, int cpus = 1) {
  GridSpec spec;
  spec.base.workload = workload;
  spec.base.limit_ns = 50'000'000;
  spec.base.machine.params = make_params(preset_by_name("linux-6.18"), 250, cpus);
  spec.base.machine.jitter = 0.05;
  spec.rows = parse_rows("");
  spec.variants = parse_vary(vary);
  spec.repeat = 2;
  spec.lag_points = 0;
  return spec;
}

// The README's example: the default policy reads no latency_nice, so every metric is "same".
TEST(NoEffect, LatencyNiceUnderTheDefaultPolicyIsFlaggedBeforeAndAfter) {
  const GridSpec spec = grid("cyclictest", "latency_nice=0,-20,19");
  const auto before = ignored_settings(spec);
  ASSERT_EQ(before.size(), 3u);
  EXPECT_NE(before[1].find("policy eevdf ignores latency_nice"), std::string::npos) << before[1];
  // A variant of one setting is named once, by its label.
  EXPECT_EQ(before[1].rfind("variant latency_nice=-20 has no effect: ", 0), 0u) << before[1];
  const auto after = variants_without_effect(run_grid(spec, 1, {}));
  EXPECT_EQ(after.size(), 2u);  // both non-baseline variants gave the baseline's figures
}

// Under eevdf-latency-nice the policy reads latency_nice: no warning before the runs. After
// them, -20 is flagged (cyclictest's 5 us wakeups preempt the hogs already with the base slice,
// so a shorter one changes nothing here) and 19 is not (its long slice delays them).
TEST(NoEffect, LatencyNiceUnderALatencyNicePolicyIsFlaggedOnlyWhereItChangedNothing) {
  GridSpec spec = grid("cyclictest", "latency_nice=0,-20,19");
  spec.common["policy"] = "eevdf-latency-nice";
  EXPECT_TRUE(ignored_settings(spec).empty());
  const auto after = variants_without_effect(run_grid(spec, 1, {}));
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(after[0].find("latency_nice=-20"), std::string::npos) << after[0];
}

TEST(NoEffect, PlacementAndBalancingOnOneCpuAreFlagged) {
  EXPECT_EQ(ignored_settings(grid("hogs", "placement=prev,idle")).size(), 2u);
  EXPECT_TRUE(ignored_settings(grid("hogs", "placement=prev,idle", 2)).empty());
  EXPECT_EQ(ignored_settings(grid("hogs", "balance_ticks=1,8")).size(), 2u);
}

// An rt-app description in a grid: its wu_lat metrics, and a variant that does matter.
TEST(CompareRtApp, RunsAnRtAppDescriptionPerCell) {
  // rt-app's threads take their settings from the description and --group, not the lists.
  GridSpec spec = grid("rtapp", "group=rtapp:timer_slack_us=50,rtapp:timer_slack_us=0");
  spec.common["rtapp"] = std::string(VLAG_TEST_DATA) + "/../../examples/rtapp-periodic.json";
  const RunResults results = run_grid(spec, 1, {});
  EXPECT_TRUE(variants_without_effect(results).empty());
  bool has_wu_lat = false;
  for (const MetricTable& t : aggregate(results)) has_wu_lat |= t.name == "rtapp.wu_lat_avg";
  EXPECT_TRUE(has_wu_lat);
}

}  // namespace
}  // namespace vlag::compare
