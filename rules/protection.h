// SPEC.md §4.5, curr's slice protection, as rules of their own: when a protected window starts
// (INV-PROT-START: only at a pick that makes a new entity curr), how far it extends
// (INV-PROT-EXTENT: the bound of the preset's formula, and curr protected exactly while within
// it) and when it ends or shrinks (INV-PROT-END: a wakeup's cancel and shrink, curr leaving).
// They read nothing of a runqueue's own protection state: the reference's judge
// (reference/invariants.cpp) compares the runqueue's protection with what these rules derive
// from the step, and the checker (checker/protection.h) keeps a window of its own from a trace's
// events. Exact numbers; `vdelta` is the caller's arithmetic (exact, or Linux's calc_delta_fair
// on a Linux-arithmetic trace), a callable (ns, weight) → Exact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "rules/state.h"

namespace vlag::rules {

/// What protects curr (§4.5): stash — the deadline curr had when it was picked, protecting while
/// d_c still equals it; vprot — a vruntime, protecting while v_c < it. nullopt: no window.
using ProtectionBound = std::optional<Exact>;

/// set_next_entity arms a window: stash under RUN_TO_PARITY, vprot always (without
/// RUN_TO_PARITY for one base slice), the paper presets never.
bool arms_protection(const Preset& p);

/// Is curr, at (v_c, d_c), protected by `bound`?
bool protects(const Preset& p, const ProtectionBound& bound, const Exact& v_c, const Exact& d_c);

/// minslice: the least slice over Q (0 when Q is empty), from the entities themselves.
template <QueueState S>
int64_t queued_min_slice(const S& s) {
  int64_t m = 0;
  s.for_each_queued([&](const auto& e) {
    if (m == 0 || e.slice < m) m = e.slice;
    return true;
  });
  return m;
}

/// The curr-side quantities a protection rule reads.
struct CurrState {
  Exact vruntime, deadline;
  int64_t slice = 0, weight = 0;
};

/// INV-PROT-EXTENT: the bound set_next_entity arms for curr c with Q's minslice. stash: d_c.
/// vprot: s := min(RUN_TO_PARITY ? minslice : b_norm, r_c); d_c when s = r_c, else
/// min(d_c, v_c + vdelta(s, w_c)). nullopt where the preset arms none.
template <class VDelta>
ProtectionBound armed_bound(const Params& params, const CurrState& c, int64_t min_slice,
                            VDelta&& vdelta) {
  const Preset& p = params.preset;
  if (!arms_protection(p)) return std::nullopt;
  if (p.protection == Protection::Stash) return c.deadline;
  const int64_t s =
      std::min(p.has(Feature::RUN_TO_PARITY) ? min_slice : params.base_slice_norm_ns(), c.slice);
  if (s == c.slice) return c.deadline;
  return std::min(c.deadline, Exact(c.vruntime + vdelta(s, c.weight)));
}

/// The wakee of a wakeup-preemption decision, as §4.6 reads it before deciding.
struct WakeeState {
  int64_t slice = 0;
  Exact deadline;
  bool eligible = false;
};

/// What a wakeup-preemption decision does to curr's window (§4.5, §4.6).
enum class WakeupEffect : uint8_t { None, Cancel, Shrink };

/// INV-PROT-END at the decision for wakee p, which said `preempt`: 6.12's PREEMPT_SHORT cancel
/// (a shorter, eligible wakee that is earlier or finds curr ineligible, while curr is protected);
/// 6.17's cancel when a shorter wakee preempts and shrink when it does not (RUN_TO_PARITY).
WakeupEffect wakeup_effect(const Preset& p, bool preempt, const WakeeState& wakee,
                           const CurrState& curr, bool curr_eligible, bool curr_protected);

/// The bound after curr's reweight from w to w_new around V: where the preset rescales (7.1,
/// 101f3498b4bd) a vprot bound protecting curr before the move is rescaled around V with v and
/// d, V + scale(bound − V), scale(x) = x·w/w_new in the runqueue's arithmetic; every other
/// window is left as it was.
template <class Scale>
ProtectionBound after_reweight(const Preset& p, const ProtectionBound& before, const CurrState& c,
                               const Exact& V, Scale&& scale) {
  if (p.reweight != ReweightRule::Rescale || p.protection != Protection::Vprot ||
      !protects(p, before, c.vruntime, c.deadline))
    return before;
  return Exact(V + scale(Exact(*before - V)));
}

/// The bound after that effect: a cancel leaves stash no window and vprot v_c (if it protected);
/// a shrink takes min(bound, v_c + vdelta(minslice, w_c)).
template <class VDelta>
ProtectionBound after_wakeup(const Preset& p, const ProtectionBound& before, WakeupEffect effect,
                             const CurrState& c, int64_t min_slice, VDelta&& vdelta) {
  switch (effect) {
    case WakeupEffect::None:
      return before;
    case WakeupEffect::Cancel:
      if (!protects(p, before, c.vruntime, c.deadline)) return before;
      if (p.protection == Protection::Stash) return std::nullopt;
      return c.vruntime;
    case WakeupEffect::Shrink:
      if (!before || p.protection != Protection::Vprot) return before;
      return std::min(*before, Exact(c.vruntime + vdelta(min_slice, c.weight)));
  }
  return before;
}

}  // namespace vlag::rules
