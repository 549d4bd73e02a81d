// The trace of a CPU's hierarchy of task groups (reference/hierarchy.h; spec/TRACE.md §7): a
// `runqueue` line before each group runqueue's first event, and each step of each level as its
// event, a group entity's `new` naming its group. Header-only, for the producers of hierarchy
// traces (`vlag sim --cgroup`, `vlag prove --groups`), which link the reference and the trace
// libraries both.
#pragma once

#include <ostream>
#include <set>
#include <utility>

#include "reference/hierarchy.h"
#include "trace/observer.h"
#include "trace/writer.h"

namespace vlag::trace {

/// The trace events of a hierarchy's reports.
struct HierarchyEvents {
  const reference::TaskGroups& groups;
  Event declaration(const reference::RunqueueDeclaration& d) const {
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
  template <class Num>
  Event step(const StepReport<Num>& r, const TaskNames& names) const {
    Event e = trace_event(r, names);
    if (e.kind == EventKind::New && e.se && reference::is_group_entity(*e.se))
      e.group = groups.group(reference::group_of_entity(*e.se)).path;
    return e;
  }
};

/// Writes a hierarchy's reports as a trace: the header first, then every event as it comes.
template <class Num>
struct HierarchyWriter final : reference::HierarchyObserver<Num> {
  HierarchyWriter(std::ostream& out, const Header& h, TaskNames n, const reference::TaskGroups& g)
      : writer(out), names(std::move(n)), events{g} {
    writer.header(h);
  }
  /// The group's cpu.weight was written: the next reweight of its entity, which carries the new
  /// shares (now, or at the enqueue that fills an empty runqueue), names the group (TRACE.md §7).
  void shares_written(reference::GroupId g) { written.insert(reference::group_entity_id(g)); }
  void on_runqueue(const reference::RunqueueDeclaration& d) override {
    writer.event(events.declaration(d));
  }
  void on_step(const StepReport<Num>& r) override {
    Event e = events.step(r, names);
    if (e.kind == EventKind::Reweight && e.se && written.erase(*e.se))
      e.group = events.groups.group(reference::group_of_entity(*e.se)).path;
    writer.event(e);
  }
  Writer writer;
  TaskNames names;
  HierarchyEvents events;
  std::set<EntityId> written;  // group entities whose group's cpu.weight was written since
};

}  // namespace vlag::trace
