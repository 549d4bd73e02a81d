// The hierarchy fuzzer's decoder (fuzz/hierarchy_decoder.h): any bytes decode, and every
// operation they decode to is one the tree of groups accepts; a known byte string decodes to the
// operations its bytes spell.
#include "fuzz/hierarchy_decoder.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "reference/task_groups.h"
#include "spec/error.h"
#include "spec/features.h"
#include "spec/weights.h"

namespace vlag::fuzz {
namespace {

using reference::GroupId;

// Replays the structural side of a case on real TaskGroups and a record of the tasks: each
// operation must be accepted; returns the first that is not.
std::string first_refused(const HierarchyCase& c) {
  reference::TaskGroups groups(1);
  std::map<TaskId, GroupId> task;
  TaskId next_task = 1;
  const auto live = [&](GroupId g) {
    return g >= 0 && static_cast<size_t>(g) < groups.size() && groups.group(g).alive;
  };
  for (const HierarchyOp& o : c.ops) {
    const std::string what = to_string(o);
    try {
      switch (o.kind) {
        case HierarchyOpKind::CreateGroup: {
          if (!live(o.parent)) return what + ": dead parent";
          const std::string base = o.parent == 0 ? "" : groups.group(o.parent).path;
          const GroupId g = groups.add(base + "/g" + std::to_string(o.group),
                                       reference::cgroup_weight_to_shares(o.cpu_weight));
          if (g != o.group) return what + ": TaskGroups made group " + std::to_string(g);
          break;
        }
        case HierarchyOpKind::DestroyGroup:
          if (o.group == 0) return what + ": the root";
          for (const auto& [t, g] : task)
            if (g == o.group) return what + ": it holds task " + std::to_string(t);
          groups.remove(o.group);  // refuses a group with a live child
          break;
        case HierarchyOpKind::SetCpuWeight:
          if (o.group == 0 || !live(o.group)) return what + ": not a live group";
          groups.set_shares(o.group, reference::cgroup_weight_to_shares(o.cpu_weight));
          break;
        case HierarchyOpKind::Move:
          if (!task.count(o.op.se)) return what + ": no such task";
          if (!live(o.group) || task[o.op.se] == o.group) return what + ": not another live group";
          task[o.op.se] = o.group;
          break;
        case HierarchyOpKind::Task:
          if (o.op.kind == OpKind::Create) {
            if (o.op.se != next_task++) return what + ": not the next task id";
            if (!live(o.group)) return what + ": dead group";
            validate_weight(o.op.a);
            task[o.op.se] = o.group;
          } else if (o.op.kind == OpKind::Exit) {
            if (!task.erase(o.op.se)) return what + ": no such task";
          } else if (o.op.se != 0 && !task.count(o.op.se)) {
            return what + ": no such task";
          }
          if (task.size() > kMaxHierarchyTasks) return what + ": too many tasks";
          break;
      }
    } catch (const Error& e) {
      return what + ": " + e.what();
    }
  }
  return "";
}

TEST(HierarchyDecoder, AnyBytesDecodeToOperationsTheTreeAccepts) {
  std::mt19937 rng(20261201);
  size_t longest = 0, groups_made = 0, moves = 0, destroys = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bytes(rng() % 600);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    HierarchyCase c;
    ASSERT_NO_THROW(c = decode_hierarchy_case(bytes.data(), bytes.size()));
    ASSERT_LE(c.ops.size(), kMaxHierarchyOps);
    ASSERT_EQ(first_refused(c), "") << "case " << i;
    longest = std::max(longest, c.ops.size());
    for (const HierarchyOp& o : c.ops) {
      groups_made += o.kind == HierarchyOpKind::CreateGroup;
      moves += o.kind == HierarchyOpKind::Move;
      destroys += o.kind == HierarchyOpKind::DestroyGroup;
    }
  }
  // The random cases reach every structural operation, and long runs.
  EXPECT_GT(groups_made, 0u);
  EXPECT_GT(moves, 0u);
  EXPECT_GT(destroys, 0u);
  EXPECT_GT(longest, 100u);
}

TEST(HierarchyDecoder, KnownBytesDecodeToTheirOperations) {
  const std::vector<uint8_t> bytes = {
      0x00,                    // the first Linux preset, its own flags
      0x00, 0x00, 0x01,        // create a group under live group 0 (the root), cpu.weight 100
      0x04, 0x01, 0x14, 0x00,  // a task in live group 1 (/g1), nice 0, the base slice
      0x05, 0x00,              // enqueue task 1
      0x08, 0x00, 0x00, 0x07,  // run 7 ns (a tiny step)
      0x01, 0x00,              // destroy: no group is empty, dropped
      0x02, 0x00, 0x01,        // move task 1: live group 1 is its own, so the next (the root)
      0x01, 0x00,              // destroy /g1, empty now
      0x03, 0x00, 0x02,        // cpu.weight with no group: a group under the root, 10000
  };
  const HierarchyCase c = decode_hierarchy_case(bytes.data(), bytes.size());
  EXPECT_EQ(c.preset, presets_of(PresetFamily::Linux).front());
  EXPECT_EQ(c.features, "");
  std::vector<std::string> got;
  for (const HierarchyOp& o : c.ops) got.push_back(to_string(o));
  const std::vector<std::string> want = {
      "create-group 1 under 0 cpu.weight 100",
      "create 1 w=" + std::to_string(kNice0Weight) + " slice=0 in 1",
      "enqueue 1",
      "run 7",
      "move 1 to 0",
      "destroy-group 1",
      "create-group 2 under 0 cpu.weight 10000",
  };
  EXPECT_EQ(got, want);
}

TEST(HierarchyDecoder, TaskOperationsWithNoTaskCreateOne) {
  const std::vector<uint8_t> bytes = {0x00, 0x05, 0x00};  // enqueue, but there is no task
  const HierarchyCase c = decode_hierarchy_case(bytes.data(), bytes.size());
  ASSERT_EQ(c.ops.size(), 1u);
  EXPECT_EQ(c.ops[0].op.kind, OpKind::Create);
  EXPECT_EQ(c.ops[0].group, 0);
}

}  // namespace
}  // namespace vlag::fuzz
