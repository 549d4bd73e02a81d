// Bytes → a preset and a sequence of operations on one CPU's hierarchy of task groups (SPEC.md
// §10): groups created under any live group and destroyed once empty, tasks created in a group
// and moved between groups, cpu.weight writes, and the task operations of §4. Decoding is total
// (missing bytes read as 0) and keeps its own record of the tree (live groups, their parents,
// which task is in which group), so that an operation the tree would refuse decodes as one it
// accepts: a task operation with no task creates one, a destroy picks a group with no tasks and
// no live child (or none: the operation is dropped), a move goes to another live group. Whether
// a task is queued, delayed or sleeping is the model's state, not the decoder's: the fuzz target
// retargets such operations (fuzz/hierarchy_fuzzer.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/ops.h"

namespace vlag::fuzz {

enum class HierarchyOpKind {
  CreateGroup,   // group `group` (the next id) under `parent`, of `cpu_weight`
  DestroyGroup,  // `group`, which has no task and no live child group
  SetCpuWeight,  // `group`'s cpu.weight becomes `cpu_weight`
  Move,          // task op.se moves to `group`
  Task,          // op, a task-level operation; Create puts the task in `group`
};

struct HierarchyOp {
  HierarchyOpKind kind = HierarchyOpKind::Task;
  int64_t group = 0;
  int64_t parent = 0;
  int64_t cpu_weight = 0;  // 1..10000
  Op op;
};

/// "create-group 3 under 1 cpu.weight 100", "task enqueue 2", ..., for failure messages.
std::string to_string(const HierarchyOp& o);

struct HierarchyCase {
  std::string preset;
  std::string features;  // flags switched on top of the preset (spec/features.h overrides)
  std::vector<HierarchyOp> ops;
};

inline constexpr size_t kMaxHierarchyGroups = 8;  // live groups besides the root
inline constexpr size_t kMaxHierarchyTasks = 16;  // live tasks
inline constexpr size_t kMaxHierarchyOps = 1000;

/// The first byte(s) give the preset and its feature flips as fuzz/op_decoder.h's decode_case;
/// then one operation per kind byte and its arguments until the bytes or kMaxHierarchyOps run
/// out. Group ids are TaskGroups' (1, 2, ... in order of creation, never reused); task ids are
/// 1, 2, ... in order of creation.
HierarchyCase decode_hierarchy_case(const uint8_t* data, size_t size);

}  // namespace vlag::fuzz
