// Properties of the exact hierarchy (SPEC.md §10) over random trees of task groups and random
// operation sequences: every promised §6 ID on every runqueue after every runqueue operation,
// INV-GROUP-QUEUED and INV-GROUP-SHARES after every operation of the hierarchy, while groups are
// created and destroyed, tasks move between them and cpu.weight changes; and THM-GROUP-SHARE
// on steady systems of CPU-bound tasks.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "reference/hierarchy_invariants.h"
#include "spec/error.h"
#include "spec/properties.h"
#include "tests/support/op_gen.h"

namespace vlag::reference {
namespace {

// A small random tree: group i (1-based) hangs under a random earlier group or the root.
std::vector<GroupId> make_tree(TaskGroups& groups, const std::vector<std::pair<int, int>>& shape) {
  std::vector<GroupId> ids{kRootGroup};
  for (size_t i = 0; i < shape.size(); ++i) {
    const GroupId parent = ids[static_cast<size_t>(shape[i].first) % ids.size()];
    const std::string base = parent == kRootGroup ? "" : groups.group(parent).path;
    ids.push_back(
        groups.add(base + "/g" + std::to_string(i + 1), cgroup_weight_to_shares(shape[i].second)));
  }
  return ids;
}

std::string first(const std::vector<Violation>& v) {
  return v.empty() ? "" : v.front().id + ": " + v.front().detail;
}

RC_GTEST_PROP(HierarchyProperties, PromisedInvariantsHoldAtEveryLevel, ()) {
  const std::string preset = *rc::gen::elementOf(testing::all_presets());
  const auto shape = *rc::gen::container<std::vector<std::pair<int, int>>>(
      *rc::gen::inRange<size_t>(1, 5),
      rc::gen::pair(rc::gen::inRange(0, 8), rc::gen::inRange(1, 10001)));
  const int ntasks = *rc::gen::inRange(1, 7);
  TaskGroups groups(1);
  std::vector<GroupId> ids = make_tree(groups, shape);
  Hierarchy h(make_params(preset_by_name(preset)), groups);
  std::string step_failure;
  h.set_step_hook([&](const Runqueue& before, const Op& op, const Runqueue& after) {
    if (step_failure.empty())
      if (const auto v = promised_only(check_step(before, op, after)); !v.empty())
        step_failure = "rq " + std::to_string(op.rq) + " " + to_string(op) + ": " + first(v);
  });
  for (int t = 1; t <= ntasks; ++t)
    h.create(t, *testing::gen_weight(), *testing::gen_slice(),
             ids[static_cast<size_t>(*rc::gen::inRange<size_t>(0, ids.size()))]);

  const auto ops = *rc::gen::container<std::vector<std::pair<Op, int>>>(
      rc::gen::pair(testing::gen_op(ntasks), rc::gen::inRange(0, 1000)));
  int accepted = 0, group_runs = 0, moved = 0, reweighted = 0, destroyed = 0;
  for (const auto& [o, extra] : ops) {
    h.clear_shares_updated();
    try {
      if (extra % 20 == 0 && ids.size() > 1) {  // cpu.weight of some group changes
        const GroupId g = ids[1 + static_cast<size_t>(extra / 20) % (ids.size() - 1)];
        groups.set_shares(g, cgroup_weight_to_shares(1 + extra * 10));
        h.shares_changed(g);
        ++reweighted;
      } else if (extra % 20 == 1 && ids.size() > 1) {  // a group is destroyed and another made
        const size_t at = 1 + static_cast<size_t>(extra / 20) % (ids.size() - 1);
        const GroupId g = ids[at];
        h.destroy_runqueue(g);
        groups.remove(g);
        ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(at));
        ids.push_back(groups.add("/n" + std::to_string(groups.size()), 1 + extra * 100));
        ++destroyed;
      } else if (o.kind == OpKind::Detach) {  // the task moves to another group
        h.move(o.se, ids[static_cast<size_t>(extra) % ids.size()]);
        ++moved;
      } else {
        h.apply(o);
      }
      ++accepted;
      for (GroupId g : h.runqueues())
        if (g != kRootGroup && h.runqueue(g).curr()) ++group_runs;
    } catch (const Error&) {
      // Rejected before any runqueue changed: the state still keeps every promise.
    }
    if (!step_failure.empty()) RC_FAIL(preset + ": " + step_failure);
    const auto state = promised_only(check_hierarchy_state(h));
    if (!state.empty()) RC_FAIL(preset + " after " + to_string(o) + ": " + first(state));
    const auto shares = check_group_shares(h);
    if (!shares.empty()) RC_FAIL(preset + " after " + to_string(o) + ": " + first(shares));
    const auto one_cpu = check_one_cpu_shares(h);
    if (!one_cpu.empty()) RC_FAIL(preset + " after " + to_string(o) + ": " + first(one_cpu));
  }
  RC_CLASSIFY(moved > 0, "a task moved between groups");
  RC_CLASSIFY(reweighted > 0, "cpu.weight changed");
  RC_CLASSIFY(destroyed > 0, "a group destroyed");
  RC_CLASSIFY(accepted >= 20, "20+ accepted operations");
  RC_CLASSIFY(group_runs > 0, "a group runqueue ran a task");
}

// One CPU, CPU-bound tasks from t = 0: each task's service over T runs over the run path's
// decisions at every tick.
std::map<TaskId, int64_t> steady_service(Hierarchy& h, int64_t T) {
  std::map<TaskId, int64_t> service;
  const int64_t tick = h.params().tick_ns();
  std::optional<TaskId> c = h.pick();
  for (int64_t t = 0; t < T; t += tick) {
    h.run(tick);
    if (c) service[*c] += tick;
    h.tick();
    if (h.need_resched()) c = h.pick();
  }
  return service;
}

// The ideal fraction f_k of SPEC.md §10.5: the product of the shares ratios on the path, then
// the weight ratio within the task's runqueue (every group here has tasks).
double ideal_fraction(const Hierarchy& h, TaskId t) {
  const TaskGroups& groups = h.groups();
  GroupId g = h.group_of(t);
  const Runqueue& own = h.runqueue(g);
  double f = static_cast<double>(own.entity(t).weight) / static_cast<double>(own.total_weight());
  for (; g != kRootGroup; g = groups.group(g).parent) {
    const Runqueue& parent = h.runqueue(groups.group(g).parent);
    f *= static_cast<double>(groups.group(g).shares) / static_cast<double>(parent.total_weight());
  }
  return f;
}

// THM-GROUP-SHARE: |s_k − f_k·T| ≤ (m + 1)·e, e = 2·max(b, TICK) + TICK, for the Linux presets.
RC_GTEST_PROP(HierarchyProperties, GroupSharesFollowWeightsAtEveryLevel, ()) {
  const std::string preset =
      *rc::gen::element<std::string>("linux-6.6", "linux-6.12", "linux-6.18");
  const int top = *rc::gen::inRange(1, 4);
  TaskGroups groups(1);
  Hierarchy h(make_params(preset_by_name(preset)), groups);
  std::vector<GroupId> leaves;
  for (int i = 0; i < top; ++i) {
    const GroupId g =
        groups.add("/t" + std::to_string(i), cgroup_weight_to_shares(*rc::gen::inRange(25, 401)));
    leaves.push_back(g);
    if (*rc::gen::inRange(0, 3) == 0)  // a second level below it
      leaves.push_back(groups.add("/t" + std::to_string(i) + "/s",
                                  cgroup_weight_to_shares(*rc::gen::inRange(25, 401))));
  }
  TaskId next = 1;
  for (GroupId g : leaves) {
    const int n = *rc::gen::inRange(1, 4);
    for (int i = 0; i < n; ++i, ++next) {
      h.create(next, nice_to_weight(*rc::gen::inRange(-5, 11)), 0, g);
      h.enqueue(next);
    }
  }
  const Params& p = h.params();
  const int64_t T = 2'000'000'000;
  const auto service = steady_service(h, T);
  const double e = static_cast<double>(2 * std::max(p.base_slice_ns(), p.tick_ns()) + p.tick_ns());
  for (TaskId t = 1; t < next; ++t) {
    const int levels = static_cast<int>(groups.ancestors(h.group_of(t)).size());
    const double want = ideal_fraction(h, t) * static_cast<double>(T);
    const double got = static_cast<double>(service.count(t) ? service.at(t) : 0);
    if (std::abs(got - want) > (levels + 1) * e)
      RC_FAIL(preset + ": " + ids::kThmGroupShare + ": task " + std::to_string(t) + " got " +
              std::to_string(got / 1e6) + " ms, ideal " + std::to_string(want / 1e6) + " ms");
  }
}

// The workload on the exact model: one hog in /a, three in /b, equal cpu.weight.
TEST(Hierarchy, OneHogAgainstThreeGetsHalfTheCpu) {
  TaskGroups groups(1);
  const GroupId a = groups.add("/a", cgroup_weight_to_shares(100));
  const GroupId b = groups.add("/b", cgroup_weight_to_shares(100));
  Hierarchy h(make_params(preset_by_name("linux-6.18")), groups);
  h.create(1, 1024, 0, a);
  for (TaskId t = 2; t <= 4; ++t) h.create(t, 1024, 0, b);
  for (TaskId t = 1; t <= 4; ++t) h.enqueue(t);
  const int64_t T = 10'000'000'000;
  const auto s = steady_service(h, T);
  EXPECT_NEAR(static_cast<double>(s.at(1)) / T, 0.5, 0.01);
  for (TaskId t = 2; t <= 4; ++t) EXPECT_NEAR(static_cast<double>(s.at(t)) / T, 1.0 / 6, 0.01);
  EXPECT_TRUE(promised_only(check_hierarchy_state(h)).empty());
}

// One CPU with task 1 queued in group /a of `shares`, for the worked examples below.
struct OneTaskInA {
  OneTaskInA(const char* preset, int64_t shares)
      : a(groups.add("/a", shares)), h(make_params(preset_by_name(preset)), groups) {
    h.create(1, 1024, 0, a);
    h.enqueue(1);
  }
  TaskGroups groups{1};
  GroupId a;
  Hierarchy h;
};

// INV-GROUP-QUEUED catches a group entity left queued on an empty runqueue.
TEST(Hierarchy, GroupEntityQueuedOnEmptyRunqueueIsFlagged) {
  OneTaskInA x("linux-6.6", 1024);
  Hierarchy& h = x.h;
  ASSERT_TRUE(check_hierarchy_state(h).empty());
  // The task's runqueue alone loses it, as a hierarchy that forgot to walk up would.
  const_cast<Runqueue&>(h.runqueue(x.a)).dequeue_entity(1, true);
  const auto v = check_hierarchy_state(h);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().id, ids::kInvGroupQueued);
}

