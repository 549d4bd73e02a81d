// The seeds' four findings (docs/findings.md), as tests on the direction of the effect in the
// model. Each runs the configuration its docs/findings.md command runs, on seeds 1..kSeeds with the
// ±5 % burst jitter `vlag compare` uses, and compares means. Where the model does not reproduce a
// finding, the test pins what the model does instead, and docs/findings.md says why.
#include <gtest/gtest.h>

#include <string>

#include "sim/scenario.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

constexpr int kSeeds = 3;

ScenarioConfig base(const std::string& workload, int cpus, Policy policy) {
  ScenarioConfig c;
  c.machine.params = make_params(preset_by_name(kDefaultPreset), 250, cpus);
  c.machine.policy = policy;
  c.machine.jitter = 0.05;
  c.workload = workload;
  c.limit_ns = 2'000'000'000;
  return c;
}

double metric(const ScenarioResult& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name) return m.value;
  throw Error("no metric " + name);
}

// The mean of a metric over seeds 1..kSeeds.
double mean(ScenarioConfig c, const std::string& name) {
  double sum = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    c.machine.seed = static_cast<uint64_t>(seed);
    sum += metric(run_scenario(c), name);
  }
  return sum / kSeeds;
}

WorkloadSettings cyclictest_group(std::optional<int> latency_nice,
                                  std::optional<int64_t> slice_ns) {
  WorkloadSettings g;
  g.workload = "cyclictest";
  g.latency_nice = latency_nice;
  g.slice_ns = slice_ns;
  return g;
}

// hackbench (4 groups, 160 tasks) with 4 cyclictest threads on 4 CPUs.
ScenarioConfig hackbench_cyclictest(Policy policy, WorkloadSettings cyclictest) {
  ScenarioConfig c = base("hackbench+cyclictest", 4, policy);
  c.hackbench_groups = 4;
  c.tasks = 4;
  c.workload_settings = {cyclictest};
  return c;
}

void expect_lower_tail(const ScenarioConfig& baseline, const ScenarioConfig& variant) {
  for (const char* name : {"cyclictest.p99", "cyclictest.max"}) {
    const double b = mean(baseline, name);
    const double v = mean(variant, name);
    EXPECT_LT(v, b) << name;
  }
}

// Finding 1 (seed 000's hackbench + cyclictest tables, seed 002): a latency-sensitive task under
// a hackbench load waits less with latency_nice -20 than with 0.
TEST(SimFindings, LatencyNiceMinus20LowersCyclictestTailUnderHackbenchEevdf) {
  expect_lower_tail(
      hackbench_cyclictest(Policy::EevdfLatencyNice, cyclictest_group(0, std::nullopt)),
      hackbench_cyclictest(Policy::EevdfLatencyNice, cyclictest_group(-20, std::nullopt)));
}

TEST(SimFindings, LatencyNiceMinus20LowersCyclictestTailUnderHackbenchCfs) {
  expect_lower_tail(
      hackbench_cyclictest(Policy::CfsLatencyNice, cyclictest_group(0, std::nullopt)),
      hackbench_cyclictest(Policy::CfsLatencyNice, cyclictest_group(-20, std::nullopt)));
}

// ... and so does a short custom slice, the mechanism EEVDF uses for it (seed 002).
TEST(SimFindings, ShortSliceLowersCyclictestTailUnderHackbench) {
  expect_lower_tail(hackbench_cyclictest(Policy::Eevdf, cyclictest_group(std::nullopt, 0)),
                    hackbench_cyclictest(Policy::Eevdf, cyclictest_group(std::nullopt, 100'000)));
}

// hackbench alone on 4 CPUs with a 2 µs context-switch cost, summed over 2, 4 and 8 groups.
double hackbench_total(Policy policy, int latency_nice, const std::string& name) {
  double total = 0;
  for (int groups : {2, 4, 8}) {
    ScenarioConfig c = base("hackbench", 4, policy);
    c.hackbench_groups = groups;
    c.machine.switch_cost_ns = 2'000;
    if (latency_nice != 0) c.options.latency_nice = {latency_nice};
    total += mean(c, name);
  }
  return total;
}

// Finding 2 (seed 000): latency_nice 19 for hackbench lowers its context switches — in the model
// at light load (2 groups on 4 CPUs); at 4 and 8 groups the change is within noise either way
// (docs/findings.md says why).
TEST(SimFindings, LatencyNice19LowersHackbenchContextSwitchesAtLightLoad) {
  ScenarioConfig c = base("hackbench", 4, Policy::EevdfLatencyNice);
  c.hackbench_groups = 2;
  c.machine.switch_cost_ns = 2'000;
  const double ln0 = mean(c, "switches");
  c.options.latency_nice = {19};
  EXPECT_LT(mean(c, "switches"), ln0);
}

// ... but does not raise its throughput in the model: the model's hackbench keeps every CPU busy
// with 2 µs writes and reads and switches a few thousand times in total, so the switches saved
// are worth well under 1 % of its time (docs/findings.md). Pinned so a change shows.
TEST(SimFindings, LatencyNice19LeavesModelHackbenchTimeWithinOnePercent) {
  const double ln0 = hackbench_total(Policy::EevdfLatencyNice, 0, "hackbench.time");
  const double ln19 = hackbench_total(Policy::EevdfLatencyNice, 19, "hackbench.time");
  EXPECT_NEAR(ln19 / ln0, 1.0, 0.01);
}

// Finding 3 (seed 004): no wakeup preemption between equal-priority tasks cuts context switches.
TEST(SimFindings, NoSamePrioPreemptCutsHackbenchContextSwitches) {
  EXPECT_LT(hackbench_total(Policy::NoSamePrioPreempt, 0, "switches"),
            hackbench_total(Policy::Eevdf, 0, "switches"));
}

// Finding 4 (seed 003): SIS_SHORT cuts cross-CPU wakeups under load — NOT reproduced on the
// model's hackbench: its wakers run on CPUs with many runnable tasks, and SIS_SHORT only picks a
// CPU whose single task is short, so the rule almost never applies (docs/findings.md). The
// mechanism itself is tested in SimMachine.SisShortCutsCrossCpuWakeupsOfShortWakers.
TEST(SimFindings, SisShortLeavesModelHackbenchCrossCpuWakeupsWithinThreePercent) {
  double idle = 0;
  double sis_short = 0;
  for (int groups : {1, 2}) {
    ScenarioConfig c = base("hackbench", 8, Policy::Eevdf);
    c.hackbench_groups = groups;
    c.pipe_bytes = 1000;
    c.machine.placement = Placement::Idle;
    idle += mean(c, "cross_cpu_wakeups");
    c.machine.placement = Placement::SisShort;
    sis_short += mean(c, "cross_cpu_wakeups");
  }
  EXPECT_GT(idle, 0);
  EXPECT_NEAR(sis_short / idle, 1.0, 0.03);
}

}  // namespace
}  // namespace vlag::sim
