// What a single /sys/kernel/debug/sched/debug snapshot lets us check (SPEC.md §6.1):
// SNAP-AVG-VRUNTIME, SNAP-ELIGIBLE, SNAP-DEADLINE and SNAP-LEFT-DEADLINE, per CPU and cfs_rq,
// each verdict on the lattice of SPEC.md §6.3 and pointing at the snapshot line it comes from.
// The file is printed without the runqueue lock, so its lines are not one instant: when
// `.curr->pid` and the task marked '>' differ, more tasks are in state R than nr_queued counts,
// the running entity may have advanced between the cfs_rq lines and its row, a child is listed
// between fork and its first placement, or the leftmost entity was picked between the lines,
// a mismatch that the race explains is inconclusive (unlocked snapshot read), naming the lines.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernel/sched_debug.h"
#include "spec/verdict.h"

namespace vlag::kernel {

struct SnapshotFinding {
  std::string id;  // "SNAP-ELIGIBLE", …
  Verdict verdict = Verdict::Violated;
  Reasons reasons;
  int line = 0;
  std::string where;  // "cpu1 /autogroup-1 pid 4975 (hog)"
  std::string message;
};

struct SnapshotReport {
  std::string file;
  std::string version;
  std::map<std::string, VerdictTally> checks;  // by ID
  std::vector<SnapshotFinding> findings;       // violated and inconclusive ones
  std::vector<std::string> notes;              // what could not be checked, and why
  Verdict worst = Verdict::NotApplicable;
  bool ok() const { return worst != Verdict::Violated; }
};

SnapshotReport check_snapshot(const SchedDebugSnapshot& snap);

}  // namespace vlag::kernel