// On one CPU a group entity weighs its group's shares, and follows a cpu.weight write.
TEST(Hierarchy, OneCpuGroupEntityWeighsItsShares) {
  OneTaskInA x("linux-6.12", cgroup_weight_to_shares(300));
  Hierarchy& h = x.h;
  const GroupId a = x.a;
  EXPECT_EQ(h.runqueue(kRootGroup).entity(group_entity_id(a)).weight, 3072);
  x.groups.set_shares(a, cgroup_weight_to_shares(50));
  h.clear_shares_updated();
  h.shares_changed(a);
  EXPECT_EQ(h.runqueue(kRootGroup).entity(group_entity_id(a)).weight, 512);
  EXPECT_TRUE(check_group_shares(h).empty());
  EXPECT_EQ(h.shares_updated().size(), 1u);
}

// INV-GROUP-SHARES catches a group entity whose weight the shares rule did not set.
TEST(Hierarchy, GroupEntityOffTheSharesRuleIsFlagged) {
  OneTaskInA x("linux-6.18", 1024);
  Hierarchy& h = x.h;
  const GroupId a = x.a;
  h.clear_shares_updated();
  h.shares_changed(a);
  ASSERT_TRUE(check_group_shares(h).empty());
  const_cast<Runqueue&>(h.runqueue(kRootGroup)).reweight_entity(group_entity_id(a), 999);
  const auto v = check_group_shares(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v.front().id, ids::kInvGroupShares);
}

