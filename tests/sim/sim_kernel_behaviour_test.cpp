// The simulated machine's real-kernel behaviours of SPEC.md §9, each on a hand-made run whose
// numbers follow from the rule: timer slack and its coalescing with the tick (§9.2), the wakeup
// and tick costs (§9.3), HRTICK (§9.4), wall-clock work (§9.5), the short-slice wakeup against
// 6.18 (§9.6), a fork's wakeup (§9.7) and renice.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "sim/machine.h"
#include "spec/weights.h"
#include "tests/support/machine_helpers.h"

namespace vlag::sim {
namespace {

// A workload made of callbacks, for runs of a task or three.
struct Scripted : Workload {
  std::function<void(Machine&)> on_start;
  std::function<int64_t(Machine&, Task&)> on_burst_done = [](Machine&, Task&) { return 0; };
  std::function<void(Machine&, Task&)> on_timer = [](Machine&, Task&) {};
  void start(Machine& m) override { on_start(m); }
  int64_t burst_done(Machine& m, Task& t) override { return on_burst_done(m, t); }
  void timer(Machine& m, Task& t) override { on_timer(m, t); }
};

MachineConfig one_cpu() {
  MachineConfig c = testing::test_machine(1, Placement::Prev);
  c.switch_cost_ns = 0;
  return c;
}

TaskAttrs named(const char* name, int64_t slice_ns = 0) {
  TaskAttrs a;
  a.name = name;
  a.slice_ns = slice_ns;
  return a;
}

// §9.2: on an idle CPU nothing interrupts before the hard expiry, expiry + 50 us.
TEST(TimerSlack, AnIdleCpuFiresTheTimerAtItsHardExpiry) {
  Scripted w;
  std::vector<int64_t> fired;
  w.on_start = [](Machine& m) { m.set_timer(m.add_task(named("sleeper"), 0), 1'000'000); };
  w.on_timer = [&](Machine& m, Task& t) {
    fired.push_back(m.now());
    EXPECT_EQ(t.timer_late_ns, TaskAttrs::kDefaultTimerSlackNs);
  };
  Machine m(one_cpu());
  m.run(w, 10'000'000);
  EXPECT_EQ(fired, (std::vector<int64_t>{1'050'000}));
}

// §9.2: on a busy CPU the tick at 4 ms is an hrtimer interrupt after the soft expiry (3.99 ms):
// the timer fires in it, 10 us late instead of 50.
TEST(TimerSlack, ATickAfterTheSoftExpiryFiresTheTimer) {
  Scripted w;
  std::vector<int64_t> fired, late;
  w.on_start = [](Machine& m) {
    m.wake(m.add_task(named("hog"), 0), kForever);
    m.set_timer(m.add_task(named("sleeper"), 0), 3'990'000);
  };
  w.on_timer = [&](Machine& m, Task& t) {
    fired.push_back(m.now());
    late.push_back(t.timer_late_ns);
  };
  Machine m(one_cpu());
  m.run(w, 10'000'000);
  EXPECT_EQ(fired, (std::vector<int64_t>{4'000'000}));
  EXPECT_EQ(late, (std::vector<int64_t>{10'000}));
}

// Two timers of one CPU: the first one's hard expiry runs the second, whose soft expiry passed.
TEST(TimerSlack, AnotherTimersInterruptRunsEveryDueTimer) {
  Scripted w;
  std::vector<std::pair<int64_t, int64_t>> fired;  // (time, task)
  w.on_start = [](Machine& m) {
    Task& a = m.add_task(named("a"), 0);
    Task& b = m.add_task(named("b"), 0);
    m.set_timer(a, 1'000'000);  // hard at 1.05 ms
    m.set_timer(b, 1'020'000);  // soft at 1.02 ms: due then too
  };
  w.on_timer = [&](Machine& m, Task& t) { fired.emplace_back(m.now(), t.id); };
  Machine m(one_cpu());
  m.run(w, 10'000'000);
  EXPECT_EQ(fired, (std::vector<std::pair<int64_t, int64_t>>{{1'050'000, 1}, {1'050'000, 2}}));
}

// §9.3: a short-slice wakee preempts a hog; its wake-to-run latency is the timer wakeup's cost.
// Onto an idle CPU it is the idle cost.
TEST(WakeupCost, APreemptingWakeupSwitchesThatMuchLater) {
  for (const int64_t cost : {int64_t{0}, int64_t{6'700}}) {
    Scripted w;
    Task* sleeper = nullptr;
    w.on_start = [&](Machine& m) {
      m.wake(m.add_task(named("hog"), 0), kForever);
      sleeper = &m.add_task(named("sleeper", 100'000), 0);
      sleeper->attrs.timer_slack_ns = 0;
      m.set_timer(*sleeper, 2'000'000);
    };
    w.on_timer = [](Machine& m, Task& t) { m.wake(t, 50'000); };
    MachineConfig c = one_cpu();
    c.wake_timer_cost_ns = cost;
    Machine m(c);
    m.run(w, 4'000'000);
    ASSERT_EQ(sleeper->latency.count, 1);
    EXPECT_EQ(sleeper->latency.last_ns, cost);
  }
  Scripted w;
  Task* sleeper = nullptr;
  w.on_start = [&](Machine& m) {
    sleeper = &m.add_task(named("sleeper"), 0);
    sleeper->attrs.timer_slack_ns = 0;
    m.set_timer(*sleeper, 1'000'000);
  };
  w.on_timer = [](Machine& m, Task& t) { m.wake(t, 50'000); };
  MachineConfig c = one_cpu();
  c.wake_idle_cost_ns = 9'000;
  Machine m(c);
  m.run(w, 4'000'000);
  EXPECT_EQ(sleeper->latency.last_ns, 9'000);
}

// §9.3: two hogs on one CPU (b = 0.7 ms): the first runs to the tick at 4 ms and hands over
// tick_cost later, so after 4.1 ms it has 4 ms + the cost and the other the rest.
TEST(TickCost, TheTicksSwitchComesThatMuchLater) {
  for (const int64_t cost : {int64_t{0}, int64_t{11'000}}) {
    Scripted w;
    std::vector<Task*> hogs;
    w.on_start = [&](Machine& m) {
      for (const char* n : {"a", "b"}) hogs.push_back(&m.add_task(named(n), 0));
      for (Task* h : hogs) m.wake(*h, kForever);
    };
    MachineConfig c = one_cpu();
    c.tick_cost_ns = cost;
    Machine m(c);
    m.run(w, 4'100'000);
    EXPECT_EQ(hogs[0]->runtime_ns, 4'000'000 + cost);
    EXPECT_EQ(hogs[1]->runtime_ns, 100'000 - cost);
  }
}

// §9.4: two hogs with 0.3 ms slices. Without HRTICK every turn lasts to a tick (4 ms); with it a
// turn ends when its slice has run.
TEST(Hrtick, EndsATurnWhenItsSliceHasRun) {
  for (const bool hrtick : {false, true}) {
    Scripted w;
    w.on_start = [](Machine& m) {
      for (const char* n : {"a", "b"}) m.wake(m.add_task(named(n, 300'000), 0), kForever);
    };
    MachineConfig c = one_cpu();
    c.params.preset.set(Feature::HRTICK, hrtick);
    Machine m(c);
    const MachineStats st = m.run(w, 12'000'000);
    if (hrtick)
      EXPECT_EQ(st.switches, 40);  // every 0.3 ms in 12 ms
    else
      EXPECT_EQ(st.switches, 3);  // the first pick, then the ticks at 4 and 8 ms
  }
}

// §9.5: a 1 ms wall-clock burst preempted for 0.5 ms ends on time with 0.5 ms of CPU; as CPU time
// it would have run its full 1 ms, ending 0.5 ms later.
TEST(WallClockWork, APreemptedWallBurstEndsOnTimeWithLessCpu) {
  for (const bool wall : {false, true}) {
    Scripted w;
    Task* worker = nullptr;
    Task* intruder = nullptr;
    int64_t ended = -1;
    w.on_start = [&](Machine& m) {
      worker = &m.add_task(named("worker"), 0);
      intruder = &m.add_task(named("intruder", 100'000), 0);
      intruder->attrs.timer_slack_ns = 0;
      worker->wall_work = wall;
      m.wake(*worker, 1'000'000);
      m.set_timer(*intruder, 300'000);
    };
    w.on_timer = [](Machine& m, Task& t) { m.wake(t, 500'000); };
    w.on_burst_done = [&](Machine& m, Task& t) {
      if (&t == worker) ended = m.now();
      return int64_t{0};
    };
    Machine m(one_cpu());
    m.run(w, 10'000'000);
    EXPECT_EQ(intruder->runtime_ns, 500'000);  // it preempted the worker at 0.3 ms
    EXPECT_EQ(worker->runtime_ns, wall ? 500'000 : 1'000'000);
    EXPECT_EQ(ended, wall ? 1'000'000 : 1'500'000);
  }
}

// §9.6: two hogs take turns at the ticks (no HRTICK). From 12 ms hog b runs (vruntime 4 ms,
// deadline 4.7 ms) and a waits (8 ms, not eligible). A 0.1 ms-slice task waking at 12.3 ms
// (placed at V = 6.15 ms, deadline 6.25) makes the pick ignore b's protection, but b is eligible
// with the earlier deadline: the pick is b, not the wakee, which waits for the tick at 16 ms.
// Waking at 15 ms, the wakeup's update of b (7 ms) gives it a new deadline, 7.7 ms, later than
// the wakee's (7.6): the wakee runs at once.
TEST(WakeupPreemption, AShortSliceWakeeWaitsWhenCurrHasTheEarlierDeadline) {
  for (const int64_t at : {int64_t{12'300'000}, int64_t{15'000'000}}) {
    Scripted w;
    Task* wakee = nullptr;
    w.on_start = [&](Machine& m) {
      for (const char* n : {"a", "b"}) m.wake(m.add_task(named(n), 0), kForever);
      wakee = &m.add_task(named("wakee", 100'000), 0);
      wakee->attrs.timer_slack_ns = 0;
      m.set_timer(*wakee, at);
    };
    w.on_timer = [](Machine& m, Task& t) { m.wake(t, 50'000); };
    Machine m(one_cpu());
    m.run(w, 20'000'000);
    ASSERT_EQ(wakee->latency.count, 1);
    EXPECT_EQ(wakee->latency.last_ns, at == 12'300'000 ? 16'000'000 - at : 0) << at;
  }
}

// §9.7: a 0.1 ms-slice task started while a hog runs. Woken, it preempts at once (its deadline
// is the earlier and the pick ignores the hog's protection); forked, no wakeup-preemption check
// runs, and the hog keeps the CPU to the tick at 4 ms, where its ended request is seen.
TEST(ForkWakeup, RunsNoWakeupPreemptionCheck) {
  for (const bool forked : {false, true}) {
    Scripted w;
    Task* child = nullptr;
    w.on_start = [&](Machine& m) {
      m.wake(m.add_task(named("parent"), 0), kForever);
      child = &m.add_task(named("child", 100'000), 0);
      child->attrs.timer_slack_ns = 0;
      m.set_timer(*child, 500'000);
    };
    w.on_timer = [&](Machine& m, Task& t) { forked ? m.fork(t, 50'000) : m.wake(t, 50'000); };
    Machine m(one_cpu());
    m.run(w, 10'000'000);
    ASSERT_EQ(child->latency.count, 1);
    EXPECT_EQ(child->latency.last_ns, forked ? 3'500'000 : 0) << forked;
  }
}

// Renice at 1 s from nice 0 to 5 (weights 1024 → 335): the second second is shared 1024 : 335.
TEST(Renice, ChangesTheWeightFromThenOn) {
  Scripted w;
  std::vector<Task*> hogs;
  w.on_start = [&](Machine& m) {
    for (const char* n : {"a", "b"}) hogs.push_back(&m.add_task(named(n), 0));
    for (Task* h : hogs) m.wake(*h, kForever);
    m.set_timer(*hogs[1], 1'000'000'000);
  };
  w.on_timer = [](Machine& m, Task& t) { m.renice(t, 5); };
  Machine m(one_cpu());
  m.run(w, 2'000'000'000);
  EXPECT_EQ(hogs[1]->attrs.nice, 5);
  const double second_of_b = static_cast<double>(hogs[1]->runtime_ns) / 1e9 - 0.5;
  EXPECT_NEAR(second_of_b, 335.0 / (1024 + 335), 0.01);
}

}  // namespace
}  // namespace vlag::sim
