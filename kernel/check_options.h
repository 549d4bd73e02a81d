// Where `vlag kernel check` learns what a perf trace does not say (SPEC.md §6.2): task groups,
// every task's slice, the base slice, the groups' shares and the machine's CPU count from sched
// debug snapshots, or task groups and their shares from a user's group map; both fill the
// service layer's options (kernel/service.h).
#pragma once

#include <string>

#include "kernel/sched_debug.h"
#include "kernel/service.h"

namespace vlag::kernel {

/// pid → group path, pid → slice and where each task was, from the snapshot's task tables; the
/// groups' shares and their other CPUs' load from its cfs_rqs; its base slice unless one is set;
/// its CPU count. A later snapshot overrides an earlier one's entries.
void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelCheckOptions& options);

/// From FILE, per line: "PID GROUP" (pid → group path; a pid in 0..4194304 once, a path
/// starting with '/'), or "GROUP cpu.shares N" / "GROUP cpu.weight N" (the group's tg->shares as
/// that cgroup knob sets it, kernel/group_weight.h; once per group, not the root or an
/// autogroup); '#' comments. Throws vlag::Error "FILE:LINE: field …" on any other line and on
/// shares that a snapshot read before ruled out, and "FILE: …" for an empty file or a directory.
void read_group_map(const std::string& file, KernelCheckOptions& options);

}  // namespace vlag::kernel
