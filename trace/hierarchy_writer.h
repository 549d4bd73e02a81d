// The trace of a CPU's hierarchy of task groups (reference/hierarchy.h; spec/TRACE.md §7): a
// `runqueue` line before each group runqueue's first event, and each step of each level as its
// event, a group entity's `new` naming its group. Templates over the hierarchy's observer and
// declaration types, which the producers (`vlag sim --cgroup`, `vlag prove --groups`) supply:
// trace/ stays below reference/.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>

#include "trace/observer.h"
#include "trace/writer.h"

namespace vlag::trace {

/// The path of the task group whose entity `se` is; nullopt for a task's entity.
using GroupPath = std::function<std::optional<std::string>(EntityId se)>;

/// A group runqueue's declaration (reference::RunqueueDeclaration) as its `runqueue` line.
template <class Declaration>
Event declaration_event(const Declaration& d) {
  Event e;
  e.t = d.t;
  e.kind = EventKind::Runqueue;
  e.rq = d.rq;
  e.cpu = d.cpu;
  e.group = d.group;
  e.parent = d.parent;
  e.se = d.se;
  return e;
}

/// A level's step as its event; a group entity's `new` names its group.
template <class Num>
Event hierarchy_step_event(const StepReport<Num>& r, const TaskNames& names,
                           const GroupPath& path) {
  Event e = trace_event(r, names);
  if (e.kind == EventKind::New && e.se)
    if (const auto p = path(*e.se)) e.group = *p;
  return e;
}

/// Writes a hierarchy's reports as a trace: the header first, then every event as it comes.
/// Observer: reference::HierarchyObserver<Num>.
template <class Num, class Observer>
struct HierarchyWriter final : Observer {
  HierarchyWriter(std::ostream& out, const Header& h, TaskNames n, GroupPath p)
      : writer(out), names(std::move(n)), path(std::move(p)) {
    writer.header(h);
  }
  /// The cpu.weight of the group whose entity is `se` was written: the next reweight of that
  /// entity, which carries the new shares (now, or at the enqueue that fills an empty
  /// runqueue), names the group (TRACE.md §7).
  void shares_written(EntityId se) { written.insert(se); }
  void on_runqueue(const typename Observer::Declaration& d) override {
    writer.event(declaration_event(d));
  }
  void on_step(const StepReport<Num>& r) override {
    Event e = hierarchy_step_event(r, names, path);
    if (e.kind == EventKind::Reweight && e.se && written.erase(*e.se))
      if (const auto p = path(*e.se)) e.group = *p;
    writer.event(e);
  }
  Writer writer;
  TaskNames names;
  GroupPath path;
  std::set<EntityId> written;  // group entities whose group's cpu.weight was written since
};

}  // namespace vlag::trace
