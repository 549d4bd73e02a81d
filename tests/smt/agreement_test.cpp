// The symbolic model of smt/ held against the reference step by step (smt/agreement.h): random
// valid operation sequences on three tasks under every preset and feature combination, exact
// and linux64, every field of the symbolic state compared (a fifth of the properties' cases,
// one in three with a pick by the next buddy), the kernel's rounding regressions,
// and a deliberately broken operation that the check must see.
#include "smt/agreement.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "reference/runqueue.h"
#include "spec/error.h"
#include "tests/support/op_gen.h"
#include "tests/support/property_scale.h"
#include "tests/support/property_share.h"
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
// `buddy`: after the start a queued task other than curr sleeps and wakes again while curr runs
// (not its first wakeup, so that under NEXT_BUDDY the decision makes it the buddy), then a pick.
template <class Rq>
std::vector<Op> model_ops(const Options& o, bool buddy) {
  std::vector<Op> ops;
  Rq rq(o.params);
  const auto add = [&](const Op& raw) {
    const auto op = in_model(o, raw);
    if (!op) return;
    ops.push_back(*op);
    try {
      rq.apply(*op);
    } catch (const Error&) {
    }
  };
  for (TaskId i = 1; i <= static_cast<TaskId>(o.tasks); ++i) {
    ops.push_back(
        {OpKind::Create, i, *rc::gen::elementOf(o.weights), *rc::gen::elementOf(o.slices)});
    rq.apply(ops.back());
  }
  // Every task woken and one picked first, so that each case starts from a full queue with a
  // running entity (protection, buddies and preemption need one).
  for (int i = 0; i < o.tasks; ++i)
    for (const Op& op : testing::resolve(rq, testing::Step{testing::StepKind::Wake})) add(op);
  add({OpKind::Pick});
  if (buddy) {
    std::vector<EntityId> others;
    for (const auto& e : rq.entities())
      if (e.status == Status::Queued && rq.curr() != e.id) others.push_back(e.id);
    if (!others.empty()) {
      const EntityId y = *rc::gen::elementOf(others);
      add({OpKind::Run, 0, *rc::gen::inRange<int64_t>(1, o.params.tick_ns() + 1)});
      add({OpKind::Dequeue, y, 0, 0, kDequeueSleep});
      add({OpKind::Enqueue, y});
      add({OpKind::WakeupPreempt, y});
      add({OpKind::Pick});
    }
  }
  // Then steps of any kind: 1-2 in CI, more at a larger VLAG_PROPERTY_SCALE.
  const auto tail = *rc::gen::container<std::vector<testing::Step>>(
      *rc::gen::inRange<size_t>(1, 2 * static_cast<size_t>(testing::property_scale()) + 1),
      testing::gen_step(static_cast<int>(o.tasks)));
  for (const testing::Step& step : tail)
    for (const Op& op : testing::resolve(rq, step)) add(op);
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

// One case in three is a buddy case: NEXT_BUDDY and PICK_BUDDY on top of the flags drawn, and
// the sleep and second wakeup of model_ops, so that picks by the next buddy are in every run.
struct Flags {
  std::string features;
  bool buddy = false;
};

rc::Gen<Flags> gen_flags(const std::string& preset) {
  return rc::gen::apply(
      [](std::string features, bool buddy) {
        if (buddy) features += (features.empty() ? "" : ",") + std::string("NEXT_BUDDY,PICK_BUDDY");
        return Flags{std::move(features), buddy};
      },
      testing::gen_features(preset), rc::gen::weightedElement<bool>({{2, false}, {1, true}}));
}

// The classification of the mix.
template <class Rq>
void classify(const Options& o, const std::vector<Op>& ops, const Flags& flags) {
  const Reached r = reached<Rq>(o, ops);
  RC_TAG(flags.buddy              ? "buddy case"
         : flags.features.empty() ? "preset's own flags"
                                  : "flags flipped");
  RC_CLASSIFY(r.buddy, "a next buddy set");
  RC_CLASSIFY(r.by_buddy, "a pick by the next buddy");
  RC_CLASSIFY(r.prot, "a protection window");
  RC_CLASSIFY(r.delayed, "a delayed entity");
}

// One case of the agreement on three tasks under `preset` with any feature flags: the weights
// given, slices {base, 0.3 ms, 3 ms}.
template <class Rq>
void agreement_case(const std::string& preset, Arith arith, std::vector<int64_t> weights) {
  const Flags flags = *gen_flags(preset);
  Options o = model_options(preset, 3, flags.features);
  o.arith = arith;
  o.weights = std::move(weights);
  o.slices = {0, 300'000, 3'000'000};
  const std::vector<Op> ops = model_ops<Rq>(o, flags.buddy);
  classify<Rq>(o, ops, flags);
  const auto d = disagreement(o, ops);
  if (d) RC_FAIL(preset + " [" + flags.features + "]: " + *d + " in " + listing(ops));
}

// Every field of the symbolic state (SPEC.md §2: the entities, curr, the protection, the next
// buddy, V_∅ and the ghost clock) against the reference, after every operation: three tasks,
// any preset with any feature flags on or off.
TEST(ProveProperties, SymbolicStepAgreesWithReference) {
  testing::check_share([] {
    agreement_case<reference::Runqueue>(*rc::gen::elementOf(testing::all_presets()), Arith::Exact,
                                        {1024, 3121, 335});
  });
}

// The linux64 encoding against reference::LinuxRunqueue: the kernel's fixed point, floors and
// truncations, step for step, under each Linux preset with any feature flags (paper presets
// are exact-only).
TEST(ProveProperties, Linux64StepAgreesWithLinuxReference) {
  testing::check_share([] {
    agreement_case<reference::LinuxRunqueue>(*rc::gen::elementOf(presets_of(PresetFamily::Linux)),
                                             Arith::Linux64, {1024, 3121, 335, 15});
  });
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
