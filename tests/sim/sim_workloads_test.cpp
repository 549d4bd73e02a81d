// The benchmark workloads (sim/hackbench.h, schbench.h, cyclictest.h, rtapp.h) and their
// composition: each checked against the behaviour of the tool it stands for.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <numeric>

#include "checker/run.h"
#include "sim/composite.h"
#include "sim/hackbench.h"
#include "sim/hogs.h"
#include "sim/rtapp.h"
#include "sim/scenario.h"
#include "spec/error.h"
#include "spec/weights.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/temp_dir.h"

namespace vlag::sim {
namespace {

double metric(const ScenarioResult& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name;
  return 0;
}

// A pipe of three messages and readers five times slower than writers: senders must block.
TEST(SimWorkloads, PipesBlockSendersWhenFullAndResume) {
  HackbenchConfig c;
  c.groups = 1;
  c.fds = 2;
  c.loops = 50;
  c.capacity_bytes = 3 * kHackbenchMessageBytes + 99;  // room for 3 messages, not 4
  c.recv_ns = 10'000;
  Hackbench w(c);
  Machine m(testing::test_machine(1, Placement::Idle));
  m.run(w, 10'000'000'000);
  EXPECT_EQ(w.capacity_messages(), 3);
  EXPECT_GT(w.counters().sender_blocks, 0);
  EXPECT_EQ(w.counters().max_queued, 3);
  EXPECT_TRUE(w.finished());
  EXPECT_EQ(w.counters().messages_read, int64_t{1} * 2 * 2 * 50);
}

// Whatever the sizes, pipe capacity and CPUs: no pipe ever holds more than it can, and the run
// ends with every message written read.
RC_GTEST_PROP(SimWorkloads, HackbenchReadsEveryMessageWithinCapacity, ()) {
  HackbenchConfig c;
  c.groups = *rc::gen::inRange(1, 4);
  c.fds = *rc::gen::inRange(1, 6);
  c.loops = *rc::gen::inRange(1, 30);
  c.capacity_bytes = *rc::gen::inRange<int64_t>(100, 2'000);
  c.send_ns = *rc::gen::inRange<int64_t>(500, 20'000);
  c.recv_ns = *rc::gen::inRange<int64_t>(500, 20'000);
  const int cpus = *rc::gen::inRange(1, 5);
  Hackbench w(c);
  Machine m(testing::test_machine(cpus, Placement::Idle));
  m.run(w, 100'000'000'000);
  RC_ASSERT(w.finished());
  RC_ASSERT(w.counters().messages_read == int64_t{c.groups} * c.fds * c.fds * c.loops);
  RC_ASSERT(w.counters().max_queued <= w.capacity_messages());
  RC_ASSERT(w.counters().max_queued >= 1);
}

TEST(SimWorkloads, HackbenchTimeScalesDownWithTwoCpus) {
  ScenarioConfig c;
  c.workload = "hackbench";
  c.hackbench_groups = 2;
  c.fds = 5;
  c.loops = 40;
  c.machine = testing::test_machine(1, Placement::Idle);
  const double one = metric(run_scenario(c), "hackbench.time");
  c.machine = testing::test_machine(2, Placement::Idle);
  const ScenarioResult two = run_scenario(c);
  EXPECT_LT(metric(two, "hackbench.time"), one);
  EXPECT_GT(metric(two, "hackbench.time"), one / 2.5);  // two CPUs cannot do much better than half
  EXPECT_NE(two.report.find("# 2 groups == 20 processes run"), std::string::npos) << two.report;
  EXPECT_NE(two.report.find("Total time: "), std::string::npos);
  c.hackbench_threads = true;
  EXPECT_NE(run_scenario(c).report.find("20 threads run"), std::string::npos);
}

TEST(SimWorkloads, SchbenchPercentilesAreOrderedAndRpsMatchesRequests) {
  SchbenchConfig c;
  c.workers = 6;  // more workers than CPUs: wakeups wait
  c.request_ns = 3'000'000;
  Schbench w(c);
  Machine m(testing::test_machine(2, Placement::Idle));
  const MachineStats st = m.run(w, 3'000'000'000);
  for (const LatencyStats* l : {&w.wakeup(), &w.request()}) {
    ASSERT_GT(l->count, 100);
    const int64_t p50 = l->histogram.percentile(50), p90 = l->histogram.percentile(90),
                  p99 = l->histogram.percentile(99);
    EXPECT_LE(p50, p90);
    EXPECT_LE(p90, p99);
    EXPECT_LE(l->min_ns, p50);
    EXPECT_LE(std::min(p99, l->max_ns), l->max_ns);
  }
  // A request sleeps, then computes: never shorter than both.
  EXPECT_GE(w.request().min_ns, c.sleep_ns + c.request_ns);
  EXPECT_DOUBLE_EQ(w.rps(st.end_ns), static_cast<double>(w.requests()) / 3.0);
  EXPECT_EQ(std::accumulate(w.per_second().begin(), w.per_second().end(), int64_t{0}),
            w.requests());
  // Two CPUs complete at most 2 s of requests per second of CPU.
  EXPECT_LE(w.rps(st.end_ns), 2.0 * 1e9 / static_cast<double>(c.request_ns));
  const std::string report = w.report(st);
  for (const char* line :
       {"Wakeup Latencies percentiles (usec) runtime 3 (s)", "Request Latencies percentiles",
        "* 99.0th: ", "RPS percentiles", "average rps: "})
    EXPECT_NE(report.find(line), std::string::npos) << line << "\n" << report;
}

TEST(SimWorkloads, SchbenchMetricsAreOrdered) {
  ScenarioConfig c;
  c.workload = "schbench";
  c.machine = testing::test_machine(2, Placement::Idle);
  c.limit_ns = 2'000'000'000;
  c.schbench.workers = 4;
  c.schbench.request_ns = 2'000'000;
  const ScenarioResult r = run_scenario(c);
  EXPECT_LE(metric(r, "schbench.wakeup_p50"), metric(r, "schbench.wakeup_p90"));
  EXPECT_LE(metric(r, "schbench.wakeup_p90"), metric(r, "schbench.wakeup_p95"));
  EXPECT_LE(metric(r, "schbench.wakeup_p95"), metric(r, "schbench.wakeup_p99"));
  EXPECT_LE(metric(r, "schbench.wakeup_p99"), metric(r, "schbench.wakeup_p999"));
  EXPECT_LE(metric(r, "schbench.request_p50"), metric(r, "schbench.request_p99"));
  EXPECT_GT(metric(r, "schbench.rps"), 0);
  for (const Metric& m : r.metrics) {
    if (m.name == "schbench.rps") {
      EXPECT_EQ(m.better, Better::Higher);
    }
  }
}

TEST(SimWorkloads, CyclictestHistogramCountsSumToLoops) {
  for (const int buckets : {1000, 3}) {  // 3 µs: most wakeups behind hogs overflow
    ScenarioConfig c;
    c.workload = "cyclictest";
    c.machine = testing::test_machine(2, Placement::Idle);
    c.tasks = 2;
    c.hogs = 2;
    c.cyclictest.loops = 400;
    c.cyclictest.histogram_us = buckets;
    Composite w;
    CyclictestConfig cc = c.cyclictest;
    cc.threads = 2;
    w.add("cyclictest", std::make_unique<Cyclictest>(cc));
    w.add("background", std::make_unique<Hogs>(2, TaskOptions{}));
    const auto& cy = dynamic_cast<const Cyclictest&>(*w.parts()[0].bench);
    Machine m(c.machine);
    const MachineStats st = m.run(w, 10'000'000'000);
    EXPECT_TRUE(cy.finished());
    EXPECT_LT(st.end_ns, 10'000'000'000);
    for (const CyclicThreadStats& s : cy.stats()) {
      const int64_t binned = std::accumulate(s.histogram.begin(), s.histogram.end(), int64_t{0});
      EXPECT_EQ(binned + s.overflows, 400) << buckets;
      EXPECT_EQ(s.latency.count, 400);
    }
    const std::string report = cy.report(st);
    EXPECT_NE(report.find("# Histogram\n"), std::string::npos);
    EXPECT_NE(report.find("# Histogram Overflows:"), std::string::npos);
    // The p99 metric lies within the measured range.
    const Metrics ms = cy.metrics(st);
    EXPECT_EQ(ms[1].name, "cyclictest.p99");
    EXPECT_LE(ms[1].value, ms[2].value * 1.02);
  }
}

constexpr const char* kFiveLoopsOf10ms = R"({
    "tasks": { "periodic": { "loop": 5, "run": 1000,
                             "timer": { "ref": "unique", "period": 10000 } } }
  })";

// The timer's grid, without the timer slack (SPEC.md §9.2) the next test adds.
TEST(SimWorkloads, RtAppPeriodicTaskRunsLoopTimesAtItsPeriod) {
  const RtAppConfig c = parse_rtapp(kFiveLoopsOf10ms, "periodic.json");
  RtApp w(c, "rtapp", {parse_workload_settings("rtapp:timer_slack_us=0")});
  Machine m(testing::test_machine(1, Placement::Idle));
  const MachineStats st = m.run(w, 10'000'000'000);
  ASSERT_EQ(w.instances().size(), 1u);
  const RtApp::Instance& in = w.instances()[0];
  EXPECT_EQ(in.stats.loops, 5);
  EXPECT_TRUE(in.stats.exited);
  EXPECT_EQ(in.stats.min_period_ns, 10'000'000);
  EXPECT_EQ(in.stats.max_period_ns, 10'000'000);
  EXPECT_EQ(in.task->runtime_ns, 5 * 1'000'000 + st.switches * 1'000);
  EXPECT_TRUE(w.finished());
  EXPECT_EQ(st.end_ns, 5 * 10'000'000);  // the fifth loop ends with its timer, then it exits
}

// With Linux's default 50 us slack on an idle CPU each timer fires at its hard expiry: the loops
// start 50 us late but stay on the timer's grid, and rt-app's wu_lat counts the lateness.
TEST(SimWorkloads, RtAppTimerSlackMakesEachLoopStartLateOnItsGrid) {
  const RtAppConfig c = parse_rtapp(kFiveLoopsOf10ms, "periodic.json");
  RtApp w(c, "rtapp", {});
  Machine m(testing::test_machine(1, Placement::Idle));
  const MachineStats st = m.run(w, 10'000'000'000);
  const RtApp::Instance& in = w.instances()[0];
  EXPECT_EQ(in.task->attrs.timer_slack_ns, TaskAttrs::kDefaultTimerSlackNs);
  EXPECT_EQ(in.stats.loops, 5);
  EXPECT_EQ(in.stats.min_period_ns, 10'000'000);           // later loops: one period apart
  EXPECT_EQ(in.stats.max_period_ns, 10'000'000 + 50'000);  // the first: 0 to 10.05 ms
  EXPECT_EQ(in.stats.wakeup.count, 4);
  EXPECT_EQ(in.stats.wakeup.min_ns, 50'000);  // the CPU idles: wake to run costs nothing here
  EXPECT_EQ(st.end_ns, 5 * 10'000'000 + 50'000);
}

TEST(SimWorkloads, RtAppKeepsItsPeriodBesideAHog) {
  const RtAppConfig c = parse_rtapp(R"({
    "global": { "duration": 1 },
    "tasks": { "p": { "instance": 2, "run": 500, "timer": { "ref": "unique0", "period": 4000 },
                      "priority": -5, "dl-runtime": 300, "vlag_latency_nice": -20 },
               "hog": { "run": 100000 } }
  })",
                                    "hog.json");
  RtApp w(c, "rtapp", {});
  Machine m(testing::test_machine(1, Placement::Idle));
  m.run(w, 1'000'000'000);
  for (const RtApp::Instance& in : w.instances()) {
    if (in.spec->name != "p") continue;
    EXPECT_EQ(in.task->attrs.nice, -5);
    EXPECT_EQ(in.task->attrs.slice_ns, 300'000);
    EXPECT_EQ(in.task->attrs.latency_nice, -20);
    // An absolute timer keeps the grid: 250 periods of 4 ms in a second, give or take the last.
    EXPECT_GE(in.stats.loops, 249);
    EXPECT_LE(in.stats.loops, 251);
    EXPECT_GT(in.stats.wakeup.count, 200);
  }
}

TEST(SimWorkloads, MalformedRtAppErrorsNameTheFileAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"tasks": {"t": {"run": "x"}}})", "bad.json: tasks.t.run: expected an integer"},
      {R"({"tasks": {"t": {"run": 10, "policy": "SCHED_FIFO"}}})", "tasks.t.policy"},
      {R"({"tasks": {"t": {"timer": {"ref": "a"}}}})", "tasks.t.timer.period: missing"},
      {R"({"tasks": {"t": {"run": 10, "priority": 40}}})", "tasks.t.priority: 40 is outside"},
      {R"({"tasks": {"t": {"run": 10, "cpus": [0]}}})", "tasks.t.cpus"},
      {R"({"tasks": {"t": {"phases": {"p1": {"loop": 0, "run": 5}}}}})", "tasks.t.phases.p1.loop"},
      {R"({"tasks": {"t": {"run": 0}}})", "tasks.t.run: 0 is outside"},
      {R"({"tasks": {"t": {"loop": 3}}})", "tasks.t: a task needs events"},
      {R"({"global": {"duration": "x"}, "tasks": {"t": {"run": 1}}})", "global.duration"},
      {R"({"global": {"duration": 1}})", "tasks: missing"},
      {R"({"tasks": {"t": {"run": 1}}, "extra": 1})", "extra: unknown top-level key"},
      {R"({"tasks": {"t": {"run": 1})", "bad.json: invalid JSON"},
  };
  for (const auto& [json, expected] : cases) {
    try {
      parse_rtapp(json, "bad.json");
      ADD_FAILURE() << "accepted: " << json;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos)
          << e.what() << "\nexpected: " << expected;
    }
  }
}

RC_GTEST_PROP(SimWorkloads, RtAppParserAcceptsOrRejectsAnyText, (const std::string& text)) {
  try {
    const RtAppConfig c = parse_rtapp(text, "any.json");
    RC_ASSERT(!c.tasks.empty());
  } catch (const Error& e) {
    RC_ASSERT(std::string(e.what()).rfind("any.json: ", 0) == 0);
  }
}

TEST(SimWorkloads, RtAppAcceptsCommentsAndPhases) {
  const RtAppConfig c = parse_rtapp(R"({
    /* rt-app files may carry comments */
    "tasks": { "t": { "loop": 2, "phases": {
      "a": { "loop": 3, "run0": 100, "sleep": 200 },  // two events, three times
      "b": { "runtime": 50, "timer": { "ref": "x", "period": 1000, "mode": "relative" } } } } }
  })",
                                    "c.json");
  ASSERT_EQ(c.tasks.size(), 1u);
  ASSERT_EQ(c.tasks[0].phases.size(), 2u);
  EXPECT_EQ(c.tasks[0].phases[0].loop, 3);
  EXPECT_EQ(c.tasks[0].phases[0].events.size(), 2u);
  EXPECT_TRUE(c.tasks[0].phases[1].events[1].relative);
  RtApp w(c, "rtapp", {});
  Machine m(testing::test_machine(1, Placement::Idle));
  m.run(w, 1'000'000'000);
  EXPECT_TRUE(w.finished());
  EXPECT_EQ(w.instances()[0].stats.loops, 2);
  // Per loop: 3 * 100 µs + 50 µs of CPU, plus the switch cost charged at each switch.
  EXPECT_GE(w.instances()[0].task->runtime_ns, 2 * 350'000);
}

TEST(SimWorkloads, CompositionRunsBothAndGroupSettingsReachTheirTasks) {
  ScenarioConfig c;
  c.workload = "hackbench+cyclictest";
  c.machine = testing::test_machine(2, Placement::Idle);
  c.hackbench_groups = 2;
  c.fds = 4;
  c.loops = 100;
  c.tasks = 2;
  c.workload_settings = {
      parse_workload_settings("cyclictest:latency_nice=-20,slice_us=100,nice=-3"),
      parse_workload_settings("hackbench:nice=2")};
  const ScenarioResult r = run_scenario(c);
  EXPECT_NE(r.report.find("Total time: "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("T: 0"), std::string::npos) << r.report;
  EXPECT_GT(metric(r, "hackbench.time"), 0);
  // The run ends with hackbench (cyclictest without -l never ends by itself).
  EXPECT_DOUBLE_EQ(metric(r, "hackbench.time"), static_cast<double>(r.stats.end_ns) / 1e9);
  int cyclic = 0, hack = 0;
  for (const TaskSummary& t : r.tasks) {
    if (t.workload == "cyclictest") {
      ++cyclic;
      EXPECT_EQ(t.nice, -3);
      EXPECT_EQ(t.latency_nice, -20);
      EXPECT_EQ(t.slice_ns, 100'000);
      EXPECT_GT(t.latency.count(), 0);  // it measured wakeups while hackbench ran
    } else {
      ++hack;
      EXPECT_EQ(t.workload, "hackbench");
      EXPECT_EQ(t.nice, 2);
      EXPECT_EQ(t.latency_nice, 0);
      EXPECT_EQ(t.slice_ns, 0);
    }
  }
  EXPECT_EQ(cyclic, 2);
  EXPECT_EQ(hack, 2 * 2 * 4);  // no background hogs beside hackbench
}

TEST(SimWorkloads, PerTaskListsCycleWithinEachWorkload) {
  ScenarioConfig c;
  c.workload = "hogs";
  c.machine = testing::test_machine(1, Placement::Idle);
  c.limit_ns = 100'000'000;
  c.tasks = 3;
  c.hogs = 1;
  c.options.nice = {0, 5};
  c.options.latency_nice = {-10};
  c.workload_settings = {parse_workload_settings("background:nice=7")};
  const ScenarioResult r = run_scenario(c);
  ASSERT_EQ(r.tasks.size(), 4u);
  EXPECT_EQ(r.tasks[0].nice, 0);
  EXPECT_EQ(r.tasks[1].nice, 5);
  EXPECT_EQ(r.tasks[2].nice, 0);
  EXPECT_EQ(r.tasks[2].latency_nice, -10);
  EXPECT_EQ(r.tasks[3].workload, "background");
  EXPECT_EQ(r.tasks[3].nice, 7);
  EXPECT_EQ(r.tasks[3].latency_nice, 0);  // the lists are for the workloads' own tasks
}

TEST(SimWorkloads, BadWorkloadsAndGroupSettingsAreErrors) {
  ScenarioConfig c;
  c.machine = testing::test_machine(1, Placement::Idle);
  for (const char* w : {"hackbench+nosuch", "hackbench+hackbench", "rtapp", ""}) {
    c.workload = w;
    EXPECT_THROW(run_scenario(c), Error) << w;
  }
  for (const char* g : {"cyclictest", ":nice=1", "hogs:nice", "hogs:nice=30", "hogs:speed=1",
                        "hogs:slice_us=-1", "hogs:nice=1x"})
    EXPECT_THROW(parse_workload_settings(g), Error) << g;
}

TEST(SimWorkloads, SameSeedGivesTheSameMetrics) {
  ScenarioConfig c;
  c.workload = "hackbench+schbench";
  c.machine = testing::test_machine(2, Placement::Idle);
  c.machine.seed = 7;
  c.hackbench_groups = 2;
  c.fds = 4;
  c.loops = 30;
  c.schbench.request_ns = 1'000'000;
  const ScenarioResult a = run_scenario(c);
  const ScenarioResult b = run_scenario(c);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (size_t i = 0; i < a.metrics.size(); ++i) {
    EXPECT_EQ(a.metrics[i].name, b.metrics[i].name);
    EXPECT_EQ(a.metrics[i].value, b.metrics[i].value) << a.metrics[i].name;
  }
  EXPECT_EQ(a.report, b.report);
}

// The composed workloads' per-CPU traces pass the checker on every invariant, as
// tests/sim/sim_test.cpp checks them for single workloads.
TEST(SimWorkloads, ComposedRunTracesPassTheChecker) {
  const testing::TempDir tmp;
  const std::string dir = tmp.path() + "/traces";
  std::filesystem::remove_all(dir);
  ScenarioConfig c;
  c.workload = "hackbench+schbench+cyclictest";
  c.machine = testing::test_machine(2, Placement::Idle);
  c.machine.trace_dir = dir;
  c.hackbench_groups = 1;
  c.fds = 4;
  c.loops = 200;
  c.pipe_bytes = 500;
  c.schbench.request_ns = 500'000;
  c.workload_settings = {parse_workload_settings("schbench:slice_us=200,nice=-2")};
  const ScenarioResult r = run_scenario(c);
  EXPECT_GT(r.stats.switches, 100);
  for (int cpu = 0; cpu < 2; ++cpu) {
    const std::string path = dir + "/cpu" + std::to_string(cpu) + ".jsonl";
    const checker::Report report = checker::check({checker::file_source(path)}, {});
    EXPECT_EQ(report.problem_count, 0) << path;
    EXPECT_GT(report.stats.at("INV-STEP").checked, 0) << path;
    for (const auto& [id, s] : report.stats) {
      if (id.rfind("INV-", 0) == 0) {
        EXPECT_EQ(s.violated, 0) << path << " " << id << ": " << s.worst;
      }
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vlag::sim
