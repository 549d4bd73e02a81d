// docs/findings.md §5, the seeds' per-group latency_nice (a cgroup's cpu.latency.nice), as tests
// on the direction of the effect: the command of docs/findings.md run through vlag compare's grid
// (its keys, its seeds 1..3, its ±5 % burst jitter), each assertion on the means it prints.
// hackbench (8 groups of 40 tasks, 200 loops) in cgroup /hb and 4 cyclictest threads in cgroup
// /lat on 4 CPUs under eevdf-latency-nice.
#include <gtest/gtest.h>

#include <string>

#include "compare/aggregate.h"
#include "compare/grid.h"

namespace vlag::compare {
namespace {

// The tables of docs/findings.md §5's grid under `preset` with these variants.
std::vector<MetricTable> tables(const std::string& preset, const std::string& variants) {
  GridSpec spec;
  spec.base.workload = "hackbench+cyclictest";
  spec.base.limit_ns = 2'000'000'000;
  spec.base.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 4);
  spec.base.machine.seed = 1;
  spec.base.machine.jitter = 0.05;
  spec.common = {{"preset", preset},
                 {"groups", "8"},
                 {"loops", "200"},
                 {"tasks", "4"},
                 {"policy", "eevdf-latency-nice"},
                 {"cgroup.lat.workload", "cyclictest"},
                 {"cgroup.hb.workload", "hackbench"}};
  spec.rows = parse_rows("");
  spec.variants = parse_variants(variants);
  spec.repeat = 3;
  spec.lag_points = 0;
  return aggregate(run_grid(spec, 2, nullptr));
}

// Per variant, the mean of a metric in the grid's one row.
std::vector<double> means(const std::vector<MetricTable>& tables, const std::string& metric) {
  std::vector<double> out;
  for (const MetricTable& t : tables)
    if (t.name == metric)
      for (const Cell& c : t.cells.at(0)) out.push_back(c.sample.value().mean);
  EXPECT_FALSE(out.empty()) << metric;
  return out;
}

constexpr const char* kLatencyNice =
    "cgroup.lat.latency_nice=0;cgroup.lat.latency_nice=-20;cgroup.lat.latency_nice=19";

// linux-6.18: the group entity takes its runqueue's least slice (SPEC.md §10.4), so the short
// slice latency_nice -20 gives the cyclictest tasks reaches the root runqueue, where their group
// entity meets hackbench's: its worst wakeup falls from about a millisecond to a few us.
TEST(SimFindings, CgroupLatencyNiceMinus20LowersItsGroupsWakeupTailLinux618) {
  const std::vector<MetricTable> t = tables("linux-6.18", kLatencyNice);
  for (const char* metric : {"cgroup:/lat.wakeup_max", "cyclictest.max"}) {
    const std::vector<double> m = means(t, metric);
    EXPECT_GT(m[0], 500.0) << metric;  // the baseline waits: there is a tail to cut
    EXPECT_LT(m[1], 0.2 * m[0]) << metric;
  }
  // Not bought with CPU: hackbench's group keeps its share within half a point.
  const std::vector<double> share = means(t, "cgroup:/hb.share");
  EXPECT_NEAR(share[1], share[0], 0.5);
  // Not reproduced: seed 002's sensitive cgroup at latency_nice 19 had a worse schbench tail; the
  // model's cyclictest group at 19 keeps its tail within the noise of the baseline's (pinned:
  // neither better nor worse by half).
  const std::vector<double> max = means(t, "cyclictest.max");
  ASSERT_EQ(max.size(), 3u);
  EXPECT_GT(max[2], 0.5 * max[0]);
  EXPECT_LT(max[2], 1.5 * max[0]);
}

// Seed 000's other direction: hackbench at latency_nice 19 (here its cgroup's) lowers the
// latency-sensitive task's maximum; under linux-6.18 its long slices make hackbench's group
// entity's deadline later, so the cyclictest group's wakeups win the root runqueue more often.
TEST(SimFindings, CgroupLatencyNice19OfHackbenchLowersTheOthersTailLinux618) {
  const std::vector<double> m =
      means(tables("linux-6.18", "cgroup.lat.latency_nice=0;cgroup.hb.latency_nice=19"),
            "cyclictest.max");
  EXPECT_LT(m[1], 0.9 * m[0]);
}

// Not reproduced under linux-6.6, and the model says why: a group entity keeps the base slice
// there (§10.4), so a cgroup's latency_nice only orders its own tasks — one cyclictest thread
// per CPU in /lat — and changes no figure at all.
TEST(SimFindings, CgroupLatencyNiceChangesNothingLinux66) {
  const std::vector<MetricTable> t = tables("linux-6.6", kLatencyNice);
  for (const char* metric : {"cgroup:/lat.wakeup_max", "cyclictest.max", "switches"}) {
    const std::vector<double> m = means(t, metric);
    EXPECT_EQ(m[1], m[0]) << metric;
  }
}

}  // namespace
}  // namespace vlag::compare