// The one-CPU form judges every state: a cpu.weight write the group entity did not follow is
// flagged until the hierarchy applies it.
TEST(Hierarchy, CpuWeightWriteNotFollowedIsFlaggedOnOneCpu) {
  OneTaskInA x("linux-6.12", cgroup_weight_to_shares(100));
  Hierarchy& h = x.h;
  ASSERT_TRUE(check_one_cpu_shares(h).empty());
  x.groups.set_shares(x.a, cgroup_weight_to_shares(10000));
  const auto v = check_one_cpu_shares(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v.front().id, ids::kInvGroupShares);
  h.shares_changed(x.a);
  EXPECT_TRUE(check_one_cpu_shares(h).empty());
  // An empty group runqueue keeps its entity's weight (§10.3): not judged.
  h.dequeue(1, false);
  x.groups.set_shares(x.a, cgroup_weight_to_shares(1));
  EXPECT_TRUE(check_one_cpu_shares(h).empty());
}

TEST(TaskGroups, SharesRuleSplitsByLoadAndClamps) {
  TaskGroups groups(2);
  const GroupId a = groups.add("/a", 1024);
  groups.set_load(a, 0, 1024);
  groups.set_load(a, 1, 3072);
  EXPECT_EQ(groups.shares_on(a, 0), 256);
  EXPECT_EQ(groups.shares_on(a, 1), 768);
  groups.set_load(a, 0, 0);
  EXPECT_EQ(groups.shares_on(a, 0), 2);  // MIN_SHARES
  EXPECT_EQ(cgroup_weight_to_shares(1), 10);
  EXPECT_EQ(cgroup_weight_to_shares(10000), 102400);
  EXPECT_EQ(autogroup_shares(5), 335);
  EXPECT_THROW(groups.add("/x/y", 1024), Error);
  EXPECT_THROW(cgroup_weight_to_shares(0), Error);
}

}  // namespace
}  // namespace vlag::reference
