// One CPU's exact hierarchy (hierarchy_invariants.h's Hierarchy) driven by the operations of a
// two-level schedule as `vlag prove --groups` writes them (smt/detail/group_system.cpp): a
// group entity's Create makes its group (in order, shares in `a`), a task's Create names its
// group in `rq`, a group entity's Reweight is a write of the group's cpu.weight (§10.1); every
// other operation is the hierarchy's own (Hierarchy::apply).
#pragma once

#include <functional>
#include <string>

#include "reference/hierarchy_invariants.h"
#include "spec/error.h"

namespace vlag::reference {

class GroupDriver {
 public:
  explicit GroupDriver(const Params& params) : groups_(1), h_(params, groups_) {}

  /// `written`: told of a cpu.weight write before the hierarchy applies it (a trace marks it).
  void apply(const Op& op, const std::function<void(GroupId)>& written = {}) {
    if (op.kind == OpKind::Create && is_group_entity(op.se)) {
      const GroupId g = group_of_entity(op.se);
      if (groups_.add("/g" + std::to_string(g), op.a) != g)
        throw Error("group driver: groups are created in the order of their ids");
      return;
    }
    if (op.kind == OpKind::Reweight && is_group_entity(op.se)) {
      const GroupId g = group_of_entity(op.se);
      if (written) written(g);
      groups_.set_shares(g, op.a);
      h_.shares_changed(g);
      return;
    }
    h_.apply(op, op.rq);
  }

  Hierarchy& hierarchy() { return h_; }
  const Hierarchy& hierarchy() const { return h_; }
  const TaskGroups& groups() const { return groups_; }

 private:
  TaskGroups groups_;
  Hierarchy h_;
};

}  // namespace vlag::reference
