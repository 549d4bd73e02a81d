// SPEC.md §4.7 and §4.9: the lag a leaving entity keeps — V − v clamped to ±vdelta(L, w) under the
// Linux presets (L = max(2r, TICK), or the largest slice in Q + TICK), the TR's rejoin strategies
// (§5), DELAY_ZERO at a completed delayed dequeue, and mainline's floor on a delayed entity's lag.
// Written once, generic in the arithmetic: the runqueues (reference/ basic_runqueue_impl.h, in
// exact or Linux integers) and the checker's view (exact) call these. `limit` is a callable giving
// vdelta(lag_clamp_ns(r), w) in the caller's arithmetic, asked for only where the preset clamps.
#pragma once

#include <algorithm>
#include <cstdint>

#include "spec/features.h"

namespace vlag::rules {

/// The real time whose vdelta bounds a saved lag: max(2·r, TICK) (6.6–6.18), or the largest slice
/// queued — the entity's own r among them — plus TICK (MaxSlice, 6e3c0a4e1ad1).
inline int64_t lag_clamp_ns(const Params& p, int64_t slice, int64_t queue_max_slice) {
  if (p.preset.clamp == LagClamp::MaxSlice) return std::max(slice, queue_max_slice) + p.tick_ns();
  return std::max(2 * slice, p.tick_ns());
}

/// entity_lag: the lag V − v, clamped to ±limit where the preset clamps (Linux presets).
template <class Num, class Limit>
Num entity_lag(const Preset& p, const Num& lag, Limit&& limit) {
  if (p.clamp == LagClamp::None) return lag;
  const Num l = limit();
  return std::clamp(lag, Num(-l), l);
}

/// The lag a dequeue saves: entity_lag, then TR strategy 2 (dropped) or 3 (only a negative one).
template <class Num, class Limit>
Num saved_lag(const Preset& p, const Num& lag, Limit&& limit) {
  const Num l = entity_lag(p, lag, limit);
  switch (p.rejoin_strategy) {
    case 2:
      return Num(0);
    case 3:
      return l > 0 ? Num(0) : l;
    default:
      return l;
  }
}

/// The lag a completed delayed dequeue saves (§4.9): under NoDecrease never below `at_delay`, the
/// lag the entity was delayed with; DELAY_ZERO clips a positive one to 0.
template <class Num, class Limit>
Num delayed_dequeue_lag(const Preset& p, const Num& lag, const Num& at_delay, Limit&& limit) {
  Num l = saved_lag(p, lag, limit);
  if (p.delayed_lag == DelayedLag::NoDecrease) l = std::max(l, at_delay);
  return p.has(Feature::DELAY_ZERO) && l > 0 ? Num(0) : l;
}

/// Mainline's lag of a delayed entity woken again (§4.9, NoDecrease): its clamped lag, never below
/// `at_delay`, at most 0 under DELAY_ZERO.
template <class Num>
Num requeued_delayed_lag(const Preset& p, const Num& clamped, const Num& at_delay) {
  const Num l = std::max(clamped, at_delay);
  return p.has(Feature::DELAY_ZERO) && l > 0 ? Num(0) : l;
}

}  // namespace vlag::rules
