// SPEC.md §4.4 step 2, §4.6, §4.7, §4.11: the next buddy as a rule of its own (INV-NEXT-BUDDY),
// stated over the events that move it — a wakeup-preemption decision sets it under NEXT_BUDDY
// (to the wakee, unless that wakeup was a new task's first enqueue, WF_FORK), a pick of it or a
// dequeue of it clears it — so that INV-PICK-EDF's buddy exemption, in the reference's judge
// (reference/invariants.cpp) and in the checker (checker/buddy.h), never rests on the
// runqueue's own next buddy.
#pragma once

#include <cstdint>
#include <optional>

#include "spec/features.h"
#include "spec/ops.h"

namespace vlag::rules {

using Buddy = std::optional<EntityId>;

/// After the wakeup-preemption decision for `wakee` with `curr` running (nullopt: idle, where
/// the decision returns before it looks at buddies); `first_enqueue`: the wakee's wakeup was its
/// first enqueue.
inline Buddy buddy_after_wakeup(const Preset& p, Buddy before, EntityId wakee,
                                std::optional<EntityId> curr, bool first_enqueue) {
  if (!p.has(Feature::NEXT_BUDDY) || !curr || *curr == wakee || first_enqueue) return before;
  return wakee;
}

/// After a pick of `picked` (set_next_entity clears the buddy it makes curr) or a dequeue of
/// `left` (dequeue_entity clears a buddy that leaves, sleeping or not).
inline Buddy buddy_after_leaving(Buddy before, std::optional<EntityId> gone) {
  return before && gone == before ? std::nullopt : before;
}

/// Under PICK_BUDDY, with more than one entity queued, an eligible buddy is the pick.
inline bool buddy_goes_first(const Preset& p, Buddy next, bool next_eligible, int64_t nr_queued) {
  return p.has(Feature::PICK_BUDDY) && next && next_eligible && nr_queued > 1;
}

}  // namespace vlag::rules
