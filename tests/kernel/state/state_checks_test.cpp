// The checks on the kernel's own numbers (kernel/state/checks.h) on a cfs_rq built by hand
// (scene.h): a consistent history holds everywhere, each planted fault is caught with its ID,
// and what the capture cannot show is inconclusive with its reason, never violated.
#include <gtest/gtest.h>

#include <functional>

#include "kernel/state/arith.h"
#include "kernel/state/checks.h"
#include "reference/arith.h"
#include "spec/properties.h"
#include "spec/weights.h"
#include "tests/kernel/state/scene.h"

namespace vlag::kernel::state {
namespace {

using testing::capture_of;
using testing::Scene;

TEST(StateArith, CalcDeltaFairIsTheReferencesLinuxVdeltaForEveryNiceWeight) {
  for (const int64_t w : kPrioToWeight)
    for (const int64_t delta : {1, 999, 1'400'000, 4'000'000, 123'456'789})
      EXPECT_EQ(calc_delta_fair(static_cast<uint64_t>(delta), static_cast<uint64_t>(w) << 10, true),
                static_cast<uint64_t>(reference::LinuxArith::vdelta(delta, w).value()))
          << "weight " << w << " delta " << delta;
}

TEST(StateArith, AverageFloorsTowardMinusInfinityAndEligibilityNeedsNoDivision) {
  // keys -5 (w 2) and 0 (w 1): V = v0 + floor(-10 / 3) = v0 - 4.
  const Average a{1000, -10, 3};
  EXPECT_EQ(avg_vruntime(a), 996u);
  EXPECT_TRUE(eligible(a, 996));                        // -4 * 3 = -12 <= -10
  EXPECT_FALSE(eligible(a, 997));                       // -3 * 3 = -9 > -10
  EXPECT_EQ(avg_vruntime(Average{1000, 0, 0}), 1000u);  // empty: v0
  EXPECT_EQ(inflated_lag(-301, 3, 1), -401);            // -301 * 4 / 3 = -401.33, toward 0
  EXPECT_EQ(magnitude_bits(static_cast<__int128>(1) << 62), 63);
  EXPECT_EQ(magnitude_bits(-(static_cast<__int128>(1) << 63)), 64);
}

// Task 4 sleeps (its switch-out saves its lag) and task 2, the eligible task of earliest
// deadline, runs; after a run delta it is preempted by task 1, now eligible and earliest; task 4
// wakes and is placed as place_entity() places it. `before_second_pick` plants a fault.
struct History {
  Scene s;
  std::vector<bpf::StateRecord> records;

