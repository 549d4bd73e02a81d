// The CFS runqueue (cfs/, SPEC.md §8): hand-computed examples of v6.5's rules, and properties
// over random operation sequences. Case counts come from RC_PARAMS.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <sstream>

#include "cfs/runqueue.h"
#include "checker/run.h"
#include "spec/cfs_policy.h"
#include "spec/error.h"
#include "tests/support/cfs_helpers.h"
#include "tests/support/op_gen.h"

namespace vlag::cfs {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kOrigin = -(int64_t{1} << 20);  // init_cfs_rq's min_vruntime

Params cfs_params(std::string_view policy = kCfsPolicy, int ncpus = 1) {
  return make_params(cfs_preset(policy), 250, ncpus);
}

Runqueue make_rq(bool latency_nice = false) {
  return Runqueue(cfs_params(latency_nice ? kCfsLatencyNicePolicy : kCfsPolicy),
                  CfsOptions{latency_nice});
}

int64_t v_of(const Runqueue& rq, TaskId id) { return rq.entity(id).vruntime.value(); }

// Runs curr in 1 ms steps with a tick after each, picking again whenever a reschedule is due;
// returns the task run in each step.
std::vector<TaskId> run_steps(Runqueue& rq, int steps) {
  std::vector<TaskId> ran;
  for (int i = 0; i < steps; ++i) {
    if (!rq.curr() || rq.need_resched()) rq.apply({OpKind::Pick});
    ran.push_back(*rq.curr());
    rq.apply({OpKind::Run, 0, kMs});
    rq.apply({OpKind::Tick});
  }
  return ran;
}

TEST(CfsRunqueue, TunablesScaleWithTheCpuFactor) {
  const Tunables one = tunables_for(cfs_params(kCfsPolicy, 1));
  EXPECT_EQ(one.latency_ns, 6 * kMs);
  EXPECT_EQ(one.min_granularity_ns, 750'000);
  EXPECT_EQ(one.wakeup_granularity_ns, kMs);
  EXPECT_EQ(one.nr_latency, 8);
  EXPECT_EQ(one.sleeper_credit_ns(), 3 * kMs);
  const Tunables eight = tunables_for(cfs_params(kCfsPolicy, 64));  // factor 1 + log2(8) = 4
  EXPECT_EQ(eight.latency_ns, 24 * kMs);
  EXPECT_EQ(eight.wakeup_granularity_ns, 4 * kMs);
  EXPECT_EQ(eight.nr_latency, 8);
  EXPECT_EQ(one.period_ns(8), 6 * kMs);
  EXPECT_EQ(one.period_ns(9), 9 * 750'000);
}

// 6 ms · 1024 · ⌊(2^32 − 1)/2048⌋ >> 32: half a period, less the fixed point's truncation.
TEST(CfsRunqueue, CalcDeltaIsLinuxFixedPoint) {
  EXPECT_EQ(calc_delta(6 * kMs, 1024, 2048), 2'999'998);
  EXPECT_EQ(calc_delta(6 * kMs, 1024, 1024), 5'999'998);
  EXPECT_EQ(calc_delta_fair(kMs, 1024), kMs);
  // nice 5: 1 ms · 1024 · sched_prio_to_wmult[25] (12820798) >> 32.
  EXPECT_EQ(calc_delta_fair(kMs, 335), 3'056'716);
}

TEST(CfsRunqueue, LatencyOffsetFollowsTheSeriesTable) {
  EXPECT_EQ(latency_weight(-20), -1024);
  EXPECT_EQ(latency_weight(-19), -973);
  EXPECT_EQ(latency_weight(-13), -666);
  EXPECT_EQ(latency_weight(0), 0);
  EXPECT_EQ(latency_weight(1), 51);
  EXPECT_EQ(latency_weight(19), 973);
  const Tunables t = tunables_for(cfs_params());
  EXPECT_EQ(latency_offset_ns(-20, t), -3 * kMs);
  EXPECT_EQ(latency_offset_ns(19, t), 973 * 3 * kMs / 1024);
  EXPECT_THROW(latency_offset_ns(20, t), Error);
}

// START_DEBIT: the first task alone gets a whole period, the second half of one (the load counts
// it), both after min_vruntime; the second is therefore the leftmost.
TEST(CfsRunqueue, NewTaskStartsOneVsliceAfterMinVruntime) {
  Runqueue rq = make_rq();
  rq.apply({OpKind::Create, 1, 1024});
  rq.apply({OpKind::Create, 2, 1024});
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Enqueue, 2});
  EXPECT_EQ(v_of(rq, 1), kOrigin + 5'999'998);
  EXPECT_EQ(v_of(rq, 2), kOrigin + 2'999'998);
  rq.apply({OpKind::Pick});
  EXPECT_EQ(rq.curr(), 2);
  // A task created while 2 runs far ahead starts no earlier than the running task.
  rq.apply({OpKind::Run, 0, 20 * kMs});
  rq.apply({OpKind::Create, 3, 1024});
  rq.apply({OpKind::Enqueue, 3});
  EXPECT_EQ(v_of(rq, 3), v_of(rq, 2));
}

// Two nice-0 hogs: each runs until it has used sched_slice = 2 999 998 ns, i.e. 3 steps of 1 ms,
// then the other (now leftmost) runs.
TEST(CfsRunqueue, TwoHogsAlternateBySchedSlice) {
  Runqueue rq = make_rq();
  for (TaskId id : {1, 2}) {
    rq.apply({OpKind::Create, id, 1024});
    rq.apply({OpKind::Enqueue, id});
  }
  EXPECT_EQ(rq.sched_slice(rq.entity(1)), 2'999'998);
  const std::vector<TaskId> ran = run_steps(rq, 24);
  for (size_t i = 0; i < ran.size(); ++i)
    EXPECT_EQ(ran[i], (i / 3) % 2 == 0 ? 2 : 1) << "step " << i;
}

TEST(CfsRunqueue, Nice0AndNice5ShareByWeight) {
  Runqueue rq = make_rq();
  rq.apply({OpKind::Create, 1, 1024});
  rq.apply({OpKind::Create, 2, 335});
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Enqueue, 2});
  int64_t ran1 = 0;
  const std::vector<TaskId> ran = run_steps(rq, 6000);
  for (TaskId id : ran) ran1 += id == 1;
  const double share = static_cast<double>(ran1) / static_cast<double>(ran.size());
  EXPECT_NEAR(share, 1024.0 / (1024 + 335), 0.01);
}

