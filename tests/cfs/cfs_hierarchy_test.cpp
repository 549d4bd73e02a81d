// v6.5's CFS hierarchy (cfs/hierarchy.h, SPEC.md §8.6) on one CPU, rule by rule: sched_slice
// over the hierarchy, a group entity's placement, the levels a pick touches, the dequeue's
// next-buddy bias, and series 6/9's group latency offset in wakeup preemption.
#include <gtest/gtest.h>

#include <optional>

#include "cfs/hierarchy.h"
#include "spec/cfs_policy.h"

namespace vlag::cfs {
namespace {

constexpr int64_t kMs = 1'000'000;

struct OneCpu {
  explicit OneCpu(bool latency_nice = false, std::optional<int> lat_group_nice = std::nullopt)
      : params(make_params(cfs_preset(latency_nice ? kCfsLatencyNicePolicy : kCfsPolicy), 250, 1)),
        groups(1),
        a(groups.add("/a", 1024)),
        b(groups.add("/b", 1024)),
        h(params, groups, 0, CfsOptions{.latency_nice = latency_nice},
          [this, lat_group_nice](GroupId g) { return g == a ? lat_group_nice : std::nullopt; }) {}

  // Every operation, then SPEC.md §10.5's INV-GROUP-QUEUED, which holds for v6.5's hierarchy
  // too: a group entity is queued iff its runqueue holds entities.
  Hierarchy::Outcome apply(const Op& o, GroupId g = reference::kRootGroup) {
    const Hierarchy::Outcome out = h.apply(o, g);
    for (GroupId x : {a, b}) {
      if (!h.has_runqueue(x)) continue;
      EXPECT_EQ(ge(x).status == Status::Queued, h.runqueue(x).nr_queued() > 0)
          << op_name(o.kind) << ": group " << groups.group(x).path;
    }
    return out;
  }
  void tasks_1_2_in_a_3_in_b() {
    create(1, a);
    create(2, a);
    create(3, b);
    for (TaskId t : {1, 2, 3}) enqueue(t);
  }
  void create(TaskId t, GroupId g) { apply({OpKind::Create, t, 1024, 0}, g); }
  void enqueue(TaskId t) { apply({OpKind::Enqueue, t}); }
  void sleep(TaskId t) { apply({OpKind::Dequeue, t, 0, 0, kDequeueSleep}); }
  std::optional<TaskId> pick() { return apply({OpKind::Pick}).picked; }
  void run(int64_t ns) { apply({OpKind::Run, 0, ns}); }
  const Entity& ge(GroupId g) const {
    return h.runqueue(reference::kRootGroup).entity(reference::group_entity_id(g));
  }
  const Entity& task(TaskId t) const { return h.runqueue(h.group_of(t)).entity(t); }

