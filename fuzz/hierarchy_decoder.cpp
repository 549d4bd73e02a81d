#include "fuzz/hierarchy_decoder.h"

#include <map>
#include <optional>

#include "fuzz/op_decoder.h"
#include "spec/weights.h"

namespace vlag::fuzz {
namespace {

// The decoder's record of the tree: enough to keep every operation one the tree accepts.
class Tree {
 public:
  Tree() : parent_{0}, alive_{true} {}

  // Live groups, the root first, in id order.
  std::vector<int64_t> live() const {
    std::vector<int64_t> out;
    for (size_t g = 0; g < alive_.size(); ++g)
      if (alive_[g]) out.push_back(static_cast<int64_t>(g));
    return out;
  }
  std::vector<int64_t> live_below_root() const {
    std::vector<int64_t> out = live();
    out.erase(out.begin());
    return out;
  }
  // Live groups with no task and no live child.
  std::vector<int64_t> empty_groups() const {
    std::vector<int64_t> out;
    for (int64_t g : live_below_root()) {
      bool busy = false;
      for (const auto& [t, tg] : task_) busy = busy || tg == g;
      for (size_t c = 1; c < alive_.size(); ++c) busy = busy || (alive_[c] && parent_[c] == g);
      if (!busy) out.push_back(g);
    }
    return out;
  }
  std::vector<TaskId> tasks() const {
    std::vector<TaskId> out;
    for (const auto& [t, g] : task_) out.push_back(t);
    return out;
  }
  int64_t group_of(TaskId t) const { return task_.at(t); }

  int64_t add_group(int64_t parent) {
    parent_.push_back(parent);
    alive_.push_back(true);
    return static_cast<int64_t>(alive_.size()) - 1;
  }
  void remove_group(int64_t g) { alive_[static_cast<size_t>(g)] = false; }
  TaskId add_task(int64_t g) {
    task_[next_task_] = g;
    return next_task_++;
  }
  void move_task(TaskId t, int64_t g) { task_[t] = g; }
  void remove_task(TaskId t) { task_.erase(t); }