// Task `id` has run once and sleeps: its next enqueue is a wakeup.
void make_sleeper(Runqueue& rq, TaskId id) {
  rq.apply({OpKind::Enqueue, id});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Dequeue, id, 0, 0, kDequeueSleep});
}

// A long sleeper comes back a sleeper credit (latency / 2) behind min_vruntime; a short one
// keeps its own vruntime.
TEST(CfsRunqueue, SleeperIsPlacedAtMostHalfALatencyBehind) {
  Runqueue rq = make_rq();
  for (TaskId id : {1, 2}) rq.apply({OpKind::Create, id, 1024});
  make_sleeper(rq, 2);
  const int64_t slept_at = v_of(rq, 2);
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Run, 0, 100 * kMs});
  EXPECT_EQ(rq.min_vruntime().value(), v_of(rq, 1));
  rq.apply({OpKind::Enqueue, 2});
  EXPECT_EQ(v_of(rq, 2), rq.min_vruntime().value() - 3 * kMs);
  EXPECT_GT(v_of(rq, 2), slept_at);

  // 2 runs 4 ms, ending 1 ms after min_vruntime, and sleeps briefly: it keeps that vruntime.
  rq.apply({OpKind::Pick});
  ASSERT_EQ(rq.curr(), 2);
  rq.apply({OpKind::Run, 0, 4 * kMs});
  rq.apply({OpKind::Dequeue, 2, 0, 0, kDequeueSleep});
  const int64_t before = v_of(rq, 2);
  EXPECT_EQ(before, rq.min_vruntime().value() + kMs);
  rq.apply({OpKind::Enqueue, 2});
  EXPECT_EQ(v_of(rq, 2), before);
}

