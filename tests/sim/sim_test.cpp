#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "checker/run.h"
#include "sim/composite.h"
#include "sim/cyclictest.h"
#include "sim/hackbench.h"
#include "sim/hogs.h"
#include "sim/scenario.h"
#include "spec/weights.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/temp_dir.h"

namespace vlag::sim {
namespace {

HackbenchConfig small_hackbench() {
  HackbenchConfig c;
  c.groups = 2;
  c.fds = 4;
  c.loops = 20;
  return c;
}

std::string run_hackbench(int cpus, Placement placement, int64_t* end_ns = nullptr) {
  Hackbench w(small_hackbench());
  Machine m(testing::test_machine(cpus, placement));
  const MachineStats st = m.run(w, 10'000'000'000);
  EXPECT_TRUE(w.finished());
  if (end_ns) *end_ns = st.end_ns;
  std::ostringstream out;
  out << hackbench_summary(w, st.end_ns) << st.events << " " << st.switches << " " << st.migrations;
  for (const auto& t : m.tasks()) out << " " << t->runtime_ns << "/" << t->latency.max_ns;
  return out.str();
}

TEST(Sim, SameSeedGivesTheSameRun) {
  EXPECT_EQ(run_hackbench(2, Placement::Idle), run_hackbench(2, Placement::Idle));
}

// THM-SHARE per CPU: hogs placed round-robin stay on their CPU (placement only acts at wakeups,
// and 3 against 2 hogs is within load balancing's one-task tolerance), and on each CPU they
// share it in proportion to weight.
TEST(Sim, HogsGetWeightProportionalSharesPerCpu) {
  TaskOptions o;
  o.nice = {0, 0, 5, 3, -2};
  Hogs w(5, o);
  Machine m(testing::test_machine(2, Placement::Prev));
  const int64_t T = 2'000'000'000;
  m.run(w, T);
  for (int c = 0; c < 2; ++c) {
    int64_t weight_sum = 0;
    for (const auto& t : m.tasks())
      if (t->cpu == c) weight_sum += nice_to_weight(t->attrs.nice);
    for (const auto& t : m.tasks()) {
      if (t->cpu != c) continue;
      const double ideal =
          static_cast<double>(nice_to_weight(t->attrs.nice)) / static_cast<double>(weight_sum);
      const double share = static_cast<double>(t->runtime_ns) / static_cast<double>(T);
      // The lag bound: within 2·max(slice, tick) + tick of the fluid share, over 2 s.
      const double bound = (2.0 * 4e6 + 4e6) / static_cast<double>(T);
      EXPECT_NEAR(share, ideal, bound) << t->attrs.name << " on CPU " << c;
      EXPECT_EQ(t->migrations, 0);
    }
  }
}

// Each CPU's trace of a short run is one runqueue's history in Linux integer arithmetic
// ("arith":"linux64") and passes the checker on every ID: INV-STEP against a shadow in the same
// arithmetic, the rounding-bounded IDs within SPEC.md §7.3's bounds. Every workload under every
// EEVDF policy, on 2 and 3 CPUs with wakeup migrations and load balancing.
TEST(Sim, EveryPerCpuTraceOfEveryWorkloadAndPolicyPassesTheChecker) {
  const testing::TempDir tmp;
  const std::string dir = tmp.path() + "/traces";
  int64_t migrations = 0;
  for (const std::string workload :
       {"hogs", "cyclictest", "hackbench", "schbench", "hackbench+cyclictest"}) {
    for (const std::string policy : {"eevdf", "eevdf-latency-nice", "no-same-prio-preempt"}) {
      const int cpus = workload.size() % 2 == 0 ? 2 : 3;
      std::filesystem::remove_all(dir);
      ScenarioConfig c;
      c.machine = testing::test_machine(cpus, Placement::SisShort, dir);
      c.machine.policy = policy_by_name(policy);
      c.workload = workload;
      c.limit_ns = 150'000'000;
      c.tasks = cpus + 2;  // more tasks than CPUs: queues, wakeups onto busy CPUs, balancing
      c.hackbench_groups = 2;
      c.fds = 4;
      c.loops = 20;
      c.options.nice = {0, 5, -3};
      c.options.latency_nice = {0, -10, 7};
      const ScenarioResult res = run_scenario(c);
      migrations += res.stats.migrations;
      for (int k = 0; k < cpus; ++k) {
        const std::string path = dir + "/cpu" + std::to_string(k) + ".jsonl";
        const checker::Report r = checker::check({checker::file_source(path)}, {});
        const std::string what = workload + " " + policy + " " + path;
        EXPECT_EQ(r.problem_count, 0) << what;
        EXPECT_EQ(r.violation_count, 0) << what;
        for (const auto& [id, st] : r.stats)
          EXPECT_EQ(st.violated, 0) << what << " " << id << ": " << st.worst;
        for (const std::string& note : r.notes)  // the shadow ran to the end
          EXPECT_EQ(note.find("stopped"), std::string::npos) << what << " " << note;
        const auto step = r.stats.find("INV-STEP");
        EXPECT_TRUE(step != r.stats.end() && step->second.checked > 0) << what;
      }
    }
  }
  EXPECT_GT(migrations, 0);
  std::filesystem::remove_all(dir);
}

int64_t count_events(const std::string& path, const std::string& ev) {
  std::ifstream in(path);
  int64_t n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"ev\":\"" + ev + "\"") != std::string::npos) ++n;
  return n;
}

// Under the CFS policies a migration is traced too (SPEC.md §8.4): every task that leaves a CPU
// is a detach event there and an attach event on the CPU it joins, and the CFS invariants hold
// on every CPU's trace across the moves.
TEST(Sim, CfsPerCpuTracesOfMigratingRunsPassTheCfsChecks) {
  const testing::TempDir tmp;
  const std::string dir = tmp.path() + "/traces";
  for (const std::string policy : {"cfs", "cfs-latency-nice"}) {
    std::filesystem::remove_all(dir);
    ScenarioConfig c;
    c.machine = testing::test_machine(3, Placement::Idle, dir);
    c.machine.policy = policy_by_name(policy);
    c.workload = "hackbench+cyclictest";
    c.limit_ns = 150'000'000;
    c.hackbench_groups = 2;  // 80 hackbench tasks on 3 CPUs: the balancer moves some
    c.options.latency_nice = {0, -10, 7};
    const ScenarioResult res = run_scenario(c);
    EXPECT_GT(res.stats.migrations, 0) << policy;
    int64_t detaches = 0;
    int64_t attaches = 0;
    for (int k = 0; k < 3; ++k) {
      const std::string path = dir + "/cpu" + std::to_string(k) + ".jsonl";
      detaches += count_events(path, "detach");
      attaches += count_events(path, "attach");
      const checker::Report r = checker::check({checker::file_source(path)}, {});
      EXPECT_EQ(r.problem_count, 0) << policy << " " << path;
      EXPECT_EQ(r.violation_count, 0) << policy << " " << path;
      EXPECT_GT(r.stats.at("CFS-PICK-LEFTMOST").checked, 0) << policy << " " << path;
    }
    EXPECT_EQ(detaches, res.stats.migrations) << policy;
    EXPECT_EQ(attaches, res.stats.migrations) << policy;
  }
  std::filesystem::remove_all(dir);
}

TEST(Sim, CyclictestLatenciesAreFiniteAndNonNegative) {
  CyclictestConfig c;
  c.threads = 2;
  Composite load;
  load.add("cyclictest", std::make_unique<Cyclictest>(c));
  load.add("background", std::make_unique<Hogs>(4, TaskOptions{}));
  const auto& w = dynamic_cast<const Cyclictest&>(*load.parts()[0].bench);
  Machine m(testing::test_machine(2, Placement::Prev));
  m.run(load, 1'000'000'000);
  for (const Task* t : w.threads()) {
    EXPECT_GT(t->latency.count, 900) << t->attrs.name;
    EXPECT_GE(t->latency.min_ns, 0);
    EXPECT_LE(t->latency.max_ns, 100'000'000);  // bounded by the hogs' slices and ticks
    EXPECT_GE(t->latency.avg_ns(), static_cast<double>(t->latency.min_ns));
  }
  EXPECT_NE(cyclictest_summary(w).find("T: 0"), std::string::npos);
}

TEST(Sim, HackbenchIsFasterOnTwoCpus) {
  int64_t one = 0, two = 0;
  run_hackbench(1, Placement::Idle, &one);
  run_hackbench(2, Placement::Idle, &two);
  EXPECT_LT(two, one);
  EXPECT_GT(two, 0);
}

}  // namespace
}  // namespace vlag::sim