 private:
  std::vector<int64_t> parent_;
  std::vector<bool> alive_;
  std::map<TaskId, int64_t> task_;
  TaskId next_task_ = 1;
};

template <class T>
T element(const std::vector<T>& v, uint8_t sel) {
  return v[sel % v.size()];
}

// cpu.weight, biased to the extremes and the default.
int64_t cpu_weight(ByteReader& in) {
  switch (in.u8() % 4) {
    case 0:
      return 1;
    case 1:
      return 100;
    case 2:
      return 10000;
    default:
      return 1 + static_cast<int64_t>(in.u16() % 10000);
  }
}

// Biased to tiny steps (many decisions per tick) and to long ones (lag and vruntime far apart);
// below 2^32 ns, as fuzz/op_decoder.h.
int64_t run_delta(ByteReader& in) {
  switch (in.u8() % 4) {
    case 0:
      return in.u8();
    case 1:
      return static_cast<int64_t>(in.u16()) * 16;
    case 2:
      return in.u32() % 10'000'000;
    default:
      return in.u32();
  }
}

// Near the least weight a quarter of the time, where a task's share of W is tiny.
int64_t task_weight(ByteReader& in) {
  if (in.u8() % 4 == 0) return kMinWeight + in.u8() % 16;
  return read_weight(in);
}

HierarchyOp task_op(Op op) { return {HierarchyOpKind::Task, 0, 0, 0, op}; }

HierarchyOp create_task(Tree& tree, int64_t g, int64_t weight, int64_t slice) {
  HierarchyOp o = task_op({OpKind::Create, tree.add_task(g), weight, slice});
  o.group = g;
  return o;
}

HierarchyOp create_group(Tree& tree, int64_t parent, int64_t w) {
  return {HierarchyOpKind::CreateGroup, tree.add_group(parent), parent, w, {}};
}

std::optional<HierarchyOp> decode_op(ByteReader& in, Tree& tree) {
  const uint8_t kind = in.u8() % 16;
  const uint8_t sel = in.u8();
  const std::vector<int64_t> groups = tree.live(), below = tree.live_below_root();
  const std::vector<TaskId> tasks = tree.tasks();
  const bool task_kind = kind == 2 || kind >= 5;
  // A task operation with no task, or a create with the tasks at their limit: make one or end
  // one instead.
  if (task_kind && tasks.empty()) return create_task(tree, element(groups, sel), kNice0Weight, 0);
  if (kind == 4 && tasks.size() >= kMaxHierarchyTasks) {
    const TaskId t = element(tasks, sel);
    tree.remove_task(t);
    return task_op({OpKind::Exit, t});
  }
  const TaskId t = task_kind ? element(tasks, sel) : 0;
  switch (kind) {
    case 0:
      if (below.size() >= kMaxHierarchyGroups)
        return HierarchyOp{
            HierarchyOpKind::SetCpuWeight, element(below, sel), 0, cpu_weight(in), {}};
      return create_group(tree, element(groups, sel), cpu_weight(in));
    case 1: {
      const std::vector<int64_t> empty = tree.empty_groups();
      if (empty.empty()) return std::nullopt;
      const int64_t g = element(empty, sel);
      tree.remove_group(g);
      return HierarchyOp{HierarchyOpKind::DestroyGroup, g, 0, 0, {}};
    }
    case 2: {
      if (groups.size() < 2) return std::nullopt;
      size_t i = in.u8() % groups.size();
      if (groups[i] == tree.group_of(t)) i = (i + 1) % groups.size();  // never to its own
      const int64_t to = groups[i];
      tree.move_task(t, to);
      HierarchyOp o{HierarchyOpKind::Move, to, 0, 0, {}};
      o.op.se = t;
      return o;
    }
    case 3:
      if (below.empty()) return create_group(tree, 0, cpu_weight(in));
      return HierarchyOp{HierarchyOpKind::SetCpuWeight, element(below, sel), 0, cpu_weight(in), {}};
    case 4: {
      const int64_t w = read_weight(in);
      return create_task(tree, element(groups, sel), w, read_slice(in));
    }
    case 5:
    case 6:
      return task_op({OpKind::Enqueue, t});
    case 7:
      return task_op({OpKind::Dequeue, t, 0, 0, in.u8() % 4 != 0 ? kDequeueSleep : 0u});
    case 8:
    case 9:
      return task_op({OpKind::Run, 0, run_delta(in)});
    case 10:
    case 11:
      return task_op({OpKind::Pick});
    case 12:
      return task_op({OpKind::Reweight, t, task_weight(in)});
    case 13:
      return task_op({OpKind::SetSlice, t, read_slice(in)});
    case 14:
      switch (in.u8() % 4) {
        case 0:
        case 1:
          return task_op({OpKind::Yield});
        case 2:
          return task_op({OpKind::Tick});
        default:
          tree.remove_task(t);
          return task_op({OpKind::Exit, t});
      }
    default:
      return task_op({OpKind::WakeupPreempt, t});
  }
}

}  // namespace

std::string to_string(const HierarchyOp& o) {
  const std::string g = std::to_string(o.group);
  switch (o.kind) {
    case HierarchyOpKind::CreateGroup:
      return "create-group " + g + " under " + std::to_string(o.parent) + " cpu.weight " +
             std::to_string(o.cpu_weight);
    case HierarchyOpKind::DestroyGroup:
      return "destroy-group " + g;
    case HierarchyOpKind::SetCpuWeight:
      return "cpu.weight " + g + " " + std::to_string(o.cpu_weight);
    case HierarchyOpKind::Move:
      return "move " + std::to_string(o.op.se) + " to " + g;
    case HierarchyOpKind::Task:
      break;
  }
  const std::string op = vlag::to_string(o.op);
  return o.op.kind == OpKind::Create ? op + " in " + g : op;
}

HierarchyCase decode_hierarchy_case(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  HierarchyCase c;
  read_preset(in, c.preset, c.features);
  Tree tree;
  while (!in.done() && c.ops.size() < kMaxHierarchyOps)
    if (auto o = decode_op(in, tree)) c.ops.push_back(*o);
  return c;
}

}  // namespace vlag::fuzz
