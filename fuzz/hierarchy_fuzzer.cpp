// Fuzz target: the per-level promises of SPEC.md §10 on random hierarchies of task groups. Bytes
// decode (fuzz/hierarchy_decoder.h) to a Linux preset with any feature flags and a sequence of
// group and task operations on one CPU: groups created and destroyed, tasks moved between them,
// cpu.weight written, tasks created, enqueued, dequeued, run, picked, reweighted and so on. The
// operations run on the exact hierarchy, where every promised §6 ID is judged on every runqueue
// operation (the hierarchy's step hook), and after every hierarchy operation every §6 state ID
// on every runqueue, INV-GROUP-QUEUED and INV-GROUP-SHARES (also in its one-CPU form, w = S_G at
// every state, which a missed cpu.weight write breaks); and side by side on the hierarchy of
// LinuxRunqueue and that of the optimized runqueue, which must accept and reject alike and leave
// bit-identical state on every runqueue. Anything else aborts with the case and what broke.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/hierarchy_decoder.h"
#include "fuzz/op_decoder.h"
#include "optimized/differential.h"
#include "optimized/runqueue.h"
#include "reference/hierarchy_invariants.h"
#include "spec/error.h"

namespace {

using namespace vlag;
using fuzz::HierarchyOp;
using fuzz::HierarchyOpKind;
using reference::GroupId;

[[noreturn]] void fail(const fuzz::HierarchyCase& c, size_t at, const HierarchyOp& step,
                       const std::string& what) {
  std::fprintf(stderr, "hierarchy_fuzzer: %s [%s]: operation %zu (%s): %s: %s\n", c.preset.c_str(),
               c.features.c_str(), at, to_string(c.ops[at]).c_str(), to_string(step).c_str(),
               what.c_str());
  std::abort();
}

// One CPU of a machine: its task groups (with this CPU's loads) and its hierarchy.
template <class Rq>
struct Machine {
  explicit Machine(const Params& p) : h(p, groups) {}
  reference::TaskGroups groups{1};
  reference::BasicHierarchy<Rq> h;
};

// "accepted", or "rejected: " and why; an operation is rejected before any runqueue changes.
template <class Rq>
std::string apply(Machine<Rq>& m, const HierarchyOp& o) {
  try {
    switch (o.kind) {
      case HierarchyOpKind::CreateGroup: {
        const std::string base =
            o.parent == reference::kRootGroup ? "" : m.groups.group(o.parent).path;
        const GroupId g = m.groups.add(base + "/g" + std::to_string(o.group),
                                       reference::cgroup_weight_to_shares(o.cpu_weight));
        if (g != o.group)  // the decoder's record of the tree is wrong: not the model's fault
          throw std::logic_error("hierarchy decoder: group " + std::to_string(g) + " made, " +
                                 std::to_string(o.group) + " expected");
        break;
      }
      case HierarchyOpKind::DestroyGroup:
        m.h.destroy_runqueue(o.group);
        m.groups.remove(o.group);
        break;
      case HierarchyOpKind::SetCpuWeight:
        m.groups.set_shares(o.group, reference::cgroup_weight_to_shares(o.cpu_weight));
        m.h.shares_changed(o.group);
        break;
      case HierarchyOpKind::Move:
        m.h.move(o.op.se, o.group);
        break;
      case HierarchyOpKind::Task:
        m.h.apply(o.op, o.group);
        break;
    }
    return "accepted";
  } catch (const Error& e) {
    return std::string("rejected: ") + e.what();
  }
}

HierarchyOp task_step(OpKind kind, TaskId t, uint32_t flags = 0) {
  HierarchyOp o;
  o.op = {kind, t, 0, 0, flags};
  return o;
}

// The first task from `hint` on (in id order, wrapping) that `fits`, if any.
template <class Fits>
std::optional<TaskId> retarget(const reference::Hierarchy& h, TaskId hint, Fits fits) {
  std::vector<TaskId> tasks;
  for (const auto& [t, g] : h.task_groups()) tasks.push_back(t);
  std::sort(tasks.begin(), tasks.end());
  const auto from = std::lower_bound(tasks.begin(), tasks.end(), hint) - tasks.begin();
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskId t = tasks[(static_cast<size_t>(from) + i) % tasks.size()];
    if (fits(h.status(t), t)) return t;
  }
  return std::nullopt;
}

