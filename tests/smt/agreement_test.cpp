// The symbolic model of smt/ held against the reference step by step (smt/agreement.h): random
// operation sequences under every preset, exact and linux64, the kernel's rounding regressions,
// and a deliberately broken operation that the check must see.
#include "smt/agreement.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "tests/support/op_gen.h"

namespace vlag::smt {
namespace {

// Two tasks under `preset`, with the default weights and slices unless a test sets its own.
Options model_options(const std::string& preset) {
  Options o;
  o.params = make_params(preset_by_name(preset));
  o.tasks = 2;
  return o;
}

// Random operations on two tasks, restricted to the model's vocabulary and its value sets.
std::vector<Op> model_ops(const Options& o) {
  std::vector<Op> ops;
  for (TaskId i = 1; i <= 2; ++i)
    ops.push_back(
        {OpKind::Create, i, *rc::gen::elementOf(o.weights), *rc::gen::elementOf(o.slices)});
  const auto n = *rc::gen::inRange(1, 16);
  for (int k = 0; k < n; ++k) {
    Op op = *testing::gen_op(2);
    if (op.kind == OpKind::Detach) op = Op{OpKind::Pick};  // migration is outside the model
    if (op.kind == OpKind::Reweight) op.a = *rc::gen::elementOf(o.weights);
    if (op.kind == OpKind::SetSlice) op.a = *rc::gen::elementOf(o.slices);
    if (op.kind == OpKind::Run) op.a = std::min<int64_t>(op.a, o.params.tick_ns());
    ops.push_back(op);
  }
  return ops;
}

std::string listing(const std::vector<Op>& ops) {
  std::string s;
  for (const Op& op : ops) s += to_string(op) + "; ";
  return s;
}

RC_GTEST_PROP(ProveProperties, SymbolicStepAgreesWithReference, ()) {
  const std::string preset = *rc::gen::elementOf(testing::all_presets());
  Options o = model_options(preset);
  o.weights = {1024, 3121, 335};
  o.slices = {0, 300'000, 3'000'000};
  const auto d = disagreement(o, model_ops(o));
  if (d) RC_FAIL(preset + ": " + *d);
}

// The linux64 encoding against reference::LinuxRunqueue: the kernel's fixed point, floors and
// truncations, step for step, under each Linux preset (paper presets are exact-only).
RC_GTEST_PROP(ProveProperties, Linux64StepAgreesWithLinuxReference, ()) {
  const std::string preset = *rc::gen::elementOf(presets_of(PresetFamily::Linux));
  Options o = model_options(preset);
  o.arith = Arith::Linux64;
  o.weights = {1024, 3121, 335, 15};
  o.slices = {0, 300'000, 3'000'000};
  const std::vector<Op> ops = model_ops(o);
  const auto d = disagreement(o, ops);
  if (d) RC_FAIL(preset + ": " + *d + " in " + listing(ops));
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
