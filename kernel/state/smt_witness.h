// A violation found on the kernel's own numbers (SPEC.md §6.4) as SMT-LIB2 assertions, in the
// form `vlag check` gives its witnesses (checker/witness.h, whose script writer and Z3 arbiter
// re-check them): the record's numbers as integer constants, the kernel's definitions relating
// them (V from the cfs_rq's sums with curr added, floored as avg_vruntime() floors it;
// eligibility without division, as vruntime_eligible() tests it), and the claim that the ID
// fails. Z3 answering sat confirms that the numbers violate it. Weights are the scaled-down ones
// the kernel sums (w >> 10), vruntimes the kernel's u64 values as integers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/witness.h"
#include "kernel/bpf/state_capture.h"
#include "kernel/state/arith.h"

namespace vlag::kernel::state {

using SmtWitness = checker::Witness;

/// A 128-bit integer as an exact number.
trace::Exact exact_of(__int128 x);

// At a pick: the pick's cfs_rq's sums with the pick added as curr.
SmtWitness pick_ineligible_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked);
SmtWitness pick_edf_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked,
                        const bpf::QueuedEntity& earlier);
SmtWitness kernel_sums_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked,
                           const std::vector<bpf::QueuedEntity>& tree);
SmtWitness delayed_pick_smt();
/// INV-S64-MARGIN: a product or sum the kernel keeps in s64, beyond it.
SmtWitness s64_smt(const char* what, __int128 a, __int128 b);
/// THM-LAG-BOUND-LINUX: entity `e` of the pick's cfs_rq outside ±(r + TICK), lag = w(V − v)/1024.
SmtWitness lag_bound_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked,
                         const bpf::QueuedEntity& e, int64_t tick, bool lower);

// Elsewhere.
SmtWitness deadline_smt(const bpf::QueuedEntity& e, uint64_t request, int64_t bound);
SmtWitness saved_lag_smt(const bpf::QueuedEntity& e, int64_t span, int64_t limit);
/// INV-DELAY: prev left delayed while eligible against `a`, its cfs_rq's sums at the dequeue.
SmtWitness became_delayed_smt(const Average& a, const bpf::QueuedEntity& e);
/// INV-PLACE-LAG: the wakee's lag after joining, (avg/load) − (v − v0) over `after`, is more than
/// 2 from `expected`; or its vlag is not the one its dequeue saved.
SmtWitness place_lag_smt(const Average& after, const bpf::QueuedEntity& e,
                         const trace::Exact& expected);
SmtWitness kept_vlag_smt(int64_t at_wakeup, int64_t saved);

}  // namespace vlag::kernel::state
