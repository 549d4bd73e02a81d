// Task groups of a simulated run (SPEC.md §10.1): `--cgroup PATH:weight=N[,latency_nice=N]
// [,tasks=N][,workload=NAME]` declares a cgroup with its cpu.weight, and `--autogroup` gives
// each workload an autogroup of its own, like one session each. A new task joins the cgroup
// that names its workload; else the first cgroup, in the order given, with places left
// (tasks=N: the next N tasks created); else its workload's autogroup under --autogroup; else the
// root group. A cgroup's latency_nice is the latency_nice of its tasks that set none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/task_groups.h"

namespace vlag::sim {

struct CgroupSpec {
  std::string path;      // "/a", "/a/b" (a leading '/' is added)
  int64_t weight = 100;  // cpu.weight, 1..10000
  std::optional<int> latency_nice;
  int64_t tasks = 0;     // places for the next tasks created; 0: none by count
  std::string workload;  // every task of this workload joins; "": none by name
};

/// Parses --cgroup's value; throws vlag::Error naming the bad part.
CgroupSpec parse_cgroup_spec(const std::string& text);

/// The keys of a cgroup's settings: weight, latency_nice, tasks, workload.
const std::vector<std::string>& cgroup_fields();

/// Sets one of them, from its text, the same way for --cgroup and vlag compare's
/// cgroup.PATH.FIELD keys; throws vlag::Error "FIELD: why" (an unknown field names the known).
void set_cgroup_field(CgroupSpec& spec, const std::string& field, const std::string& value);

/// The cgroup of `path` in `specs` ('/' added in front where missing), appended when absent.
CgroupSpec& cgroup_named(std::vector<CgroupSpec>& specs, const std::string& path);

/// Which group each new task joins, creating the groups in `groups` as they are first needed.
class CgroupPlacement {
 public:
  CgroupPlacement(std::vector<CgroupSpec> specs, bool autogroup);
  bool enabled() const { return !specs_.empty() || autogroup_; }
  /// The group of a new task of `workload`, and the latency_nice it takes if it has none.
  reference::GroupId place(const std::string& workload, reference::TaskGroups& groups);
  std::optional<int> latency_nice(reference::GroupId g, const reference::TaskGroups& groups) const;
  /// Throws vlag::Error naming a cgroup with places left, a workload no task had, or a cgroup
  /// no task can join (neither tasks nor workload, and no cgroup below it).
  void check_used() const;

 private:
  reference::GroupId ensure(const std::string& path, int64_t shares,
                            reference::TaskGroups& groups) const;
  std::vector<CgroupSpec> specs_;
  std::vector<int64_t> placed_;  // per spec: tasks placed by count
  std::vector<bool> named_;      // per spec: a task of its workload was placed
  bool autogroup_ = false;
};

}  // namespace vlag::sim