  explicit History(const std::function<void(Scene&)>& before_second_pick = {}) {
    s.add(1, 1'000'600, 2'400'000);
    s.add(2, 1'000'000, 2'300'000);
    s.add(3, 1'000'200, 2'400'200);
    s.add(4, 999'000, 2'399'000);
    s.set_curr(4);
    s.at(4).on_rq = false;
    s.at(4).vlag = 950;  // V − v at its dequeue: V = v0 − 50
    records.push_back(s.switch_record(4, 2, 100));
    records.push_back(s.runtime(2, 1000, 200));  // task 2 at v 1 001 000: V = v0 + 600
    if (before_second_pick) before_second_pick(s);
    records.push_back(s.switch_record(2, 1, 300));
    place(4);
    records.push_back(s.wakeup(4, 400));
  }

  // place_entity() of `pid` with its saved vlag into the cfs_rq as it is (curr is task 1).
  void place(int32_t pid) {
    bpf::EntityState& e = s.at(pid);
    const bpf::CfsRqState q = s.cfs_rq();
    const bpf::EntityState& c = s.at(1);
    const Average a =
        with_curr(q.zero_vruntime, q.sum_w_vruntime, q.sum_weight, true, c.vruntime, c.weight);
    e.vruntime =
        avg_vruntime(a) - static_cast<uint64_t>(inflated_lag(e.vlag, a.load, scale_down(e.weight)));
    e.deadline = e.vruntime + calc_delta_fair(e.slice, e.weight, true);
    e.on_rq = true;
  }

  StateReport check() const { return check_state_capture(capture_of(records)); }
};

const Tally& tally(const StateReport& r, const char* id) {
  const Tally* t = r.find(id);
  EXPECT_NE(t, nullptr) << id;
  return *t;
}

TEST(StateChecks, AConsistentHistoryHoldsEverywhere) {
  const StateReport r = History().check();
  for (const auto& [id, t] : r.tallies) EXPECT_EQ(t.violated, 0u) << id;
  EXPECT_EQ(tally(r, ids::kInvPickEligible).held, 2u);
  EXPECT_EQ(tally(r, ids::kInvPickEdf).held, 2u);
  EXPECT_EQ(tally(r, ids::kInvKernelSums).held, 2u);
  EXPECT_EQ(tally(r, ids::kInvLagClamp).held, 1u);
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).held, 1u);
  EXPECT_GE(tally(r, ids::kInvDeadline).held, 8u);
  EXPECT_EQ(r.figures.placements_exact, 1u);
  EXPECT_EQ(r.figures.saved_lags_exact, 1u);
  EXPECT_EQ(r.figures.replays_matched, 1u);  // the runtime record against the first pick
  EXPECT_EQ(r.violations(), 0u);
}

TEST(StateChecks, AChangedSumIsCaughtAsInvKernelSums) {
  History h;
  h.records[2].tasks[1].chain[0].cfs_rq.sum_w_vruntime += 1024;
  const StateReport r = h.check();
  ASSERT_EQ(tally(r, ids::kInvKernelSums).violated, 1u);
  EXPECT_NE(tally(r, ids::kInvKernelSums).witnesses[0].what.find("sum_w_vruntime"),
            std::string::npos);
}

TEST(StateChecks, AnIneligiblePickIsCaughtAsInvPickEligible) {
  // Task 1 at key 900 against V = v0 + 700.
  const History h([](Scene& s) { s.at(1).vruntime = 1'000'900; });
  const StateReport r = h.check();
  EXPECT_EQ(tally(r, ids::kInvPickEligible).violated, 1u);
}

// Task 3 (eligible) before the pick's deadline 2 400 000.
void earlier_three(Scene& s) { s.at(3).deadline = 2'350'000; }

TEST(StateChecks, AnEarlierEligibleDeadlineIsCaughtAsInvPickEdf) {
  const StateReport r = History(earlier_three).check();
  ASSERT_EQ(tally(r, ids::kInvPickEdf).violated, 1u);
  EXPECT_NE(tally(r, ids::kInvPickEdf).witnesses[0].what.find("2350000"), std::string::npos);
}

TEST(StateChecks, TheNextBuddyExplainsALaterDeadline) {
  History h(earlier_three);
  h.records[1].tasks[0].chain[0].cfs_rq.next = h.s.at(1).id;  // the buddy, last seen set
  const StateReport r = h.check();
  EXPECT_EQ(tally(r, ids::kInvPickEdf).violated, 0u);
  EXPECT_EQ(r.figures.picks_as_buddy, 1u);
}

TEST(StateChecks, WithoutTheCfsRqsHistoryTheBuddyIsUnknownAndTheOrderInconclusive) {
  History h(earlier_three);
  h.records = {h.records[2]};  // the cfs_rq's first record
  const StateReport r = h.check();
  const Tally& t = tally(r, ids::kInvPickEdf);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_EQ(t.inconclusive, 1u);
  EXPECT_EQ(t.inconclusive_reasons.begin()->first,
            "the next buddy before the pick is unknown: the cfs_rq's first record");
}

TEST(StateChecks, ACutSnapshotLeavesOrderAndSumsInconclusive) {
  History h;
  h.records[2].queues[0].truncated = true;
  h.records[2].tasks[1].chain[0].cfs_rq.sum_weight += 1;  // would be caught with the tree
  const StateReport r = h.check();
  EXPECT_EQ(tally(r, ids::kInvKernelSums).violated, 0u);
  EXPECT_EQ(tally(r, ids::kInvKernelSums).inconclusive, 1u);
  EXPECT_EQ(tally(r, ids::kInvPickEdf).inconclusive, 1u);
}

TEST(StateChecks, ASavedLagBeyondTheClampIsCaughtAsInvLagClamp) {
  History h;
  h.records[0].tasks[0].chain[0].vlag = -10'000'000;  // the clamp is 1.4 ms + TICK = 5.4 ms
  const StateReport r = h.check();
  EXPECT_EQ(tally(r, ids::kInvLagClamp).violated, 1u);
}

TEST(StateChecks, ADeadlineBeyondItsRequestIsCaughtAsInvDeadline) {
  History h;
  bpf::QueuedEntity& three = h.records[2].queues[0].entities[1];
  ASSERT_EQ(three.pid, 3);
  three.deadline = three.vruntime + 2'000'000;  // the request is 1.4 ms at nice 0
  const StateReport r = h.check();
  ASSERT_EQ(tally(r, ids::kInvDeadline).violated, 1u);
}

TEST(StateChecks, AChangedPlacedLagIsCaughtAsInvPlaceLag) {
  History h;
  h.records[3].tasks[0].chain[0].vlag = -200'000;  // its dequeue saved 950
  const StateReport r = h.check();
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).violated, 1u);
  History moved;
  moved.records[3].tasks[0].chain[0].vruntime += 50'000;  // placed 50 us later than the lag says
  EXPECT_EQ(tally(moved.check(), ids::kInvPlaceLag).violated, 1u);
}

// A positive saved lag found 0 at the wakeup (seen live under hackbench): DELAY_ZERO truncates a
// positive lag when a delayed dequeue completes, which no record shows, so the capture cannot
// tell a lost lag from that: inconclusive, not violated.
TEST(StateChecks, APositiveSavedLagFoundZeroIsInconclusiveUnderDelayZero) {
  History h;
  h.records[3].tasks[0].chain[0].vlag = 0;  // its dequeue saved 950
  const StateReport r = h.check();
  const Tally& t = tally(r, ids::kInvPlaceLag);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_EQ(t.inconclusive, 1u);
  ASSERT_EQ(t.inconclusive_reasons.size(), 1u);
  EXPECT_NE(t.inconclusive_reasons.begin()->first.find("DELAY_ZERO"), std::string::npos);
}

