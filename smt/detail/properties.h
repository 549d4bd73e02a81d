// SPEC.md §6 as Z3 predicates over one step σ —op→ σ': `bad` is true when the step violates the
// invariant in a way the preset promises not to (a preset that promises nothing about the ID is
// searched for any violation: those counterexamples are its documented behaviour). `lemma` is
// what k-induction assumes along with the invariant: the structural domain and the
// strengthening lemmas of INV-DEADLINE (positive requests, bounded relative deadlines of
// sleepers) and INV-PICK-ELIGIBLE (distinct insertion numbers in Q); BMC proves them jointly.
#pragma once

#include <z3++.h>

#include <string>

#include "smt/detail/step.h"

namespace vlag::smt::detail {

/// The step before → after under choice `ch` violates `id`. `steady`: the THM driver's step.
z3::expr bad(Model& m, const std::string& id, const SymState& before, const Choice& ch,
             const SymState& after);
/// Whether an operation of kind k can violate `id` at all (`bad` builds no term for it then):
/// a hierarchy's step judges each level's operations, most of which a step invariant ignores.
bool can_violate(const std::string& id, OpKind k);
/// State-only invariants can be judged on the initial state of an induction too.
bool is_state_invariant(const std::string& id);
z3::expr bad_state(Model& m, const std::string& id, const SymState& s);
z3::expr lemma(Model& m, const std::string& id, const SymState& s);
/// L-SEQ-DISTINCT: the entities in Q carry distinct insertion numbers.
z3::expr distinct_insertions(const SymState& s);

}  // namespace vlag::smt::detail
