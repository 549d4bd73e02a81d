// A runqueue observer (spec/observer.h) that writes every event it sees as a trace line. The
// same template serves the reference (exact rationals) and runqueues in Linux's integer
// arithmetic (LinuxTime): both convert exactly to the trace's numbers.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

#include "spec/linux_time.h"
#include "spec/observer.h"
#include "trace/writer.h"

namespace vlag::trace {

inline Exact to_exact(const mpq_class& x) { return x; }
static_assert(sizeof(long) == sizeof(int64_t), "GMP's si functions take an int64_t");
inline Exact to_exact(int64_t x) { return Exact(static_cast<long>(x)); }
/// A Linux time as its s64 reading (spec/TRACE.md §4): the wrapped u64 times of SPEC.md §7 start
/// at −2^20 and stay within 2^63 of it, so the signed value is the unwrapped time, and
/// differences of written times equal Linux's wrapped differences.
inline Exact to_exact(LinuxTime x) { return to_exact(x.value()); }

/// The names of the tasks a producer knows (comm), for the `name` of their `new` and `attach`
/// lines; empty: no name.
using TaskNames = std::function<std::string(TaskId)>;

/// The trace event for one step of a runqueue, with every state field the runqueue reported.
template <class Num>
Event trace_event(const vlag::StepReport<Num>& ev, const TaskNames& names = {}) {
  Event e;
  e.t = ev.now;
  e.rq = ev.rq;
  const Op& op = ev.op;
  e.kind = event_kind_of(op);
  set_op_arguments(e, op);
  const bool about_curr = op.kind == OpKind::Pick || op.kind == OpKind::Run ||
                          op.kind == OpKind::Tick || op.kind == OpKind::Yield;
  // The entity: the one named, the picked one, or (run, tick, yield) the running one.
  std::optional<EntityId> se = op.kind == OpKind::Pick ? ev.picked
                               : about_curr            ? std::nullopt
                                                       : std::optional<EntityId>(op.se);
  if (op.kind == OpKind::WakeupPreempt) e.preempt = ev.preempt;
  std::optional<TaskId> task = se;  // a task's entity unless the runqueue says otherwise
  if (ev.entity) {
    const EntityState<Num>& s = *ev.entity;
    if (!se) se = s.se;
    if (s.se == *se) task = s.task;
    e.state.weight = s.weight;
    e.state.slice = s.slice;
    e.state.vruntime = to_exact(s.vruntime);
    e.state.deadline = to_exact(s.deadline);
    e.state.vlag = to_exact(s.vlag);
    e.state.eligible = s.eligible;
    e.state.status = s.status;
    e.state.running = s.running;
  }
  e.task = task;
  if (se && se != task) e.se = se;
  if (task && names && (e.kind == EventKind::New || e.kind == EventKind::Attach))
    e.name = names(*task);
  e.V = to_exact(ev.V);
  e.W = ev.W;
  e.nr_queued = ev.nr_queued;
  return e;
}

/// Takes a runqueue's events in the trace's own form, as they happen: what a trace file would
/// hold, for consumers that want the numbers without writing and reading the text.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& e) = 0;
};

/// Hands every event of one CPU's runqueue to a sink as its trace event, with that CPU's number
/// in the event's `cpu` field (spec/TRACE.md), so one sink can take a whole machine.
template <class Num>
class SinkObserver final : public Observer<Num> {
 public:
  SinkObserver(EventSink& sink, int cpu, TaskNames names = {})
      : sink_(sink), cpu_(cpu), names_(std::move(names)) {}
  void on_step(const vlag::StepReport<Num>& ev) override {
    Event e = trace_event(ev, names_);
    e.cpu = cpu_;
    sink_.on_event(e);
  }

 private:
  EventSink& sink_;
  int cpu_;
  TaskNames names_;
};

template <class Num>
class TraceObserver : public Observer<Num> {
 public:
  /// The header's "arith" is the observer's own: Linux integers when Num is LinuxTime.
  /// `names`: the tasks' names for their `new` and `attach` lines (none: no names written).
  TraceObserver(std::ostream& out, Header header, TaskNames names = {})
      : writer_(out), names_(std::move(names)) {
    header.arith = std::is_same_v<Num, LinuxTime> ? Arith::Linux64 : Arith::Exact;
    writer_.header(header);
  }
  void on_step(const vlag::StepReport<Num>& ev) override { writer_.event(trace_event(ev, names_)); }

 private:
  Writer writer_;
  TaskNames names_;
};

}  // namespace vlag::trace
