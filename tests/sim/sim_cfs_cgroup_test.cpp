// The CFS policies with task groups (SPEC.md §8.6): --cgroup under --policy cfs runs v6.5's
// hierarchy (cfs/hierarchy.h) on every CPU; groups share the CPU by their weights and tasks their
// group's part, on one CPU and on two with the balancer moving tasks by hierarchical load, and
// the traces (a runqueue per group) pass vlag check.
#include <gtest/gtest.h>

#include <string>

#include "sim/cgroups.h"
#include "sim/machine.h"
#include "sim/scenario.h"
#include "spec/weights.h"
#include "tests/support/group_shares.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/machine_traces.h"
#include "tests/support/temp_dir.h"

namespace vlag::sim {
namespace {

using testing::expect_traces_pass;
using testing::HogsOnCpu0;

using testing::share;

// One CPU, `a` hogs in /a and `b` in /b with the given cpu.weights, under `policy`.
ScenarioConfig hogs_in_two_groups(Policy policy, int a, int64_t wa, int b, int64_t wb,
                                  const std::string& trace_dir) {
  ScenarioConfig c;
  c.machine = testing::test_machine(1, Placement::Prev, trace_dir);
  c.machine.policy = policy;
  c.workload = "hogs";
  c.tasks = a + b;
  c.limit_ns = 10'000'000'000;
  c.machine.cgroups = {
      parse_cgroup_spec("a:weight=" + std::to_string(wa) + ",tasks=" + std::to_string(a)),
      parse_cgroup_spec("b:weight=" + std::to_string(wb) + ",tasks=" + std::to_string(b))};
  return c;
}

// One hog in /a against three in /b, equal weights: /a's hog 50 %, each of /b's 16.7 %.
TEST(SimCfsCgroup, OneHogAgainstThreeSharesByGroupOnOneCpu) {
  for (Policy p : {Policy::Cfs, Policy::CfsLatencyNice}) {
    testing::TempDir dir;
    const ScenarioResult r = run_scenario(hogs_in_two_groups(p, 1, 100, 3, 100, dir.path()));
    EXPECT_NEAR(share(r, "hog0"), 0.5, 0.01) << policy_name(p) << "\n" << r.report;
    for (const char* b : {"hog1", "hog2", "hog3"})
      EXPECT_NEAR(share(r, b), 1.0 / 6, 0.01) << policy_name(p) << "\n" << r.report;
    expect_traces_pass(dir.path(), 1);
  }
}

// cpu.weight 200 against 100, a hog in each: 2/3 and 1/3.
TEST(SimCfsCgroup, GroupWeightsSplitTheCpuOnOneCpu) {
  testing::TempDir dir;
  const ScenarioResult r =
      run_scenario(hogs_in_two_groups(Policy::Cfs, 1, 200, 1, 100, dir.path()));
  EXPECT_NEAR(share(r, "hog0"), 2.0 / 3, 0.01) << r.report;
  EXPECT_NEAR(share(r, "hog1"), 1.0 / 3, 0.01) << r.report;
  expect_traces_pass(dir.path(), 1);
}

// Two CPUs, every hog started on CPU 0 so that only the balancer (by hierarchical load, §10.6)
// spreads them; per CPU the shares follow the shares rule.
void expect_shares_on_two_cpus(int64_t wa, int a, int64_t wb, int b) {
  testing::TempDir dir;
  MachineConfig c = testing::test_machine(2, Placement::Prev, dir.path());
  c.policy = Policy::Cfs;
  c.cgroups = {parse_cgroup_spec("a:weight=" + std::to_string(wa) + ",tasks=" + std::to_string(a)),
               parse_cgroup_spec("b:weight=" + std::to_string(wb) + ",tasks=" + std::to_string(b))};
  Machine m(c);
  HogsOnCpu0 w(a + b);
  const MachineStats st = m.run(w, 10'000'000'000);
  EXPECT_GE(st.balance_migrations, (a + b) / 2);
  testing::expect_shares_follow_the_shares_rule(
      m, w.tasks(), st, {{"/a", cgroup_weight_to_shares(wa)}, {"/b", cgroup_weight_to_shares(wb)}});
  expect_traces_pass(dir.path(), 2);
}

TEST(SimCfsCgroup, OneHogAgainstThreeOnTwoCpusWithTheBalancer) {
  expect_shares_on_two_cpus(100, 2, 100, 6);
}

TEST(SimCfsCgroup, GroupWeightsSplitTwoCpusWithTheBalancer) {
  expect_shares_on_two_cpus(200, 2, 100, 2);
}

// Migrations back and forth (hackbench and cyclictest in cgroups on 2 CPUs): every detach and
// attach is reported on its group's runqueue, so each CPU's trace passes (INV-ONE-RUNQUEUE
// included).
TEST(SimCfsCgroup, TracesOfMigratingGroupTasksPass) {
  testing::TempDir dir;
  ScenarioConfig c;
  c.machine = testing::test_machine(2, Placement::Prev, dir.path());
  c.machine.policy = Policy::CfsLatencyNice;
  c.machine.cgroups = {parse_cgroup_spec("lat:workload=cyclictest,latency_nice=-20"),
                       parse_cgroup_spec("hb:workload=hackbench,weight=300")};
  c.workload = "hackbench+cyclictest";
  c.tasks = 2;
  c.hackbench_groups = 1;
  c.loops = 50;
  c.limit_ns = 300'000'000;
  const ScenarioResult r = run_scenario(c);
  EXPECT_GT(r.stats.migrations, 0);
  expect_traces_pass(dir.path(), 2);
}

}  // namespace
}  // namespace vlag::sim