// The wakee preempts iff curr is ahead of it by more than wakeup_granularity in the wakee's
// virtual time: a nice-0 sleeper (3 ms behind > 1 ms) does, a nice-5 one (3 ms < 3.06 ms) not.
TEST(CfsRunqueue, WakeupPreemptsIffAheadByMoreThanWeightedGranularity) {
  for (const int64_t w : {int64_t{1024}, int64_t{335}}) {
    Runqueue rq = make_rq();
    rq.apply({OpKind::Create, 1, 1024});
    rq.apply({OpKind::Create, 2, w});
    make_sleeper(rq, 2);
    rq.apply({OpKind::Enqueue, 1});
    rq.apply({OpKind::Pick});
    rq.apply({OpKind::Run, 0, 50 * kMs});
    rq.apply({OpKind::Enqueue, 2});
    const int64_t vdiff = v_of(rq, 1) - v_of(rq, 2);
    EXPECT_EQ(vdiff, 3 * kMs);
    rq.apply({OpKind::WakeupPreempt, 2});
    EXPECT_EQ(rq.last_outcome().preempt, w == 1024) << "weight " << w;
    EXPECT_EQ(rq.need_resched(), w == 1024);
    EXPECT_EQ(rq.next_buddy(), w == 1024 ? std::optional<TaskId>(2) : std::nullopt);
  }
}

// check_preempt_tick's second rule: once curr ran min_granularity (0.75 ms) since its pick, it
// is preempted when it is more than its ideal runtime (3 ms − 2 ns, compared in virtual time)
// ahead of the leftmost, although it has not used that ideal runtime.
TEST(CfsRunqueue, TickPreemptsAfterMinGranularityWhenFarAhead) {
  Runqueue rq = make_rq();
  for (TaskId id : {1, 2}) rq.apply({OpKind::Create, id, 1024});
  make_sleeper(rq, 2);
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Run, 0, 50 * kMs});
  rq.apply({OpKind::Pick});  // 1 again, with a fresh slice
  ASSERT_EQ(rq.curr(), 1);
  rq.apply({OpKind::Enqueue, 2});  // 3 ms behind: far enough, but no wakeup check is made
  rq.apply({OpKind::Run, 0, 500'000});
  rq.apply({OpKind::Tick});
  EXPECT_FALSE(rq.need_resched()) << "ran 0.5 ms < min_granularity";
  rq.apply({OpKind::Run, 0, 500'000});
  EXPECT_GT(v_of(rq, 1) - v_of(rq, 2), rq.sched_slice(rq.entity(1)));
  rq.apply({OpKind::Tick});
  EXPECT_TRUE(rq.need_resched()) << "ran 1 ms, 4 ms ahead of the leftmost";
}

TEST(CfsRunqueue, DetachTakesOnlySleepingTasks) {
  Runqueue rq = make_rq();
  for (TaskId id : {1, 2}) rq.apply({OpKind::Create, id, 1024});
  rq.apply({OpKind::Enqueue, 1});
  EXPECT_FALSE(rq.detach(1).has_value());
  EXPECT_TRUE(rq.has(1));
  EXPECT_THROW(rq.detach(3), Error);
  const auto fresh = rq.detach(2);  // never enqueued: level with min_vruntime
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(fresh->vlag, 0);
  Migrant<int64_t> bad = *fresh;
  bad.weight = 0;
  EXPECT_THROW(rq.attach(bad), Error);
  EXPECT_FALSE(rq.has(2));
}

TEST(CfsRunqueue, YieldSkipsToTheNextTask) {
  Runqueue rq = make_rq();
  for (TaskId id : {1, 2}) {
    rq.apply({OpKind::Create, id, 1024});
    rq.apply({OpKind::Enqueue, id});
  }
  rq.apply({OpKind::Pick});
  ASSERT_EQ(rq.curr(), 2);
  rq.apply({OpKind::Run, 0, 2'500'000});  // 2 is now 0.5 ms behind 1: within the granularity
  rq.apply({OpKind::Yield});
  EXPECT_TRUE(rq.need_resched());
  EXPECT_EQ(rq.skip_buddy(), 2);
  rq.apply({OpKind::Pick});  // 2 is still leftmost, but it asked to be skipped
  EXPECT_EQ(rq.curr(), 1);
}

// v9 8/9: a latency-sensitive wakee that fails to preempt still runs first at the next pick.
TEST(CfsRunqueue, LatencyTreePicksTheSensitiveWakee) {
  Runqueue rq = make_rq(true);
  for (TaskId id : {1, 2, 3}) rq.apply({OpKind::Create, id, 1024});
  rq.set_latency_nice(3, -20);
  EXPECT_EQ(rq.entity(3).latency_offset, -3 * kMs);
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Enqueue, 2});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Run, 0, kMs});
  rq.apply({OpKind::Enqueue, 3});
  EXPECT_TRUE(rq.entity(3).on_latency_tree);
  rq.apply({OpKind::Pick});
  EXPECT_EQ(rq.curr(), 3);
  EXPECT_FALSE(rq.entity(3).on_latency_tree);
}

