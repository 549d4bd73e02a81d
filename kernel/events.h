// Linux scheduler tracepoints as parsed from text (`perf script`, `trace-cmd report`): one
// KernelEvent per line, in the order of the file. Times are exact ns, as printed. What the
// kernel service layer (SPEC.md §6.2) and the import to spec/TRACE.md consume.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vlag::kernel {

enum class KernelEventKind : uint8_t {
  Switch,       // sched_switch: prev → next on `cpu`
  Wakeup,       // sched_wakeup: pid becomes runnable on target_cpu
  WakeupNew,    // sched_wakeup_new: a new task's first wakeup
  Waking,       // sched_waking: the wakeup starts (before placement)
  Migrate,      // sched_migrate_task: pid moves orig_cpu → dest_cpu
  Exit,         // sched_process_exit
  Fork,         // sched_process_fork: parent pid forks child_pid
  StatRuntime,  // sched_stat_runtime: pid ran `runtime` ns
};

/// How sched_switch's previous task left the CPU (its prev_state, SPEC.md §6.2).
enum class PrevState : uint8_t {
  Runnable,   // "R": still runnable (preempted at a tick or by a wakeup)
  Preempted,  // "R+": preempted inside the kernel, possibly between setting a sleep state and
              // calling schedule() — a wakeup may follow while it is still queued
  Blocked,    // "S", "D", "I", …: it sleeps
  Dead,       // "Z", "X": it exited
};

struct KernelEvent {
  int line = 0;
  int64_t time_ns = 0;
  int cpu = 0;  // the CPU that recorded the event
  // The task running on that CPU when it was recorded (the header's tid: perf's "pid/tid" or
  // trace-cmd's "comm-pid"; perf's bare pid is a process id, so it is not taken).
  std::optional<int64_t> current_pid;
  KernelEventKind kind = KernelEventKind::Switch;
  std::string comm;  // the task the event is about (switch: next)
  int64_t pid = 0;
  std::optional<int> prio;
  // sched_switch
  std::string prev_comm;
  int64_t prev_pid = 0;
  std::optional<int> prev_prio;
  std::string prev_state;  // "R", "S", "D", "R+", … as printed
  PrevState prev_leave = PrevState::Runnable;
  // wakeup / migrate
  std::optional<int> target_cpu;
  std::optional<int> orig_cpu;
  std::optional<int> dest_cpu;
  // fork
  int64_t child_pid = 0;
  std::string child_comm;
  // stat_runtime
  std::optional<int64_t> runtime_ns;
};

}  // namespace vlag::kernel
