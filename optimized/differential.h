// The differential check between the optimized runqueue and the reference in Linux integer
// arithmetic: one operation applied to both must be accepted or rejected alike, report the same
// outcome, and leave bit-identical state. Shared by the property tests and the fuzzers.
#pragma once

#include <optional>
#include <string>

#include "optimized/runqueue.h"
#include "reference/runqueue.h"
#include "spec/ops.h"

namespace vlag::optimized {

/// The first difference in state (every entity field, curr, next buddy, protection, clock, V,
/// W, min_vruntime, seq, need_resched), or nullopt.
std::optional<std::string> state_difference(const reference::LinuxRunqueue& ref,
                                            const Runqueue& opt);

/// Applies op to both; the first difference in acceptance, outcome or state, or nullopt.
std::optional<std::string> differential_step(reference::LinuxRunqueue& ref, Runqueue& opt,
                                             const Op& op);

}  // namespace vlag::optimized
