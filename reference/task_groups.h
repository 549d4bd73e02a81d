// The task groups of one machine (SPEC.md §10.1, §10.3): their tree under the root group "/",
// their shares S_G, and each CPU's load L(G, c) of each group, which every CPU's hierarchy
// (reference/hierarchy.h) records after each operation and reads to apply the shares rule.
// One object is shared by all CPUs of a machine; it knows nothing of entities.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/weights.h"

namespace vlag::reference {

/// A task group; 0 is the root group "/".
using GroupId = int64_t;
inline constexpr GroupId kRootGroup = 0;

struct TaskGroup {
  std::string path;  // "/", "/a", "/a/b"
  GroupId parent = kRootGroup;
  int64_t shares = 0;         // S_G (the root's is unused)
  std::vector<int64_t> load;  // per CPU: W of the group's runqueue there
  bool alive = true;          // destroyed groups keep their id, never reused
};

class TaskGroups {
 public:
  explicit TaskGroups(int ncpus);

  /// Adds the group at `path` ("/a/b": its parent "/a" must exist) with shares in
  /// [MIN_SHARES, MAX_SHARES]; throws vlag::Error on a bad or existing path or shares.
  GroupId add(std::string_view path, int64_t shares);
  /// The live group at `path`; throws vlag::Error if there is none.
  GroupId find(std::string_view path) const;
  /// Marks a group destroyed: it must have no live child, and every CPU's hierarchy must have
  /// dropped its runqueue (zero load everywhere); throws vlag::Error otherwise.
  void remove(GroupId g);
  void set_shares(GroupId g, int64_t shares);

  const TaskGroup& group(GroupId g) const;
  size_t size() const { return groups_.size(); }
  int ncpus() const { return ncpus_; }
  /// The path from g up to the root, g first, the root excluded.
  std::vector<GroupId> ancestors(GroupId g) const;

  void set_load(GroupId g, int cpu, int64_t load);
  /// §10.3, instantaneous form: clamp(⌊S_G·L(G, c)/Σ L(G, ·)⌋, MIN_SHARES, S_G).
  int64_t shares_on(GroupId g, int cpu) const;

 private:
  int ncpus_;
  std::vector<TaskGroup> groups_;
};

/// §10.1: `cpu.weight` as shares (spec/weights.h, shared with the real kernel's group maps).
using vlag::cgroup_weight_to_shares;
/// §10.1: an autogroup's shares, the weight of its nice value (−20..19).
int64_t autogroup_shares(int nice);

}  // namespace vlag::reference
