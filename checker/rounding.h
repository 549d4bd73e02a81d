// SPEC.md §7.3's rounding bounds as `vlag check` applies them to a trace in Linux integer
// arithmetic ("arith":"linux64"): the tolerances it hands to the exact rules of
// rules/invariants.h for the IDs that state equalities or limits. On an exact trace every
// tolerance is 0 and the rules compare exactly.
#pragma once

#include "checker/view.h"

namespace vlag::checker {

class Rounding {
 public:
  Rounding(const Params& params, Arith arith) : params_(params), arith_(arith) {}

  bool linux64() const { return arith_ == Arith::Linux64; }
  /// B_v = 2·E(R) for the operation just applied, E(R) = 1 + R/2^20 (§7.3's vdelta lemma), R the
  /// largest amount it can hand to vdelta: max(2·r_max, TICK, 2·b) over the view.
  Exact vruntime_bound(const View& view) const;
  /// INV-PLACE-LAG: V − v of a queued entity is off by less than 1 + 2B_v.
  Exact place_tolerance(const View& view) const;
  /// INV-DEADLINE: s = k·(3 + 5B_v)·w/N for a deadline that sums k vdelta roundings.
  Exact deadline_slack(const View& view, const ViewEntity& v) const;
  /// INV-LAG-CLAMP: a saved lag is off by less than B_v.
  Exact saved_lag_tolerance(const View& view) const { return vruntime_bound(view); }

  /// INV-REWEIGHT: B_v = 3 + φ(1 + ρ)E with ρ = w/w', φ = 1 + 2w'/W_o; |ΔV| < 1 + B_v and
  /// |Δw·(V − v)| < w'·(1 + 2B_v). V is not compared for an entity alone in the queue: the
  /// operation passes through an empty one, whose V is min_vruntime (§7.1).
  struct ReweightBounds {
    Exact V = 0, wlag = 0;
    bool compare_V = true;
  };
  ReweightBounds reweight(const View& view, const ViewEntity& before,
                          const ViewEntity& after) const;

 private:
  const Params& params_;
  Arith arith_;
};

}  // namespace vlag::checker
