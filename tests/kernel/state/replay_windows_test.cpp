// The replay differences triaged on second recordings of `slices` and `sessions`
// (docs/kernel-state.md), each kept as the window of records that showed it
// (tests/data/linux-state/windows/, cut by scripts/state-window): both were the replay's, not the
// kernel's, and each window is now replayed without a difference where it had one.
#include <gtest/gtest.h>

#include <filesystem>

#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"

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

}  // namespace
}  // namespace vlag::kernel::state
