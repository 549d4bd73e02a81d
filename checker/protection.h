// `vlag check`'s own window of curr's slice protection (SPEC.md §4.5; INV-PROT-START,
// INV-PROT-EXTENT, INV-PROT-END), kept from the trace's events with the rules of
// rules/protection.h: armed at a pick that makes a new entity curr, cancelled or shrunk at a
// `preempt` decision, dropped when curr leaves. It never reads the shadow reference's
// protection, which comes from the same §4 code as the trace it judges. INV-PICK-EDF's exemption
// of a kept curr, and the protection IDs at picks (checker/decisions.h), read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checker/view.h"
#include "rules/protection.h"
#include "spec/arith.h"

namespace vlag::checker {

class ProtectionTracker {
 public:
  ProtectionTracker(const Params& params, Arith arith) : params_(params), arith_(arith) {}

  /// Whether curr's window is known: not for a curr the trace did not show being picked (a
  /// window's first curr), whose protection the trace does not carry.
  bool known() const { return !unknown_; }
  /// Does the window protect curr in `view`? An unknown window counts as protecting.
  bool protects(const View& view) const;
  /// The ID a pick that keeps curr over an earlier eligible deadline violates while the window
  /// does not protect it — INV-PROT-END after a cancel or a shrink that ended it, else
  /// INV-PROT-EXTENT — and nullptr where the preset arms no window (INV-PICK-EDF's own case).
  const char* kept_past_id(const View& view) const;
  /// The window in words, for messages: "vprot 1400000 armed at line 6".
  std::string describe() const;
  const rules::ProtectionBound& bound() const { return bound_; }
  bool stash() const { return params_.preset.protection == Protection::Stash; }

  /// After a pick of `picked` (nullopt: idle) with `curr_before` running before it.
  void picked(const View& view, std::optional<EntityId> picked, std::optional<EntityId> curr_before,
              int64_t line);
  /// After the wakeup-preemption decision for `wakee` (the view is the state it was made in).
  void wakeup_decision(const View& view, EntityId wakee, bool preempt, int64_t line);
  /// After curr's reweight to `weight` (`before`: curr as it was, V_before: V then), where the
  /// preset rescales the window with curr (§4.8).
  void reweighted(const View& view, const ViewEntity& before, int64_t weight,
                  const Exact& V_before);
  /// After any other event: a curr that changed without a pick has a window of its own only if
  /// a pick armed it, so a new one is unknown and a vanished one takes its window along.
  void follow(const View& view);

 private:
  Exact vdelta(int64_t ns, int64_t weight) const;
  rules::CurrState curr_state(const ViewEntity& c) const;

  const Params& params_;
  Arith arith_;
  std::optional<EntityId> owner_;
  rules::ProtectionBound bound_;
  bool unknown_ = false;
  int64_t armed_line_ = 0;
  // The last cancel or shrink of this window, and the bound before it.
  int64_t moved_line_ = 0;
  rules::WakeupEffect moved_by_ = rules::WakeupEffect::None;
  rules::ProtectionBound bound_before_move_;
};

}  // namespace vlag::checker