// The steps that carry out `o` in the exact hierarchy's state: an operation that needs a task
// in some state goes to the next task in it (or is dropped), and a task that exits or moves is
// first brought to a state that allows it (a delayed one enqueued again, a queued one dequeued).
std::vector<HierarchyOp> resolve(const reference::Hierarchy& h, const HierarchyOp& o) {
  if (o.kind != HierarchyOpKind::Task && o.kind != HierarchyOpKind::Move) return {o};
  const TaskId t = o.op.se;
  // A task whose create was refused (ids start at 1; 0 names none): the hierarchy refuses this.
  if (t != 0 && !h.has_task(t)) return {o};
  const auto with = [&](std::optional<TaskId> to) -> std::vector<HierarchyOp> {
    if (!to) return {};
    HierarchyOp r = o;
    r.op.se = *to;
    return {r};
  };
  switch (o.kind == HierarchyOpKind::Move ? OpKind::Exit : o.op.kind) {
    case OpKind::Enqueue:
      return with(retarget(h, t, [](Status s, TaskId) { return s != Status::Queued; }));
    case OpKind::Dequeue:
      return with(retarget(h, t, [](Status s, TaskId) { return s == Status::Queued; }));
    case OpKind::WakeupPreempt:
      return with(
          retarget(h, t, [&](Status s, TaskId k) { return s == Status::Queued && h.curr() != k; }));
    case OpKind::Yield:
      if (!h.curr()) return {};
      return {o};
    case OpKind::Exit: {  // and Move
      std::vector<HierarchyOp> steps;
      const Status s = h.status(t);
      if (s == Status::Delayed) steps.push_back(task_step(OpKind::Enqueue, t));
      if (o.kind == HierarchyOpKind::Task && s != Status::Sleeping)
        steps.push_back(task_step(OpKind::Dequeue, t));
      steps.push_back(o);
      return steps;
    }
    default:
      return {o};
  }
}

std::string first(const std::vector<reference::Violation>& v) {
  return v.front().id + ": " + v.front().detail;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::HierarchyCase c = fuzz::decode_hierarchy_case(data, size);
  const Params params = fuzz::preset_params(c.preset, c.features);
  Machine<reference::Runqueue> exact(params);
  Machine<reference::LinuxRunqueue> linux(params);
  Machine<optimized::Runqueue> opt(params);
  std::string step_failure;
  // The judge's own record of each runqueue's operations (INV-NEXT-BUDDY tells a new task's
  // first enqueue by it); a task that moves away leaves its old runqueue's record as a detach.
  std::map<GroupId, reference::History> history;
  exact.h.set_step_hook(
      [&](const reference::Runqueue& before, const Op& op, const reference::Runqueue& after) {
        const auto v =
            reference::promised_only(reference::check_step(before, op, after, &history[op.rq]));
        history[op.rq].saw(op);
        if (!v.empty() && step_failure.empty())
          step_failure = "rq " + std::to_string(op.rq) + " " + to_string(op) + ": " + first(v);
      });
  for (size_t i = 0; i < c.ops.size(); ++i) {
    for (const HierarchyOp& step : resolve(exact.h, c.ops[i])) {
      exact.h.clear_shares_updated();
      const bool moves = step.kind == HierarchyOpKind::Move && exact.h.has_task(step.op.se);
      const GroupId from = moves ? exact.h.group_of(step.op.se) : reference::kRootGroup;
      if (apply(exact, step) == "accepted" && moves)
        history[from].saw({OpKind::Detach, step.op.se});
      if (!step_failure.empty()) fail(c, i, step, step_failure);
      if (const auto v = reference::promised_only(reference::check_hierarchy_state(exact.h));
          !v.empty())
        fail(c, i, step, first(v));
      if (const auto v = reference::check_group_shares(exact.h); !v.empty())
        fail(c, i, step, first(v));
      if (const auto v = reference::check_one_cpu_shares(exact.h); !v.empty())
        fail(c, i, step, first(v));

      const std::string a = apply(linux, step), b = apply(opt, step);
      if (a != b) fail(c, i, step, "LinuxRunqueue " + a + ", optimized " + b);
      if (linux.h.curr() != opt.h.curr()) fail(c, i, step, "the running tasks differ");
      if (linux.h.runqueues() != opt.h.runqueues()) fail(c, i, step, "the runqueues differ");
      for (GroupId g : linux.h.runqueues())
        if (const auto d = optimized::state_difference(linux.h.runqueue(g), opt.h.runqueue(g)))
          fail(c, i, step, "rq " + std::to_string(g) + ": " + *d);
    }
  }
  return 0;
}
