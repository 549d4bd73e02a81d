// `vlag check`'s own next buddy (SPEC.md §6 INV-NEXT-BUDDY), kept from the trace's events with
// the rules of rules/buddy.h: a `preempt` decision sets it under NEXT_BUDDY unless the wakee's
// wakeup was its first enqueue, a pick or a dequeue of it clears it. It never reads the shadow
// reference's buddy, which comes from the same §4 code as the trace it judges. INV-PICK-EDF's
// buddy exemption and INV-NEXT-BUDDY at picks (checker/decisions.h) read it.
#pragma once

#include <optional>

#include "rules/buddy.h"
#include "spec/features.h"

namespace vlag::checker {

class BuddyTracker {
 public:
  /// `window`: the trace starts mid-run, so under NEXT_BUDDY its buddy is unknown until a
  /// decision sets one.
  BuddyTracker(const Preset& preset, bool window)
      : preset_(preset), known_(!window || !preset.has(Feature::NEXT_BUDDY)) {}

  bool known() const { return known_; }
  rules::Buddy next() const { return known_ ? next_ : std::nullopt; }
  /// Could `picked` be taken as the buddy (PICK_BUDDY; an unknown buddy could be anyone)?
  bool may_exempt(EntityId picked) const {
    return preset_.has(Feature::PICK_BUDDY) && (!known_ || next_ == picked);
  }

  /// A wakeup of an entity; `first`: its first enqueue (a new task's, WF_FORK).
  void woke(bool first) { last_wakeup_first_ = first; }
  /// The wakeup-preemption decision for `wakee` while `curr` runs.
  void decided(EntityId wakee, std::optional<EntityId> curr) {
    const rules::Buddy after =
        rules::buddy_after_wakeup(preset_, next_, wakee, curr, last_wakeup_first_);
    if (after != next_) known_ = true;
    next_ = after;
  }
  /// A pick of `gone`, or its dequeue.
  void left(std::optional<EntityId> gone) { next_ = rules::buddy_after_leaving(next_, gone); }

 private:
  const Preset& preset_;
  bool known_;
  rules::Buddy next_;
  bool last_wakeup_first_ = false;
};

}  // namespace vlag::checker
