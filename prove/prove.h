// `vlag prove`: bounded model checking and k-induction of SPEC.md §6 over the symbolic model of
// SPEC.md §4. This header is the front that callers include, free of Z3: the options, the
// verdict and its figures (defined with the engine, smt/engine.h, which fills them), and `run`,
// which searches (smt/) and replays a counterexample through the exact reference (replay.h).
#pragma once

#include "smt/engine.h"

namespace vlag::prove {

using smt::Counterexample;
using smt::EntityValues;
using smt::InductionStep;
using smt::InvariantInfo;
using smt::invariants;
using smt::Mutation;
using smt::Options;
using smt::Progress;
using smt::promised_by;
using smt::Result;
using smt::StateValues;
using smt::validate;
using smt::Verdict;

/// smt::search, then a counterexample replayed through the exact reference: which step it flags
/// with the same ID, the values that show it, whether the preset promises the ID there.
/// `seconds` covers both.
Result run(const Options& o, const std::function<void(const Progress&)>& progress,
           std::atomic<bool>* stop);

}  // namespace vlag::prove
