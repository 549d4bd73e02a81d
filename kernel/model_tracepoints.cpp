#include "kernel/model_tracepoints.h"

#include <fmt/format.h>

namespace vlag::kernel {

const std::string& ModelTracepoints::name_of(int64_t pid) const {
  static const std::string kIdle = "idle";
  if (pid == 0) return kIdle;
  const auto it = names_.find(pid);
  static const std::string kNone;
  return it == names_.end() ? kNone : it->second;
}

KernelEvent ModelTracepoints::event(const trace::Event& e, int line, KernelEventKind kind,
                                    int64_t pid, int64_t current) const {
  KernelEvent k;
  k.line = line;
  k.time_ns = e.t;
  k.cpu = e.cpu;
  k.current_pid = current;
  k.kind = kind;
  k.pid = pid;
  k.comm = name_of(pid);
  return k;
}

void ModelTracepoints::on_event(const trace::Event& e, int line) {
  using trace::EventKind;
  // An event about a group entity (its own se, no task or another one) is no task's.
  if (e.se && (!e.task || *e.se != *e.task)) return;
  const int64_t pid = e.task.value_or(0);
  Cpu& cpu = cpus_[e.cpu];
  switch (e.kind) {
    case EventKind::New:
    case EventKind::Attach:
      names_[pid] = e.name.empty() ? fmt::format("task {}", pid) : e.name;
      return;
    case EventKind::Wakeup: {
      const bool first = woken_.insert(pid).second;
      KernelEvent k = event(e, line, first ? KernelEventKind::WakeupNew : KernelEventKind::Wakeup,
                            pid, cpu.curr);
      k.target_cpu = e.cpu;
      sink_(k);
      return;
    }
    case EventKind::Sleep:
      if (cpu.curr == pid) cpu.leave = PrevState::Blocked;
      return;
    case EventKind::Exit:
      if (cpu.curr == pid) cpu.leave = PrevState::Dead;
      return;
    case EventKind::Detach:
      left_(pid);
      return;
    case EventKind::Migrate: {
      KernelEvent k = event(e, line, KernelEventKind::Migrate, pid, cpu.curr);
      k.orig_cpu = e.cpu;
      k.dest_cpu = e.to_cpu;
      sink_(k);
      return;
    }
    case EventKind::Pick: {
      if (pid == cpu.curr && cpu.leave == PrevState::Runnable) return;  // picked again
      KernelEvent k = event(e, line, KernelEventKind::Switch, pid, cpu.curr);
      k.prev_pid = cpu.curr;
      k.prev_comm = name_of(cpu.curr);
      k.prev_leave = cpu.curr == 0 ? PrevState::Runnable : cpu.leave;
      const char state = k.prev_leave == PrevState::Blocked ? 'S'
                         : k.prev_leave == PrevState::Dead  ? 'X'
                                                            : 'R';
      k.prev_state.assign(1, state);
      sink_(k);
      cpu.curr = pid;
      cpu.leave = PrevState::Runnable;
      return;
    }
    default:
      return;
  }
}

}  // namespace vlag::kernel
