// The invariants and theorem bounds of SPEC.md §6, each stated once over the read-only state of
// rules/state.h, in exact arithmetic. The reference (reference/invariants.cpp) and the checker
// (checker/decisions.cpp, checker/state_rules.cpp) call them and keep what is theirs: when a
// rule is judged, the message it prints, the Linux-arithmetic tolerances of SPEC.md §7.3 (passed
// in as `tolerance` or `slack`: 0 means exact), the SMT-LIB witness (from the values a rule
// returns), and whether the preset promises it (spec/properties.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "rules/state.h"
#include "spec/weights.h"

namespace vlag::rules {

/// vdelta(δ, w) = δ·N/w exactly (SPEC.md §1).
Exact exact_vdelta(int64_t delta_ns, int64_t weight);
/// The clamp limit of a saved lag, vdelta(L, w) with L = max(2r, TICK) or, under MaxSlice, the
/// largest slice queued (`queue_max_slice`, the entity's own r counted) + TICK (SPEC.md §4.7).
Exact lag_limit(const Params& p, int64_t slice, int64_t queue_max_slice, int64_t weight);
/// The clamp cuts `lag` (V − v) of an entity with this slice and weight (§4.7, §4.8).
bool clamp_cuts(const Params& p, int64_t slice, int64_t queue_max_slice, int64_t weight,
                const Exact& lag);
/// |got − want| < tolerance; got = want when the tolerance is 0 (exact arithmetic).
bool within(const Exact& got, const Exact& want, const Exact& tolerance);

/// (d − v)·w/N: the real time left in the entity's current request, ns (SPEC.md §2).
template <EntityState E>
Exact remaining_request(const E& e) {
  Exact rest =
      (e.deadline - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(kNice0Weight);
  rest.canonicalize();
  return rest;
}

// ---------------------------------------------------------------------------------------------
// State invariants

/// INV-LAG-SUM: Σ_{i∈Q} w_i·(V_ref − v_i), which is 0 when V_ref is the weighted average.
template <QueueState S>
Exact lag_sum(const S& s, const Exact& V_ref) {
  Exact sum = 0;
  s.for_each_queued([&](const auto& e) {
    sum += (V_ref - e.vruntime) * static_cast<long>(e.weight);
    return true;
  });
  return sum;
}

/// The largest slice over Q (0 when empty): the span of the MaxSlice clamp, from the state alone.
template <QueueState S>
int64_t max_queued_slice(const S& s) {
  int64_t m = 0;
  s.for_each_queued([&](const auto& e) {
    m = std::max<int64_t>(m, e.slice);
    return true;
  });
  return m;
}

/// INV-ELIGIBLE-EXISTS: Q = ∅ or some queued entity is eligible.
template <QueueState S>
bool some_eligible(const S& s) {
  bool empty = true, found = false;
  s.for_each_queued([&](const auto& e) {
    empty = false;
    found = s.eligible(e);
    return !found;
  });
  return empty || found;
}

/// INV-DEADLINE: 0 < rest ≤ ρ; with Linux arithmetic's slack s (§7.3), −s < rest < ρ + s.
bool deadline_holds(const Exact& rest, const Exact& request, const Exact& slack);

/// INV-KERNEL-SUMS: the sums a Linux runqueue (6.6–6.18) keeps, computed from its entities
/// relative to its reference point v0: Σ w_i and Σ w_i·(v_i − v0) over its tree, Q \ {curr}
/// (set_next_entity takes curr out of the tree and the sums), and the term of curr that
/// avg_vruntime adds to them.
struct KernelSums {
  int64_t sum_w = 0;
  Exact sum_wv = 0;
  int64_t curr_w = 0;
  Exact curr_wv = 0;
};
template <QueueState S>
KernelSums kernel_sums(const S& s, const Exact& v0) {
  KernelSums k;
  const std::optional<EntityId> curr = s.curr();
  s.for_each_queued([&](const auto& e) {
    const Exact wv = (e.vruntime - v0) * static_cast<long>(e.weight);
    if (curr == e.id) {
      k.curr_w = e.weight;
      k.curr_wv = wv;
    } else {
      k.sum_w += e.weight;
      k.sum_wv += wv;
    }
    return true;
  });
  return k;
}
/// avg_vruntime from the kernel's sums: v0 + ⌊(sum_wv + curr_wv) / (sum_w + curr_w)⌋, rounded
/// toward −∞ as the kernel rounds it; v0 when nothing is queued.
Exact kernel_avg_vruntime(const Exact& v0, int64_t sum_w, const Exact& sum_wv, int64_t curr_w,
                          const Exact& curr_wv);

// ---------------------------------------------------------------------------------------------
// Step invariants

/// INV-PICK-ELIGIBLE: a pick that returns nothing while Q is not empty.
template <QueueState S>
bool idle_with_queue(const S& s) {
  return s.W() != 0;
}

/// INV-PICK-EDF's exemptions (§4.4, §4.5): curr kept under protection, or the next buddy taken
/// under PICK_BUDDY.
bool pick_exempt(const Preset& p, EntityId picked, std::optional<EntityId> curr_before,
                 bool curr_protected, std::optional<EntityId> next_before);

/// INV-PICK-EDF: calls f(e) for every eligible e ∈ Q, e ≠ p, whose deadline is earlier than p's,
/// in the state's order. Each one is a violation unless the pick is exempt. A state may compare
/// two deadlines itself (earlier_deadline(a, b): a's before b's), in a faster form of its own.
template <QueueState S, class F>
void for_each_earlier_eligible(const S& s, const typename S::Entity& p, F&& f) {
  s.for_each_queued([&](const auto& e) {
    if (e.id == p.id || !s.eligible(e)) return true;
    bool earlier;
    if constexpr (requires { s.earlier_deadline(e, p); })
      earlier = s.earlier_deadline(e, p);
    else
      earlier = e.deadline < p.deadline;
    if (earlier) f(e);
    return true;
  });
}

/// INV-PLACE-LAG: V − v after a wakeup from sleep with saved lag vl — vl under PLACE_LAG, the
/// TR's share vl·W/(W + w) under the paper's join, 0 without PLACE_LAG or into an empty queue.
Exact expected_place_lag(const Preset& p, const Exact& saved, int64_t W_before, int64_t weight);

/// INV-REWEIGHT: what a reweight must keep, V (when `compare_V`: the entity is queued) and w·lag
/// (lag = V − v queued, vl sleeping), with the tolerances of the caller's arithmetic.
struct ReweightCheck {
  bool V_moved = false;
  bool wlag_changed = false;
  bool holds() const { return !V_moved && !wlag_changed; }
};
ReweightCheck check_reweight(bool compare_V, const Exact& V_before, const Exact& V_after,
                             const Exact& wlag_before, const Exact& wlag_after,
                             const Exact& V_tolerance, const Exact& wlag_tolerance);

/// INV-LAG-CLAMP on a lag vl just saved: |vl| ≤ limit (< limit + tolerance in Linux arithmetic),
/// and after a delayed dequeue under DELAY_ZERO, vl ≤ 0 (exact in both).
struct SavedLagCheck {
  Exact limit;
  bool within_limit = true;
  bool positive_after_delay = false;
  bool holds() const { return within_limit && !positive_after_delay; }
};
SavedLagCheck check_saved_lag(const Params& p, int64_t slice, int64_t queue_max_slice,
                              int64_t weight, const Exact& vlag, bool from_delayed,
                              const Exact& tolerance);

/// INV-DELAY: an entity becomes delayed only while ineligible…
inline bool delayed_while_eligible(Status after, bool eligible_before) {
  return after == Status::Delayed && eligible_before;
}
/// …and never runs while delayed.
inline bool runs_while_delayed(Status of_curr) { return of_curr == Status::Delayed; }

// ---------------------------------------------------------------------------------------------
// Theorem bounds at a decision point (lag in ns, r the slice, q the quantum = TICK)

/// THM-LAG-BOUND: −r < lag < max(r, q).
inline int64_t paper_lag_upper(int64_t r, int64_t q) { return std::max(r, q); }
inline bool paper_lag_bound_holds(const Exact& lag, int64_t r, int64_t q) {
  return lag > -r && lag < paper_lag_upper(r, q);
}
/// THM-LAG-BOUND-LINUX: |lag| ≤ r + TICK.
inline int64_t linux_lag_bound(int64_t r, int64_t tick) { return r + tick; }
inline bool linux_lag_bound_holds(const Exact& lag, int64_t r, int64_t tick) {
  return lag >= -linux_lag_bound(r, tick) && lag <= linux_lag_bound(r, tick);
}

}  // namespace vlag::rules
