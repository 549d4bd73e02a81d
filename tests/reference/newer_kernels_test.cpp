// Worked examples of what linux-6.18.y and linux-mainline add (SPEC.md §5): the yield that
// forfeits, the lag clamp over the largest slice, zero_vruntime, the delayed lag that may not
// decrease, and the reweight that rescales vprot. Each value is computed by hand beside it; the
// same sequence under the older preset shows the behaviour is the preset's, not the sequence's.
#include <gtest/gtest.h>

#include "reference/invariants.h"
#include "reference/runqueue.h"
#include "tests/support/rq_helpers.h"

namespace vlag::reference {
namespace {

using testing::make_rq;

// Tasks 1 and 2 at nice 0, both new (v = 0, d = 350000), task 1 picked.
Runqueue two_new_tasks_one_running(const char* preset) {
  auto rq = make_rq(preset);
  for (TaskId id : {1, 2}) rq.create(id, 1024, 0);
  for (TaskId id : {1, 2}) rq.enqueue_entity(id);
  EXPECT_EQ(rq.pick_next_entity(), TaskId{1});
  return rq;
}

// 1 CPU: b = 0.7 ms, vslice = 700000 at nice 0; new tasks get half, d = 350000. TICK = 4 ms.
TEST(NewerKernels, EligibleYielderForfeitsTheRestOfItsRequest) {
  for (const char* preset : {"linux-6.18.y", "linux-6.18"}) {
    auto rq = two_new_tasks_one_running(preset);
    rq.yield_task();  // v1 = 0 = V: eligible
    const bool forfeit = std::string(preset) == "linux-6.18.y";
    // forfeit: v1 := d1 = 350000, d1 := 350000 + 700000, ρ = 700000; else d1 += 700000.
    EXPECT_EQ(rq.entity(1).vruntime, forfeit ? 350000 : 0) << preset;
    EXPECT_EQ(rq.entity(1).deadline, 1'050'000) << preset;
    EXPECT_EQ(rq.entity(1).request, forfeit ? 700000 : 1'050'000) << preset;
    EXPECT_TRUE(rq.need_resched());
    EXPECT_EQ(rq.avg_vruntime(), forfeit ? 175000 : 0) << preset;
    EXPECT_TRUE(promised_only(check_state(rq)).empty()) << preset;  // the ghost followed V
    // 6.18's vprot bound (350000) is a vruntime the yield did not pass: task 1 keeps the CPU
    // (§4.11); the forfeit moves v1 to it, which ends the protection.
    EXPECT_EQ(rq.pick_next_entity(), TaskId{forfeit ? 2 : 1}) << preset;
  }
}

TEST(NewerKernels, IneligibleYielderKeepsItsRequest) {
  auto rq = two_new_tasks_one_running("linux-6.18.y");
  rq.update_curr(100000);  // v1 = 100000 > V = 50000
  rq.yield_task();
  EXPECT_EQ(rq.entity(1).vruntime, 100000);
  EXPECT_EQ(rq.entity(1).deadline, 350000);  // 6.18 would have pushed it to 1050000
  EXPECT_TRUE(rq.need_resched());
}

// Task 2 (r = 0.7 ms) waits 10 ms of virtual time behind task 1 (custom slice 10 ms) and leaves
// with lag 10 ms: linux-6.18 clamps it to max(2·0.7, 4) = 4 ms, 6.18.y to max slice 10 ms + TICK
// = 14 ms, so it keeps all of it.
TEST(NewerKernels, LagClampSpansTheLargestQueuedSlice) {
  for (const char* preset : {"linux-6.18.y", "linux-6.18"}) {
    auto rq = make_rq(preset);
    rq.create(1, 1024, 10'000'000);
    rq.create(2, 1024, 0);
    rq.enqueue_entity(1);
    ASSERT_EQ(rq.pick_next_entity(), TaskId{1});
    rq.update_curr(20'000'000);  // v1 = 20 ms
    rq.enqueue_entity(2);        // alone beside curr: v2 = V = 20 ms
    EXPECT_EQ(rq.max_slice(), 10'000'000);
    rq.update_curr(20'000'000);  // v1 = 40 ms, V = 30 ms: lag2 = 10 ms
    rq.dequeue_entity(2, true);  // eligible: not delayed
    const bool max_slice = std::string(preset) == "linux-6.18.y";
    EXPECT_EQ(rq.entity(2).vlag, max_slice ? 10'000'000 : 4'000'000) << preset;
  }
}

// V of a queue left empty, in Linux arithmetic (origin o = −2^20). Task 2 leaves with lag 1 ms
// and comes back 2 ms behind task 1 (inflated by 2048/1024); task 1 migrates away (no sleep), task
// 2 sleeps. min_vruntime reached o + 2 ms and never goes back; zero_vruntime was moved to V = o at
// task 2's leave, so the emptied queue keeps that V as exact arithmetic does.
TEST(NewerKernels, ZeroVruntimeFollowsVAndStaysAtItWhenTheQueueEmpties) {
  const int64_t o = LinuxArith::origin().value();
  for (const char* preset : {"linux-6.18.y", "linux-6.18"}) {
    LinuxRunqueue rq(make_params(preset_by_name(preset)));
    rq.create(1, 1024, 0);
    rq.create(2, 1024, 0);
    rq.enqueue_entity(1);
    rq.enqueue_entity(2);
    ASSERT_EQ(rq.pick_next_entity(), TaskId{1});
    rq.update_curr(2'000'000);   // v1 = o + 2 ms, V = o + 1 ms
    rq.dequeue_entity(2, true);  // vl2 = 1 ms
    rq.enqueue_entity(2);        // l = 1 ms · 2048/1024: v2 = o
    EXPECT_EQ(rq.entity(2).vruntime.value(), o);
    rq.dequeue_entity(1, false);
    rq.dequeue_entity(2, true);
    const bool zero = std::string(preset) == "linux-6.18.y";
    EXPECT_EQ(rq.avg_vruntime().value(), zero ? o : o + 2'000'000) << preset;
    EXPECT_EQ(rq.reference_point().value(), zero ? o : o + 2'000'000) << preset;
  }
}

TEST(NewerKernels, ZeroVruntimeIsVAfterATick) {
  LinuxRunqueue rq(make_params(preset_by_name("linux-6.18.y")));
  rq.create(1, 1024, 0);
  rq.create(2, 3121, 0);  // nice −5
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  ASSERT_TRUE(rq.pick_next_entity());
  rq.update_curr(3'000'000);
  rq.entity_tick();
  EXPECT_EQ(rq.reference_point(), rq.avg_vruntime());
}

// Tasks 1–3 at nice 0. Task 1 runs 1.5 ms (V = 0.5 ms); 2 is picked; 3 sleeps with lag 0.5 ms
// (V = 0.75 ms); 1 sleeps ineligible, delayed with lag −0.75 ms; 3 returns with its lag inflated
// to 0.75 ms (v3 = 0), which moves V back to 0.5 ms: 1's lag is now −1 ms. Woken, 1 keeps −1 ms
// under 6.18.y; mainline keeps −0.75 ms and places it again: away from Q, V = 0, placed at
// 0 + 0.75 ms · 3072/2048 = 1.125 ms, V = 0.375 ms.
TEST(NewerKernels, DelayedLagDoesNotDecreaseOnMainline) {
  for (const char* preset : {"linux-mainline", "linux-6.18.y"}) {
    auto rq = make_rq(preset);
    for (TaskId id : {1, 2, 3}) rq.create(id, 1024, 0);
    for (TaskId id : {1, 2, 3}) rq.enqueue_entity(id);
    ASSERT_EQ(rq.pick_next_entity(), TaskId{1});
    rq.update_curr(1'500'000);
    ASSERT_EQ(rq.pick_next_entity(), TaskId{2});
    rq.dequeue_entity(3, true);
    EXPECT_EQ(rq.entity(3).vlag, 500000);
    rq.dequeue_entity(1, true);
    ASSERT_EQ(rq.entity(1).status, Status::Delayed);
    rq.enqueue_entity(3);
    EXPECT_EQ(rq.entity(3).vruntime, 0);
    EXPECT_EQ(rq.avg_vruntime() - rq.entity(1).vruntime, -1'000'000);
    rq.enqueue_entity(1);
    ASSERT_EQ(rq.entity(1).status, Status::Queued);
    const bool mainline = std::string(preset) == "linux-mainline";
    EXPECT_EQ(rq.avg_vruntime() - rq.entity(1).vruntime, mainline ? -750000 : -1'000'000) << preset;
    EXPECT_EQ(rq.entity(1).vruntime, mainline ? 1'125'000 : 1'500'000) << preset;
    EXPECT_TRUE(promised_only(check_state(rq)).empty()) << preset;
  }
}

// Task 2 (custom slice 0.1 ms) runs first and becomes ineligible; task 1 (custom 2 ms, d = 1 ms)
// is picked with vprot = min(d1, v1 + 0.1 ms) = 100000, runs 40000 (V = 120000) and is reweighted
// to 2048 while protected. Mainline rescales v, d and vprot around V: v1 = 120000 − 80000/2 =
// 80000, d1 = 120000 + 880000/2 = 560000, vprot = 120000 − 20000/2 = 110000; V stays 120000.
TEST(NewerKernels, MainlineReweightRescalesProtectionAroundV) {
  auto rq = make_rq("linux-mainline");
  rq.create(1, 1024, 2'000'000);
  rq.create(2, 1024, 100000);
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  ASSERT_EQ(rq.pick_next_entity(), TaskId{2});  // d2 = 50000 < d1 = 1 ms
  rq.update_curr(200000);                       // v2 = 200000, V = 100000
  ASSERT_EQ(rq.pick_next_entity(), TaskId{1});
  ASSERT_EQ(rq.protection(), Num(100000));
  rq.update_curr(40000);
  ASSERT_TRUE(rq.protect_slice());
  rq.reweight_entity(1, 2048);
  EXPECT_EQ(rq.entity(1).vruntime, 80000);
  EXPECT_EQ(rq.entity(1).deadline, 560000);
  EXPECT_EQ(rq.protection(), Num(110000));
  EXPECT_TRUE(rq.protect_slice());
  EXPECT_EQ(rq.avg_vruntime(), 120000);
}

// Regression (found by ReferenceProperties' INV-PROT-END): the rescale asks whether curr is
// protected before curr moves, as reweight_entity does. As above but to 8192: v1 = 120000 −
// 80000/8 = 110000, past the old vprot 100000; vprot = 120000 − 20000/8 = 117500 still protects
// it, d1 = 120000 + 880000/8 = 230000, V = (8192·110000 + 1024·200000)/9216 = 120000.
TEST(NewerKernels, MainlineReweightRescalesTheProtectionCurrHadBeforeItMoved) {
  auto rq = make_rq("linux-mainline");
  rq.create(1, 1024, 2'000'000);
  rq.create(2, 1024, 100000);
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  ASSERT_EQ(rq.pick_next_entity(), TaskId{2});
  rq.update_curr(200000);
  ASSERT_EQ(rq.pick_next_entity(), TaskId{1});
  rq.update_curr(40000);
  ASSERT_TRUE(rq.protect_slice());
  rq.reweight_entity(1, 8192);
  EXPECT_EQ(rq.entity(1).vruntime, 110000);
  EXPECT_EQ(rq.entity(1).deadline, 230000);
  EXPECT_EQ(rq.protection(), Num(117500));
  EXPECT_TRUE(rq.protect_slice());
  EXPECT_EQ(rq.avg_vruntime(), 120000);
}

}  // namespace
}  // namespace vlag::reference
