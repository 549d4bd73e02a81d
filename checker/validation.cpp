#include "checker/validation.h"

#include <fmt/format.h>

namespace vlag::checker {

using trace::EventKind;
using trace::Fault;

void fault(const TracePosition& at, Fault f, const std::string& field, const std::string& what) {
  throw trace::InputError(f, at.file, at.line, field, what);
}

namespace {

// What the event needs of the entity it names (a task's, or an `se`) and of curr.
void validate_entity(const trace::Event& e, const View& view, const TracePosition& at) {
  const std::optional<EntityId> se = e.entity();
  const EntityId id = se.value_or(0);
  // The entity is looked up for the events that ask about it (not for a run, the most frequent).
  const bool about_running =
      e.kind == EventKind::Run || e.kind == EventKind::Tick || e.kind == EventKind::Yield;
  const ViewEntity* v = se && !about_running ? view.find(id) : nullptr;
  const bool task_entity = !e.se || e.se == e.task;
  // Named only in a fault's message: built then, not at every event.
  const auto who = [&] { return (task_entity ? "task " : "entity ") + std::to_string(id); };
  const char* field = task_entity ? "task" : "se";
  switch (e.kind) {
    case EventKind::Attach:
      if (v) fault(at, Fault::TraceFault, field, who() + " migrates in while it is here already");
      if (!e.state.vlag)
        fault(at, Fault::Malformed, "vlag",
              "missing (required by \"attach\": the saved lag it brings)");
      return;
    case EventKind::New:
      if (v) fault(at, Fault::TraceFault, field, who() + " is created twice");
      if (e.weight == 0)
        fault(at, Fault::Malformed, "weight",
              "unknown (null): only parameter inference (vlag check --infer) takes such traces");
      return;
    case EventKind::Entity:
      if (!at.window || at.index != static_cast<int64_t>(view.entities().size()))
        fault(at, Fault::TraceFault, "ev",
              "entity lines belong at the start of a window (header \"window\":true)");
      for (const auto& [field, present] :
           {std::pair{"w", e.state.weight.has_value()}, std::pair{"r", e.state.slice.has_value()},
            std::pair{"v", e.state.vruntime.has_value()},
            std::pair{"d", e.state.deadline.has_value()},
            std::pair{"status", e.state.status.has_value()}})
        if (!present) fault(at, Fault::Malformed, field, "missing (required by \"entity\")");
      return;
    case EventKind::Migrate:
      fault(at, Fault::TraceFault, "to", "a migration in a one-CPU trace");
    case EventKind::Run:
    case EventKind::Tick:
    case EventKind::Yield:
      if (e.kind == EventKind::Yield && !view.curr)
        fault(at, Fault::TraceFault, "ev", "yield while no task runs");
      if (se && se != view.curr)
        fault(at, Fault::TraceFault, field,
              who() + " is named as running, but the last pick chose " +
                  (view.curr ? "task " + std::to_string(*view.curr) : "idle") +
                  " (a pick is missing or wrong)");
      return;
    case EventKind::Pick:
      if (!se) return;
      if (!v || v->status == Status::Sleeping)
        fault(at, Fault::NotRunnable, field,
              "pick of " + who() + ", which is not runnable" +
                  (v             ? " (it sleeps: a wakeup is missing?)"
                   : task_entity ? " (no such task)"
                                 : " (no such entity)"));
      return;
    default:
      break;
  }
  if (!v)
    fault(at, Fault::TraceFault, field,
          who() + " appears without its \"new\" event (a truncated start or a lost event)");
  switch (e.kind) {
    case EventKind::Wakeup:
      if (v->status == Status::Queued)
        fault(at, Fault::TraceFault, field, who() + " wakes up while queued (a sleep is missing?)");
      return;
    case EventKind::Sleep:
    case EventKind::Dequeue:
      if (v->status != Status::Queued)
        fault(at, Fault::TraceFault, field, who() + " is dequeued while not queued");
      return;
    case EventKind::Exit:
      if (v->status != Status::Sleeping)
        fault(at, Fault::TraceFault, field, who() + " exits while still queued");
      return;
    case EventKind::Detach:
      if (v->status != Status::Sleeping)
        fault(at, Fault::TraceFault, field, who() + " migrates out while still queued");
      return;
    case EventKind::Put:
      if (view.curr != id)
        fault(at, Fault::TraceFault, field,
              who() + " is put back while it does not run (a pick is missing or wrong)");
      return;
    case EventKind::Preempt:
      if (v->status != Status::Queued || view.curr == id)
        fault(at, Fault::TraceFault, field,
              "wakeup preemption by " + who() + ", which is not a queued wakee");
      return;
    default:
      return;
  }
}

}  // namespace

void validate(const trace::Event& e, const View& view, const TracePosition& at) {
  validate_entity(e, view, at);
  if (e.kind == EventKind::Run && e.t - e.delta < at.now)
    fault(at, Fault::TimeBackwards, "delta",
          fmt::format("a run of {} ns ending at t={} starts before the previous event (t={})",
                      e.delta, e.t, at.now));
}

}  // namespace vlag::checker
