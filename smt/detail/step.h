// SPEC.md §4 as a transition relation: one step chooses an operation, its target and arguments
// (the Choice), requires the operation's precondition and relates σ to σ'. Each operation is
// written after the reference function of the same name (reference/runqueue.cpp), so that the
// property test can hold the two against each other.
#pragma once

#include <z3++.h>

#include <string>

#include "smt/detail/state.h"
#include "smt/engine.h"
#include "spec/ops.h"

namespace vlag::smt::detail {

/// The operations a step may choose: OpKind's Enqueue … WakeupPreempt (spec/ops.h), a
/// contiguous range. Create and Exit need no step (a late task is one whose first enqueue comes
/// late, an exiting one never wakes again), Detach and Attach involve a second runqueue.
inline constexpr OpKind kFirstStep = OpKind::Enqueue, kLastStep = OpKind::WakeupPreempt;
inline constexpr int kStepCount = static_cast<int>(kLastStep) - static_cast<int>(kFirstStep) + 1;
inline constexpr bool is_step(OpKind k) { return k >= kFirstStep && k <= kLastStep; }
/// The value Choice::kind takes for an operation, 0 … kStepCount − 1, and back.
inline constexpr int step_code(OpKind k) {
  return static_cast<int>(k) - static_cast<int>(kFirstStep);
}
inline constexpr OpKind step_op(int code) {
  return static_cast<OpKind>(code + static_cast<int>(kFirstStep));
}

struct Choice {
  z3::expr kind;    // small, the step_code of an operation
  z3::expr target;  // small, entity id 1..N
  z3::expr delta;   // Num, ns (Run)
  z3::expr weight;  // small (Reweight)
  z3::expr slice;   // Num, 0 = base slice (SetSlice)
  z3::expr sleep;   // Bool (Dequeue)
};

class Model {
 public:
  /// `name` keeps the constants it makes apart from another model's in the same solver.
  Model(Numbers& num, const Options& o, std::string name = "m");

  Numbers& num() { return num_; }
  const Options& options() const { return o_; }

  Choice fresh_choice(const std::string& prefix);
  /// Ranges of a choice: kind, target, δ ∈ [0, max δ] integral, weight and slice in their sets.
  z3::expr choice_domain(const Choice& c);
  /// Constraints of the creation: every entity new and sleeping, weight and slice in their sets.
  z3::expr initial(const SymState& s);
  /// What every reachable state satisfies structurally (types, ranges, curr ∈ Q).
  z3::expr domain(const SymState& s);

  /// σ → σ' for the chosen operation, precondition included.
  z3::expr transition(const SymState& s, const Choice& c, const SymState& next);
  /// The steady-system driver of SPEC.md §6 (THM-LAG-BOUND): a decision (pick), then the picked
  /// entity runs: paper: min(q, its remaining request) (§4.5); Linux: 0 < δ ≤ max δ (a tick by
  /// default), after which the next decision is taken (a tick or any update_curr).
  z3::expr steady_transition(const SymState& s, const Choice& c, const SymState& next);

  // The operations (SPEC.md §4), each on a concrete target index i (0-based).
  SymState enqueue_entity(const SymState& s, int i);
  SymState dequeue_entity(const SymState& s, int i, const z3::expr& sleep);
  SymState pick_next_entity(const SymState& s);
  SymState update_curr(const SymState& s, const z3::expr& delta);
  SymState reweight_entity(const SymState& s, int i, const z3::expr& w);
  SymState set_slice(const SymState& s, int i, const z3::expr& r);
  SymState yield_task(const SymState& s);
  /// §4.6 on the woken entity i: slice protection and the next buddy move (the preemption
  /// itself is a flag for the caller).
  SymState wakeup_preempt(const SymState& s, int i);
  /// §4.4: the entity id pick_eevdf(protect) returns (0: none).
  z3::expr pick_eevdf(const SymState& s, bool protect);
  /// §4.5: curr is protected.
  z3::expr protect_slice(const SymState& s);
  z3::expr entity_lag(const SymState& s, int i, const z3::expr& V);
  z3::expr clamp_limit(const SymState& s, const SymEntity& x);
  /// §10.2 put_prev_entity: curr returns to the tree (a hierarchy's level that stops running).
  SymState put_prev_entity(const SymState& s);
  /// The side conditions the terms built since the last call rely on (the quotients, the
  /// unrolled pick's materialized states): a relation over those terms must include them.
  std::vector<z3::expr> take_definitions();

  z3::expr base_slice() { return num_.lit(base_); }
  z3::expr tick() { return num_.lit(tick_); }

 private:
  z3::expr saved_lag(const SymState& s, int i, const z3::expr& V);
  SymState place_entity(const SymState& s, int i, bool initial_known, const z3::expr& initial);
  SymState leave(const SymState& s, int i);
  SymState join(const SymState& s, int i);
  SymState insert(const SymState& s, int i);
  SymState set_next_entity(const SymState& s, int i);
  z3::expr clear_buddy(const SymState& s, int i);
  SymState finish_delayed_dequeue(const SymState& s, int i);
  SymState set_protect_slice(const SymState& s, int i);
  SymState update_deadline(const SymState& s, int i);
  SymState cancel_protect_slice(const SymState& s);
  SymState update_protect_slice(const SymState& s);
  /// Copies the terms of s into fresh constants tied to them: keeps the unrolled pick small.
  SymState materialize(const SymState& s, z3::expr_vector& defs);

  Numbers& num_;
  const Options& o_;
  const Preset& p_;
  int64_t tick_, base_, base_norm_;
  int64_t max_delta_;
  std::string name_;
  int materialized_ = 0;
  std::vector<z3::expr> extra_defs_;
};

}  // namespace vlag::smt::detail
