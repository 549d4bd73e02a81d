// What SPEC.md §10.5's rules (checker/hierarchy_rules.h) read of one runqueue of a hierarchy,
// from whichever checker follows it: EEVDF's view (checker/runqueue_checker.h) or the CFS
// checker's tasks (checker/cfs_check.h). Both policies put a group entity on its parent's
// runqueue and weigh it by the same shares rule, so one set of rules judges both.
#pragma once

#include <cstdint>

#include "spec/observer.h"

namespace vlag::checker {

/// A runqueue's queued entities (delayed ones included) and their weight.
struct LevelFacts {
  int64_t queued = 0;
  int64_t load = 0;
};

/// One entity of a runqueue: a group entity, where the rules ask.
struct MemberFacts {
  Status status = Status::Sleeping;
  int64_t weight = 0;
};

}  // namespace vlag::checker
