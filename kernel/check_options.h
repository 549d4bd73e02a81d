// Where `vlag kernel check` learns what a perf trace does not say (SPEC.md §6.2): task groups,
// custom slices and the base slice from sched debug snapshots, or task groups from a user's
// "PID GROUP" map; both fill the service layer's options (kernel/service.h).
#pragma once

#include <string>

#include "kernel/sched_debug.h"
#include "kernel/service.h"

namespace vlag::kernel {

/// pid → group path and pid → custom slice from the snapshot's task tables, and its base slice
/// unless one is set; a later snapshot overrides an earlier one's entries.
void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelCheckOptions& options);

/// pid → group path from FILE: "PID GROUP" per line, '#' comments. Throws vlag::Error
/// "FILE:LINE: expected 'PID GROUP'" on any other line.
void read_group_map(const std::string& file, KernelCheckOptions& options);

}  // namespace vlag::kernel