TEST(CfsRunqueue, LatencyNiceNeedsTheLatencyPolicy) {
  Runqueue rq = make_rq();
  rq.apply({OpKind::Create, 1, 1024});
  EXPECT_THROW(rq.set_latency_nice(1, -5), Error);
  Runqueue ln = make_rq(true);
  ln.apply({OpKind::Create, 1, 1024});
  EXPECT_THROW(ln.set_latency_nice(1, -21), Error);
  EXPECT_THROW(ln.set_latency_nice(7, 0), Error);
  EXPECT_EQ(ln.entity(1).latency_nice, 0);
}

// ---------------------------------------------------------------------------------------------
// Properties

std::string snapshot(const Runqueue& rq, int ntasks) {
  std::ostringstream s;
  s << rq.now() << " m=" << rq.min_vruntime().value() << " n=" << rq.nr_queued()
    << " W=" << rq.load() << " c=" << rq.curr().value_or(-1) << " r=" << rq.need_resched()
    << " b=" << rq.next_buddy().value_or(-1) << rq.last_buddy().value_or(-1)
    << rq.skip_buddy().value_or(-1);
  for (TaskId id = 1; id <= ntasks; ++id) {
    if (!rq.has(id)) continue;
    const Entity& e = rq.entity(id);
    s << " [" << id << " w=" << e.weight << " v=" << e.vruntime.value() << " rel=" << e.relative
      << " st=" << static_cast<int>(e.status) << " run=" << e.running
      << " sum=" << e.sum_exec_runtime << "/" << e.prev_sum_exec_runtime
      << " lt=" << e.on_latency_tree << " lo=" << e.latency_offset << "]";
  }
  return s.str();
}

// Every invariant of SPEC.md §8.5 holds on the trace of a random run: CfsChecker (the checker
// of those IDs) finds no violation, and the state agrees with its own accounting after each op.
RC_GTEST_PROP(CfsProperties, InvariantsHoldAfterEveryOperation, ()) {
  const bool latency = *rc::gen::arbitrary<bool>();
  const int ntasks = *rc::gen::inRange(1, 6);
  const auto weights = *rc::gen::container<std::vector<int64_t>>(ntasks, testing::gen_weight());
  const auto lnice = *rc::gen::container<std::vector<int>>(ntasks, rc::gen::inRange(-20, 20));
  const auto ops = *testing::gen_busy_ops(ntasks);
  testing::TracedCfs traced(latency);
  Runqueue& rq = traced.rq;
  for (int i = 0; i < ntasks; ++i) {
    rq.apply({OpKind::Create, i + 1, weights[i]});
    if (latency) rq.set_latency_nice(i + 1, lnice[i]);
  }
  int64_t min_v = rq.min_vruntime().value();
  for (const Op& op : ops) {
    try {
      rq.apply(op);
    } catch (const Error&) {
    }
    RC_ASSERT(rq.min_vruntime().value() >= min_v);
    min_v = rq.min_vruntime().value();
    int64_t queued = 0, load = 0;
    for (TaskId id = 1; id <= ntasks; ++id) {
      const Entity& e = rq.entity(id);
      if (e.status != Status::Queued) continue;
      ++queued;
      load += e.weight;
      RC_ASSERT(e.vruntime.value() >= min_v - rq.tunables().sleeper_credit_ns());
    }
    RC_ASSERT(queued == rq.nr_queued());
    RC_ASSERT(load == rq.load());
    if (rq.curr()) RC_ASSERT(rq.entity(*rq.curr()).status == Status::Queued);
  }
  checker::CheckOptions options;
  options.arbiter = false;
  const checker::Report report =
      checker::check({checker::text_source("run", traced.out.str())}, options);
  RC_ASSERT(report.violation_count == 0);
  const bool picked =
      std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::Pick; });
  const auto pick_stats = report.stats.find("CFS-PICK-LEFTMOST");
  RC_ASSERT(picked == (pick_stats != report.stats.end() && pick_stats->second.checked > 0));
}

