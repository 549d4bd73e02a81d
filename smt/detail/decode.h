// What a Z3 model of an unrolling says, in the vocabulary of the rest of vlag: the schedule as
// spec operations (a counterexample, replayed by the reference), and a state's values as exact
// text (the failing step of an induction, shown to whoever writes the next lemma).
#pragma once

#include <z3++.h>

#include <string>
#include <vector>

#include "smt/detail/step.h"
#include "smt/engine.h"

namespace vlag::smt::detail {

/// The schedule from creation: create ops for s0's entities, the steady driver's joins when
/// `steady`, then one op per step (pick and run for each steady step).
std::vector<Op> decode(Numbers& num, const z3::model& m, const SymState& s0,
                       const std::vector<Choice>& steps, bool steady);

/// One step as text ("reweight 2 3121"; "pick; run 1000000" for a steady step).
std::string step_text(Numbers& num, const z3::model& m, const Choice& step, bool steady);

/// A state's values. V is recomputed from the entities' values (floored in linux64), not read
/// from the solver, which defines it only where a formula asked for it.
StateValues state_values(Numbers& num, const z3::model& m, const SymState& s);

}  // namespace vlag::smt::detail
