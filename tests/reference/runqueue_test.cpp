// Worked examples: each expected value is computed by hand in the comment beside it from the
// formulas of SPEC.md §4.
#include "reference/runqueue.h"

#include <gtest/gtest.h>

#include "reference/invariants.h"
#include "spec/error.h"
#include "tests/support/rq_helpers.h"

namespace vlag::reference {
namespace {

using testing::make_rq;
using testing::q;

void has_id(const std::vector<Violation>& vs, const std::string& id, bool promised) {
  for (const auto& v : vs)
    if (v.id == id && v.promised == promised) return;
  ADD_FAILURE() << "no " << (promised ? "promised " : "unpromised ") << id << " violation";
}

TEST(Runqueue, PlacementPreservesLagThroughInflation) {
  auto rq = make_rq("linux-6.6");  // b = 0.75 ms, no delayed dequeue
  for (TaskId id : {1, 2, 3}) rq.create(id, 1024, 0);
  for (TaskId id : {1, 2, 3}) rq.enqueue_entity(id);
  // New entities: v = V_empty = 0, d = 0 + 750000/2.
  EXPECT_EQ(rq.entity(2).deadline, 375000);
  // All eligible, equal deadlines: the first inserted wins.
  EXPECT_EQ(rq.pick_next_entity(), TaskId{1});
  rq.update_curr(300000);  // v1 = 300000, V = 100000
  EXPECT_EQ(rq.avg_vruntime(), 100000);
  rq.dequeue_entity(2, true);  // vl2 = V - v2 = 100000 (clamp 4 ms is far)
  EXPECT_EQ(rq.entity(2).vlag, 100000);
  EXPECT_EQ(rq.avg_vruntime(), 150000);  // (300000 + 0) / 2
  rq.enqueue_entity(2);
  // l = 100000 * (2048 + 1024) / 2048 = 150000; v2 = 150000 - 150000 = 0.
  EXPECT_EQ(rq.entity(2).vruntime, 0);
  EXPECT_EQ(rq.entity(2).deadline, 750000);  // not new: a whole request
  // V = (300000 + 0 + 0) / 3 = 100000, so V - v2 = 100000: the saved lag.
  EXPECT_EQ(rq.avg_vruntime(), 100000);
  // Task 1 (v = 300000 > V) is not eligible; 3 (d = 375000) beats 2 (d = 750000).
  EXPECT_EQ(rq.pick_next_entity(), TaskId{3});
}

TEST(Runqueue, LagIsWeightedServiceOwedAndSumsToZero) {
  auto rq = make_rq("linux-6.6");
  rq.create(1, 1024, 0);
  rq.create(2, 335, 0);  // nice 5
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  // d1 = 375000; d2 = 750000 * 1024 / 335 / 2 > d1.
  EXPECT_EQ(rq.pick_next_entity(), TaskId{1});
  rq.update_curr(1'000'000);
  // V = 1024 * 1e6 / 1359; lag1 = V - 1e6, lag2 = 335 * V / 1024 = 335e6 / 1359.
  EXPECT_EQ(rq.avg_vruntime(), q(1'024'000'000, 1359));
  EXPECT_EQ(rq.lag(rq.entity(2)), q(335'000'000, 1359));
  EXPECT_EQ(rq.lag(rq.entity(1)), -q(335'000'000, 1359));
  EXPECT_EQ(rq.fluid_clock(), rq.avg_vruntime());
  // The request was consumed (v >= 375000): a new one from the current v.
  EXPECT_EQ(rq.entity(1).deadline, 1'000'000 + 750'000);
  EXPECT_TRUE(rq.need_resched());
}

TEST(Runqueue, DelayedDequeueBurnsNegativeLagThenCompletesAtPick) {
  auto rq = make_rq("linux-6.18");  // b = 0.7 ms
  rq.create(1, 1024, 0);
  rq.create(2, 1024, 0);
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  EXPECT_EQ(rq.pick_next_entity(), TaskId{1});
  rq.update_curr(500000);  // v1 = 500000 > V = 250000: not eligible
  rq.dequeue_entity(1, true);
  EXPECT_EQ(rq.entity(1).status, Status::Delayed);
  EXPECT_EQ(rq.queued().size(), 2u);
  EXPECT_FALSE(rq.curr());
  EXPECT_EQ(rq.pick_next_entity(), TaskId{2});
  rq.update_curr(600000);  // v2 = 600000, V = 550000: 1 is eligible again with lag 50000
  // 1 has the earlier deadline (1.2e6 vs 1.3e6): picking it completes its dequeue, with the
  // positive lag zeroed (DELAY_ZERO), and 2 is picked instead.
  EXPECT_EQ(rq.entity(1).deadline, 1'200'000);
  EXPECT_EQ(rq.entity(2).deadline, 1'300'000);
  EXPECT_EQ(rq.pick_next_entity(), TaskId{2});
  EXPECT_EQ(rq.entity(1).status, Status::Sleeping);
  EXPECT_EQ(rq.entity(1).vlag, 0);
}

TEST(Runqueue, WakingADelayedEntityKeepsItsNegativeLag) {
  auto rq = make_rq("linux-6.18");
  rq.create(1, 1024, 0);
  rq.create(2, 1024, 0);
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  rq.pick_next_entity();
  rq.update_curr(500000);
  rq.dequeue_entity(1, true);
  const Num v = rq.entity(1).vruntime;
  rq.enqueue_entity(1);
  EXPECT_EQ(rq.entity(1).status, Status::Queued);
  EXPECT_EQ(rq.entity(1).vruntime, v);
}

struct TwoTasks {
  Runqueue rq;
  explicit TwoTasks(const std::string& preset) : rq(make_rq(preset)) {
    rq.create(1, 1024, 0);
    rq.create(2, 1024, 0);
    rq.enqueue_entity(1);
    rq.enqueue_entity(2);
    rq.pick_next_entity();
    rq.update_curr(400000);  // v1 = 400000, v2 = 0, V = 200000
  }
};

TEST(Reweight, RescaleKeepsVAndWeightedLag) {
  TwoTasks t("linux-6.12");
  Runqueue before = t.rq;
  t.rq.reweight_entity(2, 2048);
  // v2' = V - 200000 * 1024/2048 = 100000; d2' = V + (375000 - V) / 2 = 287500.
  EXPECT_EQ(t.rq.entity(2).vruntime, 100000);
  EXPECT_EQ(t.rq.entity(2).deadline, 287500);
  EXPECT_EQ(t.rq.avg_vruntime(), 200000);
  EXPECT_TRUE(check_step(before, {OpKind::Reweight, 2, 2048}, t.rq).empty());
}

TEST(Reweight, KeepVOf66MovesV) {
  TwoTasks t("linux-6.6");
  Runqueue before = t.rq;
  t.rq.reweight_entity(2, 2048);
  EXPECT_EQ(t.rq.entity(2).vruntime, 0);
  EXPECT_EQ(t.rq.avg_vruntime(), q(400000, 3));  // 1024 * 400000 / 3072
  has_id(check_step(before, {OpKind::Reweight, 2, 2048}, t.rq), "INV-REWEIGHT", false);
}

TEST(Reweight, PlacementOfRunningEntityIn618MovesV) {
  TwoTasks t("linux-6.18");
  Runqueue before = t.rq;
  t.rq.reweight_entity(1, 2048);  // task 1 is running
  // l = -200000 -> -100000 at the new weight; V' = 2048*400000/3072 = 800000/3 (curr counted
  // with its new weight), W' = 3072; inflated -100000 * 5120/3072 = -500000/3;
  // v1 = 800000/3 + 500000/3 = 1300000/3; V after = 2048 * v1 / 3072 = 2600000/9.
  EXPECT_EQ(t.rq.entity(1).vruntime, q(1'300'000, 3));
  EXPECT_EQ(t.rq.avg_vruntime(), q(2'600'000, 9));
  has_id(check_step(before, {OpKind::Reweight, 1, 2048}, t.rq), "INV-REWEIGHT", false);
}

TEST(Reweight, PlacementOfQueuedEntityIn618EqualsRescale) {
  TwoTasks t("linux-6.18");
  Runqueue before = t.rq;
  t.rq.reweight_entity(2, 2048);
  EXPECT_EQ(t.rq.avg_vruntime(), 200000);
  EXPECT_EQ(t.rq.entity(2).vruntime, 100000);
  EXPECT_TRUE(check_step(before, {OpKind::Reweight, 2, 2048}, t.rq).empty());
}

TEST(Reweight, SleepingEntityScalesSavedLag) {
  TwoTasks t("linux-6.12");
  t.rq.dequeue_entity(2, true);  // vl2 = 200000 (2 is eligible: no delay)
  t.rq.reweight_entity(2, 4096);
  EXPECT_EQ(t.rq.entity(2).vlag, 50000);
}

TEST(WakeupPreempt, ShortSliceWakeeCancelsProtectionIn618ButNotIn66) {
  for (const char* preset : {"linux-6.18", "linux-6.6"}) {
    auto rq = make_rq(preset);
    rq.create(1, 1024, 0);
    rq.create(2, 1024, 100'000);
    rq.enqueue_entity(1);
    rq.pick_next_entity();
    rq.update_curr(100000);  // v1 = 100000 < d1: protected
    EXPECT_TRUE(rq.protect_slice()) << preset;
    rq.enqueue_entity(2);  // v2 = V = 100000, d2 = v2 + 100000/2
    const bool preempt = rq.wakeup_preempt(2);
    EXPECT_EQ(preempt, std::string(preset) == "linux-6.18") << preset;
    EXPECT_EQ(rq.pick_next_entity(), preempt ? TaskId{2} : TaskId{1}) << preset;
  }
}

TEST(Protection, VprotEndsAtTheShortestQueuedSlice) {
  auto rq = make_rq("linux-6.18");
  rq.create(1, 1024, 0);
  rq.create(2, 1024, 200'000);
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  // d1 = 350000, d2 = 100000: 2 goes first and runs out its request.
  EXPECT_EQ(rq.pick_next_entity(), TaskId{2});
  rq.update_curr(100000);
  EXPECT_EQ(rq.pick_next_entity(), TaskId{1});
  // 1 is protected for min(d1, v1 + 200000) = 200000 of virtual time.
  rq.update_curr(199999);
  EXPECT_TRUE(rq.protect_slice());
  rq.update_curr(1);
  EXPECT_FALSE(rq.protect_slice());
  EXPECT_TRUE(rq.need_resched());
}

TEST(Yield, PushesTheDeadlineByOneRequest) {
  // 6.6: the pushed deadline ends the stash protection, so the other task runs. 6.18: vprot is
  // a vruntime bound that yield does not touch, so curr keeps its protected window (SPEC §4.11).
  for (const char* preset : {"linux-6.6", "linux-6.18"}) {
    auto rq = make_rq(preset);
    const int64_t b = rq.params().base_slice_ns();
    rq.create(1, 1024, 0);
    rq.create(2, 1024, 0);
    rq.enqueue_entity(1);
    rq.enqueue_entity(2);
    rq.pick_next_entity();
    rq.yield_task();
    EXPECT_EQ(rq.entity(1).deadline, b / 2 + b) << preset;
    const bool is_66 = std::string(preset) == "linux-6.6";
    EXPECT_EQ(rq.pick_next_entity(), is_66 ? TaskId{2} : TaskId{1}) << preset;
  }
}

TEST(Runqueue, RejectedCallsThrowAndChangeNothing) {
  TwoTasks t("linux-6.18");
  const auto snapshot = [](const Runqueue& rq) {
    std::string s = std::to_string(rq.now()) + "|" + rq.avg_vruntime().get_str();
    for (const auto& e : rq.entities())
      s += "|" + std::to_string(e.id) + "," + e.vruntime.get_str() + "," + e.deadline.get_str() +
           "," + std::to_string(e.weight) + "," + std::to_string(e.slice);
    return s;
  };
  const std::string before = snapshot(t.rq);
  EXPECT_THROW(t.rq.dequeue_entity(9, true), Error);
  EXPECT_THROW(t.rq.enqueue_entity(2), Error);
  EXPECT_THROW(t.rq.update_curr(-1), Error);
  EXPECT_THROW(t.rq.reweight_entity(2, 0), Error);
  EXPECT_THROW(t.rq.reweight_entity(2, 1 << 19), Error);
  EXPECT_THROW(t.rq.set_slice(2, 50'000), Error);
  EXPECT_THROW(t.rq.create(1, 1024, 0), Error);
  EXPECT_THROW(t.rq.exit(1), Error);
  EXPECT_THROW(t.rq.wakeup_preempt(1), Error);
  EXPECT_THROW(t.rq.update_curr(int64_t{1} << 62), Error);
  EXPECT_EQ(snapshot(t.rq), before);
  t.rq.dequeue_entity(1, false);
  t.rq.dequeue_entity(2, false);
  EXPECT_THROW(t.rq.yield_task(), Error);
  EXPECT_NO_THROW(t.rq.exit(2));
  EXPECT_FALSE(t.rq.has(2));
}

TEST(Runqueue, MigrationKeepsTheRelativeDeadline) {
  auto rq = make_rq("linux-6.18");
  rq.create(1, 1024, 0);
  rq.create(2, 1024, 0);
  rq.enqueue_entity(1);
  rq.enqueue_entity(2);
  rq.pick_next_entity();
  rq.update_curr(100000);  // d1 - v1 = 250000
  rq.dequeue_entity(1, false);
  EXPECT_TRUE(rq.entity(1).rel_deadline);
  rq.enqueue_entity(1);
  EXPECT_EQ(rq.entity(1).deadline - rq.entity(1).vruntime, 250000);
}

class Recorder : public Observer<Num> {
 public:
  std::vector<StepReport<Num>> events;
  void on_step(const StepReport<Num>& e) override { events.push_back(e); }
};

TEST(Runqueue, ObserverSeesEveryAppliedOperation) {
  auto rq = make_rq("linux-6.18");
  Recorder rec;
  rq.set_observer(&rec);
  rq.apply({OpKind::Create, 7, 1024, 0});
  rq.apply({OpKind::Enqueue, 7});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Run, 0, 1000});
  ASSERT_EQ(rec.events.size(), 4u);
  const auto& pick = rec.events[2];
  ASSERT_TRUE(pick.picked);
  EXPECT_EQ(*pick.picked, 7);
  ASSERT_TRUE(pick.entity);
  EXPECT_TRUE(pick.entity->running);
  EXPECT_EQ(rec.events[3].now, 1000);
  ASSERT_TRUE(rec.events[3].entity);
  EXPECT_EQ(rec.events[3].entity->vruntime, 1000);
  EXPECT_EQ(to_string(rec.events[3].op), "run 1000");
}

}  // namespace
}  // namespace vlag::reference