RC_GTEST_PROP(CfsProperties, RejectedOperationsLeaveTheStateUnchanged, ()) {
  const bool latency = *rc::gen::arbitrary<bool>();
  const int ntasks = *rc::gen::inRange(1, 5);
  const auto ops = *testing::gen_busy_ops(ntasks);
  Runqueue rq = make_rq(latency);
  for (TaskId id = 1; id <= ntasks; ++id) rq.apply({OpKind::Create, id, 1024});
  int rejected = 0;
  for (const Op& op : ops) {
    const std::string before = snapshot(rq, ntasks);
    try {
      rq.apply(op);
    } catch (const Error&) {
      ++rejected;
      RC_ASSERT(snapshot(rq, ntasks) == before);
    }
  }
  RC_TAG(rejected > 0 ? "some rejected" : "none rejected");
}

// A sleeping task that migrates keeps its vruntime relative to min_vruntime: it leaves with
// Migrant::vlag = min_vruntime − v and, on a runqueue whose placement does not move it, arrives
// at the new min_vruntime − vlag.
RC_GTEST_PROP(CfsProperties, DetachAttachKeepsTheRelativeVruntime, ()) {
  const auto ops = *testing::gen_busy_ops(3);
  const int64_t busy_ns = *rc::gen::inRange<int64_t>(0, 50 * kMs);
  Runqueue from = make_rq();
  for (TaskId id = 1; id <= 3; ++id) from.apply({OpKind::Create, id, 1024});
  for (const Op& op : ops) {
    try {
      from.apply(op);
    } catch (const Error&) {
    }
  }
  std::optional<TaskId> sleeper;
  for (TaskId id = 1; id <= 3; ++id)
    if (from.entity(id).status == Status::Sleeping && !from.entity(id).is_new) sleeper = id;
  RC_PRE(sleeper.has_value());
  const Entity& e = from.entity(*sleeper);
  const int64_t rel = (from.absolute_vruntime(e) - from.min_vruntime()).value();
  const auto m = from.detach(*sleeper);
  RC_ASSERT(m.has_value());
  RC_ASSERT(m->vlag == -rel);
  RC_ASSERT(!from.has(*sleeper));

  Runqueue to = make_rq();
  to.apply({OpKind::Create, 9, 1024});
  to.apply({OpKind::Enqueue, 9});
  to.apply({OpKind::Pick});
  to.apply({OpKind::Run, 0, busy_ns});
  RC_ASSERT(to.attach(*m));
  RC_ASSERT(!to.attach(*m));  // the id is taken now
  RC_ASSERT((to.absolute_vruntime(to.entity(*sleeper)) - to.min_vruntime()).value() == rel);
  to.apply({OpKind::Enqueue, *sleeper});
  const int64_t expected = std::max(to.min_vruntime().value() + rel,
                                    to.min_vruntime().value() - to.tunables().sleeper_credit_ns());
  RC_ASSERT(v_of(to, *sleeper) == expected);
}

}  // namespace
}  // namespace vlag::cfs
