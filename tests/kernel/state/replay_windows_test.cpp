// The replay differences triaged on recordings not kept as fixtures (docs/kernel-state.md), each
// kept as the window of records that showed it (tests/data/linux-state/windows/, cut by
// scripts/state-window): all were the replay's, not the kernel's, and each window is now
// replayed without a difference where it had one.
#include <gtest/gtest.h>

#include <filesystem>

#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"
#include "kernel/state/replay_mirror.h"
#include "spec/features.h"

namespace vlag::kernel::state {
namespace {

ReplayResult replay_of(const char* window) {
  const auto path = std::filesystem::path(VLAG_TEST_DATA) / "linux-state" / "windows" / window;
  return check_state_capture(read_state_capture(path.string())).replay;
}

uint64_t not_judged_for(const DecisionTally& t, const std::string& part) {
  uint64_t n = 0;
  for (const auto& [why, k] : t.not_judged)
    if (why.find(part) != std::string::npos) n += k;
  return n;
}

TEST(StateReplayWindows, APreemptedPrevPutBackByItsGroupsSwitchLosesTiesInDeadline) {
  // slices, CPU 1: bash:24802 is preempted by a task of another group (put_prev_entity at its
  // cfs_rq puts it back into the tree, after bash:24798 woken there); both have v 2922576 and
  // d 4322576, and the kernel's pick is 24798, the leftmost of equal keys. The replay took 24802
  // out of curr without putting it back and kept it the older, picking it.
  const ReplayResult r = replay_of("tie-after-group-switch.jsonl");
  const DecisionTally& picks = r.tally(DecisionKind::Pick);
  EXPECT_GE(picks.compared(), 3u);
  EXPECT_EQ(r.differed(), 0u) << (r.differences.empty() ? "" : r.differences[0].text());
}

TEST(StateReplayWindows, ADelayedTaskOffTheQueueAtItsWakingIsPlacedAfresh) {
  // sessions, CPU 1: bash:24166 was delayed, alone in its autogroup's cfs_rq once the other
  // task left; a pick no record shows completed its dequeue (sched_waking: off the queue, vlag
  // 0), and the wakeup placed it into the empty cfs_rq, d = v + the base slice. The replay
  // requeued it as still delayed (d kept). Now its placement into the empty cfs_rq is not
  // judged (V is the reference point), and nothing differs.
  const ReplayResult r = replay_of("delayed-completed-unrecorded.jsonl");
  EXPECT_EQ(r.differed(), 0u) << (r.differences.empty() ? "" : r.differences[0].text());
  EXPECT_GE(not_judged_for(r.tally(DecisionKind::Placement), "placed into an empty cfs_rq"), 1u);
  EXPECT_GE(r.tally(DecisionKind::Pick).compared(), 1u);
}

TEST(StateReplayWindows, ThePickAtTheRootChoosesWithTheBuddyBeforeTheSwitch) {
  // messaging -a, CPU 1: vlag:898 sleeps in its autogroup, whose entity becomes the root's next
  // buddy (set_next_buddy()); rcu_preempt, a root task, runs and sleeps, and the root's pick takes
  // the buddy (cc1plus:1020's group entity). The switch record shows the root's next after that
  // pick, cleared; the replay took it in before judging the pick and chose another group entity.
  const ReplayResult r = replay_of("buddy-before-the-pick.jsonl");
  EXPECT_GE(r.group_picks.compared(), 5u);
  EXPECT_EQ(r.differed(), 0u) << (r.differences.empty() ? "" : r.differences[0].text());
}

// messaging -a, CPU 0 (a recording not kept: 180 records between the wakeups and the pick): three
// forked tasks slept and were woken into their cfs_rq in the order 1299, 1298, 1296 with the same
// v and d, and the kernel picked 1299, then 1298 — the tree's order of equal keys is the order of
// insertion. The replay took the wakees in from their records keeping the places they had had in
// the model's tree before they slept, and picked 1296.
TEST(StateReplayMirror, EntitiesJoiningAtRecordsTieInTheOrderTheyJoined) {
  const auto entity = [](int32_t pid, bool on_rq) {
    bpf::QueuedEntity k;
    k.id = 0x1000 + static_cast<uint64_t>(pid);
    k.pid = pid;
    k.vruntime = 5'000'000;
    k.deadline = 6'400'000;
    k.weight = 1 << 20;
    k.slice = 1'400'000;
    k.on_rq = on_rq;
    return k;
  };
  const Params params = make_params(preset_by_name("linux-6.18.y"));
  const auto first_pick = [&](const Mirror& m) {
    ModelRunqueue rq = m.model(params);
    return rq.pick_next_entity();
  };
  Mirror m;
  m.v0 = 5'000'000;
  for (const int32_t pid : {1296, 1298, 1299}) m.take(pid, entity(pid, true), "");
  EXPECT_EQ(first_pick(m), 1296);
  for (const int32_t pid : {1296, 1298, 1299}) m.take(pid, entity(pid, false), "");
  for (const int32_t pid : {1299, 1298, 1296}) m.take(pid, entity(pid, true), "");
  EXPECT_EQ(first_pick(m), 1299);
  m.take(1299, entity(1299, false), "");
  EXPECT_EQ(first_pick(m), 1298);
}

}  // namespace
}  // namespace vlag::kernel::state