// The wakeup of History alone, as a capture that starts there sees it: with the blocks a wakeup
// record carries since they were recorded — the cfs_rq's curr read at the tracepoint (task 1,
// shown here as the group entity it would be in a hierarchy, whose vruntime no earlier record
// gives) and task 4 as sched_waking saw it, asleep with its saved lag.
bpf::StateRecord wakeup_with_blocks(const History& h) {
  bpf::StateRecord r = h.records[3];
  bpf::QueuedEntity curr = h.records[2].tasks[1].chain[0];  // task 1, picked and not run since
  curr.pid = 0;
  curr.is_group = true;
  r.tasks[0].level_curr = {curr};
  bpf::QueuedEntity asleep = h.records[0].tasks[0].chain[0];
  r.tasks[0].waking = bpf::WakingState{350, asleep};
  return r;
}

TEST(StateChecks, AWakeupsOwnCurrAndWakingStateDecideItsPlacementWithoutHistory) {
  const History h;
  const Tally alone = tally(check_state_capture(capture_of({h.records[3]})), ids::kInvPlaceLag);
  EXPECT_EQ(alone.inconclusive, 1u);  // an older capture: mid-life, curr not known
  const StateReport r = check_state_capture(capture_of({wakeup_with_blocks(h)}));
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).held, 1u);
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).inconclusive, 0u);
  EXPECT_EQ(r.figures.placements_exact, 1u);
}

TEST(StateChecks, AWakeeMovedFromItsPlacementIsCaughtFromTheRecordAlone) {
  const History h;
  bpf::StateRecord r = wakeup_with_blocks(h);
  // Placed 50 us later than its lag says, and accounted there in the cfs_rq's sums.
  bpf::EntityState& e = r.tasks[0].chain[0];
  e.vruntime += 50'000;
  e.deadline += 50'000;
  e.cfs_rq.sum_w_vruntime += 50'000 * static_cast<int64_t>(scale_down(e.weight));
  const StateReport moved = check_state_capture(capture_of({r}));
  EXPECT_EQ(tally(moved, ids::kInvPlaceLag).violated, 1u);
  EXPECT_EQ(moved.figures.placements_inexact, 1u);
}

TEST(StateChecks, AWakeeQueuedAtSchedWakingWasNotPlaced) {
  const History h;
  bpf::StateRecord r = wakeup_with_blocks(h);
  r.tasks[0].waking->entity.on_rq = true;
  r.tasks[0].waking->entity.sched_delayed = true;
  r.tasks[0].chain[0].vruntime += 50'000;  // a requeue keeps v: no placement to judge
  const Tally t = tally(check_state_capture(capture_of({r})), ids::kInvPlaceLag);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_EQ(t.not_applicable, 1u);
  // A lag at the wakeup other than the one sched_waking saw is caught.
  r = wakeup_with_blocks(h);
  r.tasks[0].waking->entity.vlag += 1000;
  EXPECT_EQ(tally(check_state_capture(capture_of({r})), ids::kInvPlaceLag).violated, 1u);
}

TEST(StateChecks, LostRecordsOrAnUncapturedCpuMakeHistoryChecksInconclusive) {
  History h;
  StateCapture lost = capture_of(h.records);
  lost.facts.lost_per_cpu = std::vector<uint64_t>{0, 3};
  lost.records[3].tasks[0].chain[0].vlag = -200'000;  // lost records could explain this
  const StateReport r = check_state_capture(lost);
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).violated, 0u);
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).inconclusive_reasons.count("records were lost on cpu1"),
            1u);
  StateCapture other = capture_of(h.records);
  other.facts.cpus = {0};
  EXPECT_EQ(tally(check_state_capture(other), ids::kInvPlaceLag)
                .inconclusive_reasons.count("cpu1 was not captured"),
            1u);
  // Records that need no history are judged all the same.
  EXPECT_EQ(tally(r, ids::kInvPickEligible).held, 2u);
}

TEST(StateChecks, AGapMakesWhatCameBeforeStale) {
  History h;
  // A runtime record of a task no switch put in: something ran untraced on cpu1.
  Scene other;
  other.add(9, 1'000'000, 2'400'000);
  other.set_curr(9);
  bpf::StateRecord stray = other.runtime(9, 10, 350);
  h.records.insert(h.records.begin() + 3, stray);
  const StateReport r = h.check();
  EXPECT_EQ(r.figures.gaps, 1u);
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).inconclusive, 1u);
}

TEST(StateChecks, WithoutKernelParametersTheChecksThatNeedThemAreInconclusive) {
  StateCapture c = capture_of(History().records);
  c.kernel.reset();
  const StateReport r = check_state_capture(c);
  EXPECT_EQ(tally(r, ids::kInvLagClamp).inconclusive, 1u);
  EXPECT_EQ(tally(r, ids::kInvPlaceLag).inconclusive, 1u);
  EXPECT_EQ(tally(r, ids::kInvPickEligible).held, 2u);
  EXPECT_FALSE(r.notes.empty());
}

}  // namespace
}  // namespace vlag::kernel::state
