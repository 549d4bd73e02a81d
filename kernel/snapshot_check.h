// What a single /sys/kernel/debug/sched/debug snapshot lets us check (SPEC.md §6.1):
// SNAP-AVG-VRUNTIME, SNAP-ELIGIBLE, SNAP-DEADLINE and SNAP-LEFT-DEADLINE, per CPU and cfs_rq,
// each finding pointing at the snapshot line it comes from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernel/sched_debug.h"

namespace vlag::kernel {

struct SnapshotFinding {
  std::string id;  // "SNAP-ELIGIBLE", …
  int line = 0;
  std::string where;  // "cpu1 /autogroup-1 pid 4975 (hog)"
  std::string message;
  bool violation = true;  // false: a note (e.g. the running task's lazily updated vruntime)
};

struct CheckCount {
  int checked = 0;
  int violated = 0;
};

struct SnapshotReport {
  std::string file;
  std::string version;
  std::map<std::string, CheckCount> counts;  // by ID
  std::vector<SnapshotFinding> findings;
  std::vector<std::string> notes;  // what could not be checked, and why
  bool ok() const;
};

SnapshotReport check_snapshot(const SchedDebugSnapshot& snap);

}  // namespace vlag::kernel
