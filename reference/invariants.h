// SPEC.md §6 evaluated on the reference's exact state: check_state for the invariants of a single
// state, check_step for those that relate a state to the one before it. The rules themselves are
// rules/invariants.h, shared with the checker; this file says when each is judged and what it
// prints. Each violation carries its SPEC.md ID (spec/properties.h) and whether the preset
// promises the invariant in that situation; a violation that is not promised is the documented
// behaviour of that kernel version, not a bug.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "reference/runqueue.h"
#include "spec/ops.h"

namespace vlag::reference {

struct Violation {
  std::string id;      // one of vlag::ids (spec/properties.h)
  std::string detail;  // values that show it
  bool promised = true;
};

/// What the judge keeps of the operations themselves, never read from the runqueue: the entities
/// created and not yet enqueued, and whether the last enqueue was one of them — a new task's
/// first (WF_FORK), whose wakeup decision leaves the next buddy alone (§4.6, INV-NEXT-BUDDY).
class History {
 public:
  /// An operation the runqueue accepted, Create included.
  void saw(const Op& op);
  bool last_enqueue_initial() const { return last_enqueue_initial_; }

 private:
  std::set<EntityId> never_enqueued_;
  bool last_enqueue_initial_ = false;
};

std::vector<Violation> check_state(const Runqueue& rq);
/// `history`: the operations before `op` (History::saw each). Without it a wakeup decision may
/// also leave the next buddy as it was, since the judge cannot tell a new task's first enqueue.
std::vector<Violation> check_step(const Runqueue& before, const Op& op, const Runqueue& after,
                                  const History* history = nullptr);

/// The violations a preset promises never to show.
std::vector<Violation> promised_only(std::vector<Violation> all);

/// THM-LAG-BOUND for the `paper` preset: −r_k < lag_k < max(r_k, q) for every queued k.
std::vector<Violation> check_paper_lag_bound(const Runqueue& rq);
/// THM-LAG-BOUND-LINUX: −(r_k + TICK) ≤ lag_k ≤ r_k + TICK for every queued k.
std::vector<Violation> check_linux_lag_bound(const Runqueue& rq);

}  // namespace vlag::reference
