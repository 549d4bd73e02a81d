// The symbolic model of smt/ held against the reference step by step (smt/agreement.h): random
// valid operation sequences on three tasks under every preset and feature combination, exact
// and linux64, every field of the symbolic state compared, the kernel's rounding regressions,
// and a deliberately broken operation that the check must see.
#include "smt/agreement.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "reference/runqueue.h"
#include "spec/error.h"
#include "tests/support/op_gen.h"
#include "tests/support/step_gen.h"

namespace vlag::smt {
namespace {

// `tasks` tasks under `preset` with the feature overrides `features`, with the default weights
// and slices unless a test sets its own.
Options model_options(const std::string& preset, int tasks = 2, const std::string& features = "") {
  Options o;
  Preset p = preset_by_name(preset);
  apply_feature_overrides(p, features);
  o.params = make_params(p);
  o.tasks = tasks;
  return o;
}

// A step's operation brought into the model's vocabulary and value sets: migration is outside
// it, weights and slices come from the model's sets, runs last at most its largest δ (a tick).
std::optional<Op> in_model(const Options& o, Op op) {
  const auto pick = [](const std::vector<int64_t>& set, int64_t a) {
    return set[static_cast<size_t>(a < 0 ? -a : a) % set.size()];
  };
  switch (op.kind) {
    case OpKind::Create:
    case OpKind::Exit:
    case OpKind::Detach:
    case OpKind::Attach:
      return std::nullopt;
    case OpKind::Reweight:
      op.a = pick(o.weights, op.a);
      break;
    case OpKind::SetSlice:
      op.a = pick(o.slices, op.a);
      break;
    case OpKind::Run:
      op.a = std::min<int64_t>(op.a, o.params.tick_ns());
      break;
    default:
      break;
  }
  return op;
}

// Operations on o.tasks tasks, restricted to the model's vocabulary and its value sets: the
// tasks created, then valid, state-rich steps (tests/support/step_gen.h) resolved on a
// reference runqueue as they are generated, so that queues fill and drain, the next buddy and
// the protection come and go; raw operations, invalid ones included, stay in the mix.
template <class Rq>
std::vector<Op> model_ops(const Options& o) {
  std::vector<Op> ops;
  Rq rq(o.params);
  for (TaskId i = 1; i <= static_cast<TaskId>(o.tasks); ++i) {
    ops.push_back(
        {OpKind::Create, i, *rc::gen::elementOf(o.weights), *rc::gen::elementOf(o.slices)});
    rq.apply(ops.back());
  }
  // Every task woken and one picked first, so that each case starts from a full queue with a
  // running entity (protection, buddies and preemption need one), then 1-4 steps of any kind.
  std::vector<testing::Step> steps(static_cast<size_t>(o.tasks),
                                   testing::Step{testing::StepKind::Wake});
  steps.push_back(testing::Step{testing::StepKind::Pick});
  const auto tail = *rc::gen::container<std::vector<testing::Step>>(
      *rc::gen::inRange<size_t>(1, 5), testing::gen_step(static_cast<int>(o.tasks)));
  steps.insert(steps.end(), tail.begin(), tail.end());
  for (const testing::Step& step : steps)
    for (const Op& raw : testing::resolve(rq, step)) {
      const auto op = in_model(o, raw);
      if (!op) continue;
      ops.push_back(*op);
      try {
        rq.apply(*op);
      } catch (const Error&) {
      }
    }
  return ops;
}

std::string listing(const std::vector<Op>& ops) {
  std::string s;
  for (const Op& op : ops) s += to_string(op) + "; ";
  return s;
}

// What a sequence reached on the reference: a next buddy, a pick by it, a protection window, a
// delayed entity.
struct Reached {
  bool buddy = false, by_buddy = false, prot = false, delayed = false;
};

template <class Rq>
Reached reached(const Options& o, const std::vector<Op>& ops) {
  Rq rq(o.params);
  Reached r;
  for (const Op& op : ops) {
    try {
      rq.apply(op);
    } catch (const Error&) {
      continue;
    }
    r.buddy |= rq.next_buddy().has_value();
    r.prot |= rq.protection().has_value();
    r.by_buddy |= op.kind == OpKind::Pick && rq.last_outcome().by_buddy;
    for (const auto& e : rq.entities()) r.delayed |= e.status == Status::Delayed;
  }
  return r;
}

// The classification of the mix.
template <class Rq>
void classify(const Options& o, const std::vector<Op>& ops, const std::string& features) {
  const Reached r = reached<Rq>(o, ops);
  RC_TAG(features.empty() ? "preset's own flags" : "flags flipped");
  RC_CLASSIFY(r.buddy, "a next buddy set");
  RC_CLASSIFY(r.by_buddy, "a pick by the next buddy");
  RC_CLASSIFY(r.prot, "a protection window");
  RC_CLASSIFY(r.delayed, "a delayed entity");
}

// Every field of the symbolic state (SPEC.md §2: the entities, curr, the protection, the next
// buddy, V_∅ and the ghost clock) against the reference, after every operation: three tasks,
// any preset with any feature flags on or off.
RC_GTEST_PROP(ProveProperties, SymbolicStepAgreesWithReference, ()) {
  const std::string preset = *rc::gen::elementOf(testing::all_presets());
  const std::string features = *testing::gen_features(preset);
  Options o = model_options(preset, 3, features);
  o.weights = {1024, 3121, 335};
  o.slices = {0, 300'000, 3'000'000};
  const std::vector<Op> ops = model_ops<reference::Runqueue>(o);
  classify<reference::Runqueue>(o, ops, features);
  const auto d = disagreement(o, ops);
  if (d) RC_FAIL(preset + " [" + features + "]: " + *d + " in " + listing(ops));
}

// The linux64 encoding against reference::LinuxRunqueue: the kernel's fixed point, floors and
// truncations, step for step, under each Linux preset with any feature flags (paper presets
// are exact-only).
RC_GTEST_PROP(ProveProperties, Linux64StepAgreesWithLinuxReference, ()) {
  const std::string preset = *rc::gen::elementOf(presets_of(PresetFamily::Linux));
  const std::string features = *testing::gen_features(preset);
  Options o = model_options(preset, 3, features);
  o.arith = Arith::Linux64;
  o.weights = {1024, 3121, 335, 15};
  o.slices = {0, 300'000, 3'000'000};
  const std::vector<Op> ops = model_ops<reference::LinuxRunqueue>(o);
  classify<reference::LinuxRunqueue>(o, ops, features);
  const auto d = disagreement(o, ops);
  if (d) RC_FAIL(preset + " [" + features + "]: " + *d + " in " + listing(ops));
}

// Regressions of the linux64 agreement. calc_delta_fair takes inv_weight from
// sched_prio_to_wmult, which rounds 2^32/w to nearest: for w = 335 it is 12820798, one more than
// the floor, and a 4 ms run then advances v by 12226865, not 12226864.
TEST(Prove, Linux64UsesTheKernelsInverseWeightTable) {
  Options o = model_options("linux-6.12");
  o.arith = Arith::Linux64;
  o.weights = {1024, 335};
  const std::vector<Op> ops = {{OpKind::Create, 1, 335},
                               {OpKind::Create, 2, 1024},
                               {OpKind::Enqueue, 1},
                               {OpKind::Pick},
                               {OpKind::Run, 0, 4'000'000}};
  EXPECT_EQ(disagreement(o, ops), std::nullopt);
}

// The ghost request ρ of a placed entity is vs·w/N truncated (the reference's mul_div), not the
// slice it was meant to be: with w = 15 the rounded virtual slice stands for 149999 ns of a
// halved 300 µs request (PLACE_DEADLINE_INITIAL).
TEST(Prove, Linux64RequestIsTheTruncatedVirtualSlice) {
  Options o = model_options("linux-6.12");
  o.arith = Arith::Linux64;
  o.weights = {1024, 15};
  o.slices = {0, 300'000};
  const std::vector<Op> ops = {
      {OpKind::Create, 1, 15, 300'000}, {OpKind::Create, 2, 1024}, {OpKind::Enqueue, 1}};
  EXPECT_EQ(disagreement(o, ops), std::nullopt);
}

// Under NEXT_BUDDY the wakee of a second wakeup (not a new task's first) becomes the next buddy
// and, eligible, is picked under PICK_BUDDY ahead of an earlier deadline; the model agrees on
// the buddy, on the pick and on the protection the pick arms, in both arithmetics.
TEST(Prove, NextBuddyAgreesWithReference) {
  for (const Arith arith : {Arith::Exact, Arith::Linux64}) {
    Options o = model_options("linux-6.18", 3, "NEXT_BUDDY");
    o.arith = arith;
    o.weights = {1024, 3121};
    o.slices = {0, 300'000};
    const std::vector<Op> ops = {{OpKind::Create, 1, 1024},
                                 {OpKind::Create, 2, 1024},
                                 {OpKind::Create, 3, 3121, 300'000},
                                 {OpKind::Enqueue, 1},
                                 {OpKind::Enqueue, 2},
                                 {OpKind::Pick},
                                 {OpKind::Enqueue, 3},
                                 {OpKind::Run, 0, 1'000'000},
                                 {OpKind::Dequeue, 2, 0, 0, kDequeueSleep},
                                 {OpKind::Run, 0, 1'000'000},
                                 {OpKind::Enqueue, 2},
                                 {OpKind::WakeupPreempt, 2},
                                 {OpKind::Pick},
                                 {OpKind::Run, 0, 500'000},
                                 {OpKind::Pick}};
    const Reached r = reached<reference::Runqueue>(o, ops);
    EXPECT_TRUE(r.buddy);
    EXPECT_TRUE(r.by_buddy);
    EXPECT_EQ(disagreement(o, ops), std::nullopt);
  }
}

// The agreement check is not vacuous: the model with the inflation dropped differs from the
// reference on the wakeup that restores a saved lag into a non-empty queue.
TEST(Prove, AgreementSeesABrokenOperation) {
  Options o = model_options("linux-6.6");
  const std::vector<Op> ops = {{OpKind::Create, 1, 1024},
                               {OpKind::Create, 2, 3121},
                               {OpKind::Enqueue, 1},
                               {OpKind::Enqueue, 2},
                               {OpKind::Pick},
                               {OpKind::Run, 0, 1'000'000},
                               {OpKind::Dequeue, 1, 0, 0, kDequeueSleep},
                               {OpKind::Enqueue, 1}};
  EXPECT_EQ(disagreement(o, ops), std::nullopt);
  o.mutation = Mutation::NoInflation;
  const auto d = disagreement(o, ops);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("enqueue 1"), std::string::npos) << *d;
}

}  // namespace
}  // namespace vlag::smt
