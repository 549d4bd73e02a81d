#include "kernel/import.h"

#include <algorithm>

#include "spec/features.h"
#include "spec/weights.h"

namespace vlag::kernel {
namespace {

bool fair_prio(std::optional<int> prio) { return prio && *prio >= 100 && *prio <= 139; }

}  // namespace

void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelImportOptions& options) {
  options.slice_of.merge(custom_slices(snap));
}

KernelImporter::KernelImporter(trace::Writer& out, const KernelImportOptions& options,
                               const std::string& source)
    : out_(out), options_(options) {
  trace::Header h;
  h.producer = "linux sched tracepoints, cpu " + std::to_string(options.cpu) + " of " + source;
  h.params = make_params(preset_by_name(kNewestLinuxPreset), options.hz, 1);
  out_.header(h);
}

void KernelImporter::emit(trace::Event ev) {
  ev.t = std::max(ev.t, last_t_);  // records of other CPUs may trail by a few ns
  last_t_ = ev.t;
  out_.event(ev);
  ++written_;
}

// A fair task seen for the first time on this CPU: `new`, with its weight and slice.
void KernelImporter::ensure_known(int64_t pid, int prio, int64_t t) {
  if (tasks_.count(pid)) {
    if (prio_[pid] != prio) {
      trace::Event ev;
      ev.kind = trace::EventKind::Reweight;
      ev.t = t;
      ev.task = pid;
      ev.weight = nice_to_weight(prio - 120);
      emit(ev);
      prio_[pid] = prio;
    }
    return;
  }
  trace::Event ev;
  ev.kind = trace::EventKind::New;
  ev.t = t;
  ev.task = pid;
  ev.weight = nice_to_weight(prio - 120);
  const auto s = options_.slice_of.find(pid);
  ev.slice = s == options_.slice_of.end() ? 0 : s->second;
  emit(ev);
  tasks_[pid] = Where::Sleeping;
  prio_[pid] = prio;
}

void KernelImporter::arrive(int64_t pid, int prio, int64_t t) {
  ensure_known(pid, prio, t);
  if (tasks_[pid] != Where::Sleeping) return;
  trace::Event ev;
  ev.kind = trace::EventKind::Wakeup;
  ev.t = t;
  ev.task = pid;
  emit(ev);
  tasks_[pid] = Where::Queued;
}

void KernelImporter::on_event(const KernelEvent& e) {
  const int c = options_.cpu;
  switch (e.kind) {
    case KernelEventKind::Wakeup:
    case KernelEventKind::WakeupNew:
      if (fair_prio(e.prio) && e.target_cpu.value_or(e.cpu) == c) arrive(e.pid, *e.prio, e.time_ns);
      break;
    case KernelEventKind::Migrate: {
      const auto it = tasks_.find(e.pid);
      if (e.orig_cpu == c && it != tasks_.end() && it->second == Where::Queued) {
        trace::Event ev;  // leaves this runqueue without sleeping (SPEC.md §4.7)
        ev.kind = trace::EventKind::Dequeue;
        ev.t = e.time_ns;
        ev.task = e.pid;
        emit(ev);
        it->second = Where::Sleeping;
      }
      break;
    }
    case KernelEventKind::Switch: {
      if (e.cpu != c) break;
      if (fair_prio(e.prev_prio) && tasks_.count(e.prev_pid))
        ensure_known(e.prev_pid, *e.prev_prio, e.time_ns);  // a nice change while it ran
      const auto prev = tasks_.find(e.prev_pid);
      if (prev != tasks_.end() && prev->second == Where::Running) {
        const char st = e.prev_state.empty() ? 'R' : e.prev_state[0];
        prev->second = Where::Queued;
        if (st != 'R') {
          trace::Event ev;
          ev.kind = trace::EventKind::Sleep;
          ev.t = e.time_ns;
          ev.task = e.prev_pid;
          emit(ev);
          prev->second = Where::Sleeping;
          if (st == 'Z' || st == 'X') {
            ev.kind = trace::EventKind::Exit;
            emit(ev);
            tasks_.erase(prev);
          }
        }
      }
      trace::Event pick;
      pick.kind = trace::EventKind::Pick;
      pick.t = e.time_ns;
      if (fair_prio(e.prio) && e.pid != 0) {
        arrive(e.pid, *e.prio, e.time_ns);  // a task running at the trace's start has no wakeup
        pick.task = e.pid;
        tasks_[e.pid] = Where::Running;
      }
      emit(pick);
      break;
    }
    case KernelEventKind::Exit:
    case KernelEventKind::Waking:
    case KernelEventKind::Fork:
    case KernelEventKind::StatRuntime:
      break;
  }
}

}  // namespace vlag::kernel
