// SPEC.md §2 as Z3 terms: the state σ of N entities (ids 1..N) and the runqueue around them, in
// the Numbers encoding. Entity fields follow reference::Entity; the running entity is an index
// (0 = ⊥). Operations build successor states as terms (step.h); `fresh` names a state of free
// constants, and `domain` states what every reachable state satisfies structurally.
#pragma once

#include <z3++.h>

#include <string>
#include <vector>

#include "smt/detail/arith.h"

namespace vlag::smt::detail {

inline constexpr int kSleeping = 0, kQueued = 1, kDelayed = 2;

struct SymEntity {
  z3::expr w;       // small, a value of the weight set
  z3::expr r;       // Num, ns
  z3::expr custom;  // Bool
  z3::expr v, d, rho, vl;
  z3::expr rel, cut, is_new;  // Bool
  z3::expr st;                // small: kSleeping, kQueued, kDelayed
  z3::expr seq;               // small
};

struct SymState {
  std::vector<SymEntity>
      e;              // index i ↔ entity id i + 1 (each a task's entity: one runqueue, no groups)
  z3::expr curr;      // small, 0 = ⊥, else the entity id
  z3::expr prot;      // Num (§4.5)
  z3::expr has_prot;  // Bool
  z3::expr v_empty, fluid;  // Num: V_∅ and the ghost V_f (§3)
  z3::expr seq_ctr;         // small
  z3::expr next;            // small, the next buddy (§4.6 NEXT_BUDDY), 0 = none
  z3::expr last_initial;    // Bool: the last enqueue was a new entity's first (no buddy then)

  int n() const { return static_cast<int>(e.size()); }
};

/// A state of fresh constants named `prefix`…
SymState fresh_state(Numbers& num, int n, const std::string& prefix);

/// Field-wise equality of two states.
z3::expr equal(const SymState& a, const SymState& b);
/// Field-wise if-then-else.
SymState select(const z3::expr& c, const SymState& a, const SymState& b);

z3::expr queued(const SymEntity& x);  // in Q: queued or delayed
WeightSum queue_weights(const SymState& s);
z3::expr queue_nonempty(const SymState& s);
/// V (§2): the weighted average over Q, floored in linux64; V_∅ for an empty Q.
z3::expr avg_vruntime(Numbers& num, const SymState& s);
/// eligible(i) ⇔ Σ_{j∈Q} w_j·(v_j − v_i) ≥ 0: Linux's division-free form (§2).
z3::expr eligible(Numbers& num, const SymState& s, int i);
/// minslice over Q (§2), with `none` when Q is empty.
z3::expr min_slice(Numbers& num, const SymState& s, const z3::expr& none);

}  // namespace vlag::smt::detail
