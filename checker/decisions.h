// Layer 2 of `vlag check` (SPEC.md §6): every pick judged on the trace's own numbers with the
// rules of rules/invariants.h — INV-PICK-ELIGIBLE, INV-PICK-EDF modulo protection and the next
// buddy, INV-DELAY (a delayed entity never runs, and only an ineligible one becomes delayed) —
// and, while the shadow reference follows the trace, against the pick SPEC.md §4.4 makes
// (INV-STEP).
#pragma once

#include <optional>

#include "checker/findings.h"
#include "checker/view.h"

namespace vlag::checker {

/// What the state before a pick says about it.
struct PickContext {
  std::optional<EntityId> picked;       // nullopt: the CPU went idle
  std::optional<EntityId> curr_before;  // the running entity before the pick
  std::optional<EntityId> next_before;  // the next buddy before the pick
  bool curr_protected = false;          // curr's slice protection held (§4.5)
};

class Decisions {
 public:
  Decisions(const Params& params, Findings& findings) : params_(params), out_(findings) {}

  /// INV-PICK-ELIGIBLE, INV-PICK-EDF and INV-DELAY on the view after the pick.
  void pick(const View& view, const PickContext& pick);
  /// INV-STEP: the trace's pick is the shadow's. `judged_from`: the violation count before the
  /// pick's other rules (a pick already flagged is not flagged again). False when they differ:
  /// the shadow no longer stands for the trace.
  bool pick_step(std::optional<EntityId> picked, std::optional<EntityId> spec_pick,
                 int64_t judged_from);
  /// INV-DELAY at a sleep or dequeue that left the entity delayed.
  void became_delayed(const ViewEntity& before, const ViewEntity& after, const Exact& V_before);

 private:
  const Params& params_;
  Findings& out_;
};

}  // namespace vlag::checker