  Params params;
  reference::TaskGroups groups;
  GroupId a;
  GroupId b;
  Hierarchy h;
};

// sched_slice's for_each_sched_entity: one task in /a against three in /b, equal shares, one
// CPU: the period of the CPU's 4 tasks (6 ms) is halved between the groups and /b's half shared
// by three; a flat runqueue of the four would give each 1.5 ms.
TEST(CfsHierarchy, SchedSliceIsScaledByEveryLevel) {
  OneCpu c;
  c.create(1, c.a);
  for (TaskId t : {2, 3, 4}) c.create(t, c.b);
  for (TaskId t : {1, 2, 3, 4}) c.enqueue(t);
  const int64_t period = c.h.runqueue(c.a).tunables().period_ns(4);
  EXPECT_EQ(period, 6 * kMs);
  EXPECT_EQ(c.h.runqueue(c.a).sched_slice(c.task(1)),
            calc_delta(calc_delta(period, 1024, 1024), 1024, 2048));
  EXPECT_EQ(c.h.runqueue(c.b).sched_slice(c.task(2)),
            calc_delta(calc_delta(period, 1024, 3072), 1024, 2048));
  // 1 ms and 3 ms, less the truncations of __calc_delta at each level.
  EXPECT_NEAR(static_cast<double>(c.h.runqueue(c.b).sched_slice(c.task(2))), kMs, 5);
  EXPECT_NEAR(static_cast<double>(c.h.runqueue(c.a).sched_slice(c.task(1))), 3 * kMs, 5);
  EXPECT_EQ(c.h.nr_queued(), 4);
}

// A group entity is enqueued as a wakeup even the first time: at min_vruntime − the sleeper
// credit, not one vslice after min_vruntime (START_DEBIT, a new task's placement).
TEST(CfsHierarchy, GroupEntityIsPlacedAsASleeper) {
  OneCpu c;
  c.create(1, c.a);
  c.enqueue(1);
  ASSERT_EQ(c.pick(), 1);
  c.run(10 * kMs);
  c.create(2, c.b);
  const LinuxTime m = c.h.runqueue(reference::kRootGroup).min_vruntime();
  c.enqueue(2);
  const int64_t credit = c.h.runqueue(reference::kRootGroup).tunables().sleeper_credit_ns();
  EXPECT_EQ((c.ge(c.b).vruntime - m).value(), -credit);
  // Inside its own runqueue the task is a new one, placed by START_DEBIT there.
  const Runqueue& rb = c.h.runqueue(c.b);
  EXPECT_GT((c.task(2).vruntime - rb.min_vruntime()).value(), 0);
}

// pick_next_task_fair touches only the levels whose entity changes: switching between two tasks
// of /a leaves /a's group entity running with its slice going on (prev_sum_exec_runtime kept).
TEST(CfsHierarchy, PickKeepsTheRunningGroupEntitysSlice) {
  OneCpu c;
  c.tasks_1_2_in_a_3_in_b();
  const std::optional<TaskId> first = c.pick();
  ASSERT_TRUE(first == 1 || first == 2);
  c.run(kMs / 2);  // less than a wakeup granularity ahead of /b: /a stays the next buddy's
  const int64_t slice_start = c.ge(c.a).prev_sum_exec_runtime;
  c.sleep(*first);  // the other task of /a runs next: /a keeps the CPU
  const std::optional<TaskId> second = c.pick();
  ASSERT_TRUE(second && *second != *first && c.h.group_of(*second) == c.a);
  EXPECT_EQ(c.ge(c.a).prev_sum_exec_runtime, slice_start);
  EXPECT_EQ(c.ge(c.a).sum_exec_runtime - slice_start, kMs / 2);
  EXPECT_EQ(c.task(*second).prev_sum_exec_runtime, c.task(*second).sum_exec_runtime);
}

// dequeue_task_fair: a task that sleeps while its group keeps tasks makes the group entity the
// next buddy of its parent (set_next_buddy), biasing the pick toward its group.
TEST(CfsHierarchy, SleepInsideABusyGroupMakesItTheNextBuddy) {
  OneCpu c;
  c.tasks_1_2_in_a_3_in_b();
  ASSERT_TRUE(c.pick());
  EXPECT_FALSE(c.h.runqueue(reference::kRootGroup).next_buddy());
  c.sleep(1);
  EXPECT_EQ(c.h.runqueue(reference::kRootGroup).next_buddy(), reference::group_entity_id(c.a));
  c.sleep(3);  // /b empties: its entity leaves, no buddy for it
  EXPECT_EQ(c.h.runqueue(reference::kRootGroup).next_buddy(), reference::group_entity_id(c.a));
}

// A task of /a wakes while a task of /b runs, /a's entity half a wakeup granularity behind:
// the decision is between the group entities on the root runqueue (find_matching_se), so under
// cfs-latency-nice /a's cpu.latency.nice −20 (series 6/9: its entity's offset) preempts, while
// the task's own latency_nice −20, inside /a, does not reach that decision.
bool lat_wakeup_preempts(bool latency_nice, std::optional<int> group_nice, int task_nice) {
  OneCpu c(latency_nice, group_nice);
  c.create(1, c.a);
  c.create(2, c.b);
  if (task_nice != 0) c.h.set_latency_nice(1, task_nice);
  c.enqueue(1);
  EXPECT_EQ(c.pick(), 1);
  c.run(10 * kMs);
  c.sleep(1);
  c.enqueue(2);
  EXPECT_EQ(c.pick(), 2);
  // /b's entity starts a sleeper credit (3 ms) behind /a's; 3.5 ms later it is 0.5 ms ahead.
  c.run(3'500'000);
  c.enqueue(1);
  EXPECT_EQ((c.ge(c.b).vruntime - c.ge(c.a).vruntime).value(), 500'000);
  return c.apply({OpKind::WakeupPreempt, 1}).preempt;
}

TEST(CfsHierarchy, GroupLatencyNiceDecidesWakeupPreemptionAtTheRoot) {
  EXPECT_FALSE(lat_wakeup_preempts(false, std::nullopt, 0));
  EXPECT_FALSE(lat_wakeup_preempts(true, std::nullopt, 0));
  EXPECT_TRUE(lat_wakeup_preempts(true, -20, 0));
  EXPECT_FALSE(lat_wakeup_preempts(true, std::nullopt, -20));
  // Plain cfs (v6.5) has no cpu.latency.nice: the group's setting is not applied.
  EXPECT_FALSE(lat_wakeup_preempts(false, -20, 0));
}

}  // namespace
}  // namespace vlag::cfs
