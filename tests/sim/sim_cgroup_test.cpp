// The simulator with task groups (SPEC.md §10): --cgroup and --autogroup place tasks in groups,
// every CPU runs a hierarchy, and its traces (a runqueue per group, group entities, `put`)
// pass vlag check on every runqueue. THM-GROUP-SHARE on the workload: one hog in /a
// against three in /b, with equal cpu.weight, on one CPU and on two with migrations.
#include <gtest/gtest.h>

#include <string>

#include "sim/cgroups.h"
#include "sim/machine.h"
#include "sim/scenario.h"
#include "spec/error.h"
#include "spec/properties.h"
#include "tests/support/group_shares.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/machine_traces.h"
#include "tests/support/temp_dir.h"

namespace vlag::sim {
namespace {

using testing::expect_traces_pass;

using testing::share;

ScenarioConfig one_against_three(int cpus, const std::string& trace_dir) {
  ScenarioConfig c;
  c.machine = testing::test_machine(cpus, Placement::Prev, trace_dir);
  c.workload = "hogs";
  c.tasks = 4 * cpus;
  c.limit_ns = 10'000'000'000;
  c.machine.cgroups = {parse_cgroup_spec("a:weight=100,tasks=" + std::to_string(cpus)),
                       parse_cgroup_spec("b:weight=100,tasks=" + std::to_string(3 * cpus))};
  return c;
}

// THM-GROUP-SHARE, one CPU: /a's one hog 50 %, /b's three 16.7 % each, within 1 pp.
TEST(SimCgroup, OneHogAgainstThreeSharesByGroupOnOneCpu) {
  testing::TempDir dir;
  const ScenarioResult r = run_scenario(one_against_three(1, dir.path()));
  EXPECT_NEAR(share(r, "hog0"), 0.5, 0.01) << ids::kThmGroupShare << "\n" << r.report;
  for (const char* b : {"hog1", "hog2", "hog3"})
    EXPECT_NEAR(share(r, b), 1.0 / 6, 0.01) << ids::kThmGroupShare << "\n" << r.report;
  EXPECT_NE(r.report.find("/a"), std::string::npos) << r.report;
  expect_traces_pass(dir.path(), 1);
}

// Two CPUs, two hogs in /a and six in /b, spread round-robin: each CPU holds one /a hog and
// three /b hogs, and splits its time 50 % / 16.7 % x 3 as one CPU does.
TEST(SimCgroup, OneHogAgainstThreeSharesByGroupOnTwoCpus) {
  testing::TempDir dir;
  const ScenarioResult r = run_scenario(one_against_three(2, dir.path()));
  for (const TaskSummary& t : r.tasks)
    EXPECT_NEAR(static_cast<double>(t.runtime_ns) / static_cast<double>(r.stats.end_ns),
                t.group == "/a" ? 0.5 : 1.0 / 6, 0.01)
        << ids::kThmGroupShare << " " << t.name << "\n"
        << r.report;
  expect_traces_pass(dir.path(), 2);
}

using testing::HogsOnCpu0;

// Two CPUs with migrations: eight hogs (two in /a, six in /b) all started on CPU 0, which the
// balancer spreads four and four. Per CPU the theorem holds with each group entity weighing what
// the shares rule gives it there (SPEC.md §10.5): w = S·L(G, c)/ΣL(G, ·), and a task's share is
// its group entity's fraction of the CPU over the group's tasks there. The traces of both CPUs,
// attach and detach included, pass at every level.
TEST(SimCgroup, SharesFollowTheSharesRuleOnTwoCpusWithMigrations) {
  testing::TempDir dir;
  MachineConfig c = testing::test_machine(2, Placement::Prev, dir.path());
  c.cgroups = {parse_cgroup_spec("a:weight=100,tasks=2"),
               parse_cgroup_spec("b:weight=100,tasks=6")};
  Machine m(c);
  HogsOnCpu0 w(8);
  const MachineStats st = m.run(w, 10'000'000'000);
  EXPECT_GE(st.balance_migrations, 4);
  testing::expect_shares_follow_the_shares_rule(m, w.tasks(), st, {{"/a", 1024}, {"/b", 1024}});
  expect_traces_pass(dir.path(), 2);
}

// --autogroup: one group per workload, each with nice 0's weight.
TEST(SimCgroup, AutogroupGivesEachWorkloadAGroup) {
  ScenarioConfig c;
  c.machine = testing::test_machine(1, Placement::Prev);
  c.machine.autogroup = true;
  c.workload = "hogs";
  c.tasks = 3;
  c.limit_ns = 1'000'000'000;
  const ScenarioResult r = run_scenario(c);
  for (const TaskSummary& t : r.tasks) EXPECT_EQ(t.group, "/autogroup-hogs");
}

TEST(SimCgroup, CgroupSpecsAreParsedAndBadOnesNamed) {
  const CgroupSpec s = parse_cgroup_spec("a/b:weight=250,latency_nice=-5,tasks=2");
  EXPECT_EQ(s.path, "/a/b");
  EXPECT_EQ(s.weight, 250);
  EXPECT_EQ(s.latency_nice, -5);
  EXPECT_EQ(s.tasks, 2);
  EXPECT_THROW(parse_cgroup_spec("a:weight=0"), Error);
  EXPECT_THROW(parse_cgroup_spec("a:colour=red"), Error);
  EXPECT_THROW(parse_cgroup_spec(":weight=5"), Error);
  // A cgroup that asks for more tasks than the run creates is an error, not a silent no-op.
  ScenarioConfig c = one_against_three(1, "");
  c.tasks = 2;
  EXPECT_THROW(run_scenario(c), Error);
}

}  // namespace
}  // namespace vlag::sim
