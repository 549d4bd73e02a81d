// The fidelity suite (docs/fidelity.md): every quiet capture of tests/data/fidelity replayed on
// the model, held against the goal of issue 18 — on one CPU each task's share within 1 pp,
// wake-to-run p50 and p99 within 20 % or 50 us, the workload's context switches within 10 %; on
// two CPUs shares and p50 — except where a workload states a looser bound, each with the reason
// docs/fidelity.md gives. A model change that moves a replay outside these fails here.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "replay/replay.h"

namespace vlag::replay {
namespace {

// A bound looser than the goal for one metric of a workload's tasks.
struct Looser {
  std::string metric;  // share, p50, p99, switches
  double allowed;      // pp, ns or count, as Verdict::allowed
};

struct Case {
  const char* name;
  std::vector<Looser> looser;
  bool latencies;  // judge wake-to-run at all
  bool two_cpus;
};

Case on_one_cpu(const char* name, std::vector<Looser> looser = {}, bool latencies = true) {
  return {name, std::move(looser), latencies, false};
}

Case on_two_cpus(const char* name, std::vector<Looser> looser = {}) {
  return {name, std::move(looser), true, true};
}

const std::vector<Case> kSuite = {
    on_one_cpu("nice"),
    on_one_cpu("nice19"),
    on_one_cpu("slices"),
    on_one_cpu("periodic"),
    // From 587 ms the model's hogs sit where one's request ends just before each wakeup of the
    // periodic task, which then waits for the tick (SPEC.md §9.6); the kernel's never did.
    on_one_cpu("periodic-short", {{"p99", 1'000'000}}),
    // The nice-5 sleeper's longest waits come one tick later in the model.
    on_one_cpu("sleepers", {{"p99", 1'500'000}}),
    on_one_cpu("forty"),
    on_one_cpu("renice"),
    // Pipes, a wake-all and forks: the model's order of the 40 tasks parts from the kernel's in
    // the first 30 ms (one system call wakes 40 tasks before the kernel switches, SPEC.md §9.8),
    // and receivers then find their messages waiting: wake-to-run and switches are reported,
    // not judged.
    on_one_cpu("messaging", {}, false),
    // Three hogs of weights 1024, 335 and 1991: the kernel's balancer, weighing load, keeps the
    // nice -3 hog alone on one CPU; the model's counts tasks (README "Simulating workloads"), so
    // any one hog alone is balanced to it, and the pairs change with the other tasks' wakeups:
    // the nice-5 hog gets 21 % where the kernel gave it 12 %.
    on_two_cpus("nice-a", {{"share", 10.0}}),
    // Two identical hogs and one CPU's worth of room: the first balance that pulled a hog to the
    // periodic task's CPU came just after a tick had swapped the hogs in the kernel and just
    // before it in the model, so the model pulled the other one and every figure after is the
    // mirror image: each hog gets the other's share (4.9 pp apart).
    on_two_cpus("periodic-a", {{"share", 5.0}}),
    on_two_cpus("messaging-a"),
};

TEST(FidelitySuite, EveryCaptureIsWithinItsStatedTolerances) {
  for (const Case& c : kSuite) {
    SCOPED_TRACE(c.name);
    const ReplayReport r =
        replay_capture(find_capture(std::string(VLAG_TEST_DATA) + "/fidelity/" + c.name), {});
    EXPECT_EQ(r.machine.params.ncpus, c.two_cpus ? 2 : 1);
    for (const ReplayTask& t : r.tasks) {
      if (t.task.workload && t.task.kernel.runtime_ns > 0) {
        EXPECT_GT(t.model.runtime_ns, 0) << t.task.comm << ":" << t.task.pid;
      }
    }
    FidelityGoal goal;
    goal.tails = !c.two_cpus;
    if (!c.latencies) {
      goal.min_samples = std::numeric_limits<int64_t>::max();
      goal.tails = false;
    }
    for (const Verdict& v : judge(r, goal)) {
      double allowed = v.allowed;
      for (const Looser& l : c.looser)
        if (l.metric == v.metric) allowed = std::max(allowed, l.allowed);
      EXPECT_LE(std::abs(v.model - v.kernel), allowed)
          << v.task << " " << v.metric << ": kernel " << v.kernel << ", model " << v.model;
    }
  }
}

// The replays that run every task's work to its end: the ones whose tasks all exit or sleep for
// good before the capture ends.
TEST(FidelitySuite, MessagingRunsEveryTasksWork) {
  const ReplayReport r =
      replay_capture(find_capture(std::string(VLAG_TEST_DATA) + "/fidelity/messaging"), {});
  int64_t workload = 0;
  for (const ReplayTask& t : r.tasks) {
    if (!t.task.workload) continue;
    ++workload;
    EXPECT_TRUE(t.model_finished) << t.task.pid;
    EXPECT_EQ(t.model.runtime_ns, t.kernel.runtime_ns) << t.task.pid;  // all of it, CPU work
  }
  EXPECT_EQ(workload, 41);  // the parent and its 40 children
}

}  // namespace
}  // namespace vlag::replay
