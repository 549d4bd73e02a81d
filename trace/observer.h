// A runqueue observer (spec/observer.h) that writes every event it sees as a trace line. The
// same template serves the reference (exact rationals) and runqueues in Linux's integer
// arithmetic (LinuxTime): both convert exactly to the trace's numbers.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <type_traits>

#include "spec/linux_time.h"
#include "spec/observer.h"
#include "trace/writer.h"

namespace vlag::trace {

inline Exact to_exact(const mpq_class& x) { return x; }
inline Exact to_exact(int64_t x) { return Exact(mpz_class(std::to_string(x))); }
/// A Linux time as its s64 reading (spec/TRACE.md §4): the wrapped u64 times of SPEC.md §7 start
/// at −2^20 and stay within 2^63 of it, so the signed value is the unwrapped time, and
/// differences of written times equal Linux's wrapped differences.
inline Exact to_exact(LinuxTime x) { return to_exact(x.value()); }

/// The trace event for one runqueue event, with every state field the runqueue reported.
template <class Num>
Event trace_event(const vlag::Event<Num>& ev) {
  Event e;
  e.t = ev.now;
  const Op& op = ev.op;
  if (op.kind != OpKind::Pick && op.kind != OpKind::Run && op.kind != OpKind::Tick &&
      op.kind != OpKind::Yield)
    e.task = op.id;
  switch (op.kind) {
    case OpKind::Create:
      e.kind = EventKind::New;
      e.weight = op.a;
      e.slice = op.b;
      break;
    case OpKind::Exit:
      e.kind = EventKind::Exit;
      break;
    case OpKind::Enqueue:
      e.kind = EventKind::Wakeup;
      break;
    case OpKind::Dequeue:
      e.kind = (op.flags & kDequeueSleep) ? EventKind::Sleep : EventKind::Dequeue;
      break;
    case OpKind::Pick:
      e.kind = EventKind::Pick;
      e.task = ev.picked;
      break;
    case OpKind::Run:
      e.kind = EventKind::Run;
      e.delta = op.a;
      break;
    case OpKind::Tick:
      e.kind = EventKind::Tick;
      break;
    case OpKind::Reweight:
      e.kind = EventKind::Reweight;
      e.weight = op.a;
      break;
    case OpKind::SetSlice:
      e.kind = EventKind::Slice;
      e.slice = op.a;
      break;
    case OpKind::Yield:
      e.kind = EventKind::Yield;
      break;
    case OpKind::WakeupPreempt:
      e.kind = EventKind::Preempt;
      e.preempt = ev.preempt;
      break;
    case OpKind::Detach:
      e.kind = EventKind::Detach;
      break;
    case OpKind::Attach:
      e.kind = EventKind::Attach;
      e.weight = op.a;
      e.slice = op.b;
      break;
  }
  if (ev.entity) {
    const EntityState<Num>& s = *ev.entity;
    if (!e.task) e.task = s.id;  // run/tick/yield: the running task
    e.state.weight = s.weight;
    e.state.slice = s.slice;
    e.state.vruntime = to_exact(s.vruntime);
    e.state.deadline = to_exact(s.deadline);
    e.state.vlag = to_exact(s.vlag);
    e.state.eligible = s.eligible;
    e.state.status = s.status;
    e.state.running = s.running;
  }
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
  SinkObserver(EventSink& sink, int cpu) : sink_(sink), cpu_(cpu) {}
  void on_event(const vlag::Event<Num>& ev) override {
    Event e = trace_event(ev);
    e.cpu = cpu_;
    sink_.on_event(e);
  }

 private:
  EventSink& sink_;
  int cpu_;
};

template <class Num>
class TraceObserver : public Observer<Num> {
 public:
  /// The header's "arith" is the observer's own: Linux integers when Num is LinuxTime.
  TraceObserver(std::ostream& out, Header header) : writer_(out) {
    header.arith = std::is_same_v<Num, LinuxTime> ? Arith::Linux64 : Arith::Exact;
    writer_.header(header);
  }
  void on_event(const vlag::Event<Num>& ev) override { writer_.event(trace_event(ev)); }

 private:
  Writer writer_;
};

}  // namespace vlag::trace
