// The symbolic hierarchy of `vlag prove --groups` (smt/detail/group_system.cpp) held against the
// reference hierarchy step by step (smt/agreement.h group_disagreement): random schedules on two
// groups of one and two tasks under every preset — wakeups, sleeps with and without SLEEP, picks
// down from the root, runs and ticks charging both levels, yields, wakeup decisions on the
// first common level, task reweights and slices, cpu.weight writes of a group — every field
// of every runqueue compared after each operation; and a broken walk-up the check must see.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/hierarchy.h"
#include "smt/agreement.h"
#include "tests/support/op_gen.h"
#include "tests/support/property_scale.h"
#include "tests/support/property_share.h"

namespace vlag::smt {
namespace {

Options group_options(const std::string& preset) {
  Options o;
  o.params = make_params(preset_by_name(preset));
  o.groups = {1, 2};
  o.tasks = 3;
  o.weights = {1024, 3121, 335};
  o.group_weights = {1024, 3121};
  o.slices = {0, 300'000, 3'000'000};
  return o;
}

// Creation (the groups, then tasks 1 in group 1, 2 and 3 in group 2), every task woken, a pick,
// then operations of any kind (invalid ones included: the model's guard and the reference
// both refuse them), weighted towards those that fill, drain and run the queues.
std::vector<Op> group_ops(const Options& o) {
  std::vector<Op> ops;
  for (reference::GroupId g = 1; g <= 2; ++g)
    ops.push_back(
        {OpKind::Create, reference::group_entity_id(g), *rc::gen::elementOf(o.group_weights)});
  for (TaskId t = 1; t <= 3; ++t)
    ops.push_back({OpKind::Create, t, *rc::gen::elementOf(o.weights), *rc::gen::elementOf(o.slices),
                   0, t == 1 ? 1 : 2});
  for (TaskId t = 1; t <= 3; ++t) ops.push_back({OpKind::Enqueue, t});
  ops.push_back({OpKind::Pick});
  const auto n =
      *rc::gen::inRange<size_t>(4, 12 * static_cast<size_t>(testing::property_scale()) + 5);
  for (size_t k = 0; k < n; ++k) {
    const TaskId t = *rc::gen::inRange<TaskId>(1, 4);
    switch (*rc::gen::inRange(0, 12)) {
      case 0:
      case 1:
        ops.push_back({OpKind::Enqueue, t});
        break;
      case 2:
        ops.push_back({OpKind::Dequeue, t, 0, 0, *rc::gen::element(0u, kDequeueSleep)});
        break;
      case 3:
      case 4:
        ops.push_back({OpKind::Pick});
        break;
      case 5:
      case 6:
        ops.push_back({OpKind::Run, 0, *rc::gen::inRange<int64_t>(0, o.params.tick_ns() + 1)});
        break;
      case 7:
        ops.push_back({OpKind::Tick});
        break;
      case 8:
        ops.push_back({OpKind::Reweight, t, *rc::gen::elementOf(o.weights)});
        break;
      case 9:
        ops.push_back({OpKind::Reweight, reference::group_entity_id(*rc::gen::inRange(1, 3)),
                       *rc::gen::elementOf(o.group_weights)});
        break;
      case 10:
        ops.push_back(*rc::gen::element(Op{OpKind::SetSlice, t, *rc::gen::elementOf(o.slices)},
                                        Op{OpKind::Yield}));
        break;
      default:
        ops.push_back({OpKind::WakeupPreempt, t});
        break;
    }
  }
  return ops;
}

std::string listing(const std::vector<Op>& ops) {
  std::string s;
  for (const Op& op : ops) s += to_string(op) + "; ";
  return s;
}

// A hierarchy's step is four times dearer than one runqueue's: a twentieth of the budget.
constexpr int kHierarchyShare = 20;

TEST(ProveProperties, SymbolicHierarchyAgreesWithReference) {
  testing::check_share(
      [] {
        const Options o = group_options(*rc::gen::elementOf(testing::all_presets()));
        const std::vector<Op> ops = group_ops(o);
        const auto d = group_disagreement(o, ops);
        if (d) RC_FAIL(o.params.preset.name + ": " + *d + " in " + listing(ops));
      },
      kHierarchyShare);
}

// The walk-up that dequeues a group entity with its runqueue's last task, left out: the check
// must see the group entity still queued on the root.
TEST(Prove, GroupAgreementSeesABrokenWalkUp) {
  Options o = group_options("linux-6.6");
  const std::vector<Op> ops = {{OpKind::Create, reference::group_entity_id(1), 1024},
                               {OpKind::Create, reference::group_entity_id(2), 1024},
                               {OpKind::Create, 1, 1024, 0, 0, 1},
                               {OpKind::Create, 2, 1024, 0, 0, 2},
                               {OpKind::Create, 3, 1024, 0, 0, 2},
                               {OpKind::Enqueue, 1},
                               {OpKind::Dequeue, 1, 0, 0, kDequeueSleep}};
  EXPECT_FALSE(group_disagreement(o, ops).has_value());
  o.mutation = Mutation::NoGroupDequeue;
  const auto d = group_disagreement(o, ops);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("root: entity"), std::string::npos) << *d;
}

}  // namespace
}  // namespace vlag::smt
