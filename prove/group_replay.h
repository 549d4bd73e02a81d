// A `vlag prove --groups` counterexample replayed on the exact reference hierarchy
// (reference/hierarchy.h, one CPU): which operation of the hierarchy the reference flags with
// the same ID — §6's on any runqueue's own step, INV-GROUP-QUEUED and INV-GROUP-SHARES on the
// hierarchy after it — and its trace, one runqueue per level (spec/TRACE.md §7). The operations
// are smt/detail/group_system.cpp's: a group entity's create makes its group (shares in `a`), a
// task's create names its group in `rq`, a group entity's reweight is a cpu.weight write.
#pragma once

#include <ostream>
#include <vector>

#include "prove/replay.h"

namespace vlag::prove {

Replay replay_groups(const Options& o, const std::vector<Op>& ops);

void write_group_trace(const Options& o, const std::vector<Op>& ops, std::ostream& out);

}  // namespace vlag::prove
