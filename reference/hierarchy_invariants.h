// SPEC.md §10.5 on the exact hierarchy (reference/hierarchy.h): §6's state invariants on every
// runqueue of a CPU's hierarchy, INV-GROUP-QUEUED for every group entity, and INV-GROUP-SHARES
// for the group entities the last operation updated. §6's step invariants are judged per
// runqueue operation through the hierarchy's step hook (reference/invariants.h check_step).
#pragma once

#include <vector>

#include "reference/hierarchy.h"
#include "reference/invariants.h"
#include "reference/runqueue.h"

namespace vlag::reference {

using Hierarchy = BasicHierarchy<Runqueue>;

/// check_state on every runqueue (each detail prefixed "rq G: ") and INV-GROUP-QUEUED.
std::vector<Violation> check_hierarchy_state(const Hierarchy& h);
/// INV-GROUP-SHARES for h.shares_updated(): each such entity with a non-empty runqueue has the
/// weight of the instantaneous rule (§10.3) on the loads now.
std::vector<Violation> check_group_shares(const Hierarchy& h);
/// INV-GROUP-SHARES in its one-CPU form (§10.5), a state invariant: every group entity whose
/// runqueue is non-empty weighs S_G, whatever the last operation touched (a cpu.weight write
/// included). A machine of several CPUs is not judged here (no violation): there the rule is
/// lazy per CPU and only check_group_shares applies.
std::vector<Violation> check_one_cpu_shares(const Hierarchy& h);

}  // namespace vlag::reference
