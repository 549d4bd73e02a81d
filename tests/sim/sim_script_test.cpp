// The scripted workload of `vlag kernel replay` (sim/script.h): a sleep ended by another task's
// burst at the point it woke it in the recording, a wakeup that comes before its sleep (kept,
// and the sleep skipped), a timer already past, renice actions, and scripts that cannot run.
#include <gtest/gtest.h>

#include "sim/script.h"
#include "spec/error.h"
#include "tests/support/machine_helpers.h"

namespace vlag::sim {
namespace {

MachineConfig one_cpu() {
  MachineConfig c = testing::test_machine(1, Placement::Prev);
  c.switch_cost_ns = 0;
  return c;
}

ScriptTask task(const char* name, std::vector<ScriptBurst> bursts, int64_t start = 0) {
  ScriptTask t;
  t.attrs.name = name;
  t.attrs.timer_slack_ns = 0;
  t.start_ns = start;
  t.bursts = std::move(bursts);
  return t;
}

ScriptBurst burst(int64_t ns, ScriptBurst::Next next = ScriptBurst::Next::End, int64_t wake_at = 0,
                  std::vector<ScriptAction> actions = {}) {
  ScriptBurst b;
  b.ns = ns;
  b.next = next;
  b.wake_at_ns = wake_at;
  b.actions = std::move(actions);
  return b;
}

ScriptAction wake(int64_t at, size_t target, size_t sleep) {
  return {ScriptAction::Kind::Wake, at, target, sleep, 0};
}

// The reader runs 10 us and sleeps; the writer, started at 1 ms, wakes it 50 us into its 100 us
// burst. The reader runs its second burst after the writer's (same nice, the writer protected),
// and its wakeup is counted from 1.05 ms.
TEST(Script, ASleepEndsWhereTheWakerWokeIt) {
  Script s;
  s.tasks.push_back(task("reader", {burst(10'000, ScriptBurst::Next::Task), burst(20'000)}));
  s.tasks.push_back(
      task("writer", {burst(100'000, ScriptBurst::Next::End, 0, {wake(50'000, 0, 0)})}, 1'000'000));
  ScriptWorkload w(s);
  Machine m(one_cpu());
  m.run(w, 10'000'000);
  EXPECT_EQ(w.task(0).runtime_ns, 30'000);
  EXPECT_EQ(w.task(1).runtime_ns, 100'000);
  EXPECT_TRUE(w.result(0).finished);
  ASSERT_EQ(w.result(0).wake_to_run_ns.size(), 2u);  // its start and the writer's wakeup
  EXPECT_EQ(w.result(0).wake_to_run_ns[1], 50'000);  // from 1.05 ms to the writer's end
}

// The writer wakes the reader's sleep before the reader got there: kept, and the reader runs
// both bursts back to back (a pipe that already holds data does not block).
TEST(Script, AWakeupBeforeItsSleepSkipsTheSleep) {
  Script s;
  s.tasks.push_back(
      task("reader", {burst(10'000, ScriptBurst::Next::Task), burst(20'000)}, 1'000'000));
  s.tasks.push_back(task("writer", {burst(100'000, ScriptBurst::Next::End, 0, {wake(0, 0, 0)})}));
  ScriptWorkload w(s);
  Machine m(one_cpu());
  const MachineStats st = m.run(w, 10'000'000);
  EXPECT_EQ(w.task(0).runtime_ns, 30'000);
  EXPECT_EQ(w.result(0).bursts_begun, 2u);
  EXPECT_EQ(w.task(0).switches, 1);  // it never slept between them
  EXPECT_EQ(st.switches, 2);
}

// A timer sleep whose time has passed when the task gets there is no sleep at all.
TEST(Script, ATimerAlreadyPastIsNoSleep) {
  Script s;
  s.tasks.push_back(
      task("late", {burst(200'000, ScriptBurst::Next::Timer, 100'000), burst(1'000)}));
  ScriptWorkload w(s);
  Machine m(one_cpu());
  m.run(w, 10'000'000);
  EXPECT_EQ(w.task(0).runtime_ns, 201'000);
  EXPECT_EQ(w.task(0).switches, 1);
}

// A renice action 1 s into a hog's wall-clock burst: from then on it has nice 5.
TEST(Script, ReniceActionsChangeTheNiceValue) {
  Script s;
  s.tasks.push_back(task("a", {burst(2'000'000'000)}));
  ScriptTask b = task("b", {burst(2'000'000'000)});
  b.wall = true;
  b.bursts[0].actions.push_back({ScriptAction::Kind::Renice, 1'000'000'000, 0, 0, 5});
  s.tasks.push_back(b);
  ScriptWorkload w(s);
  Machine m(one_cpu());
  m.run(w, 1'500'000'000);
  EXPECT_EQ(w.task(1).attrs.nice, 5);
}

TEST(Script, ScriptsThatCannotRunAreRejected) {
  const auto rejects = [](Script s) { EXPECT_THROW(ScriptWorkload{std::move(s)}, Error); };
  Script empty;
  empty.tasks.push_back(task("none", {}));
  rejects(empty);
  Script zero;
  zero.tasks.push_back(task("zero", {burst(0)}));
  rejects(zero);
  Script no_target;
  no_target.tasks.push_back(task("w", {burst(10, ScriptBurst::Next::End, 0, {wake(0, 5, 0)})}));
  rejects(no_target);
  Script no_sleep;  // task 0 has one burst: no sleep 0 to end
  no_sleep.tasks.push_back(task("w", {burst(10, ScriptBurst::Next::End, 0, {wake(0, 0, 0)})}));
  rejects(no_sleep);
  Script beyond;
  beyond.tasks.push_back(task("w", {burst(10, ScriptBurst::Next::Task), burst(10)}));
  beyond.tasks.push_back(task("x", {burst(10, ScriptBurst::Next::End, 0, {wake(11, 0, 0)})}));
  rejects(beyond);
}

}  // namespace
}  // namespace vlag::sim
