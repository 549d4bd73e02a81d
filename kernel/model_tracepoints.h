// A model trace (spec/TRACE.md) as the tracepoints a kernel running it would have recorded, so
// that the streams written for real kernel traces (kernel/worst_wakeups.h: the worst wakeups one
// by one) run on the model's traces as well: a pick that changes a CPU's task is a
// sched_switch, whose previous task left as the model says (runnable, asleep or exited); a
// wakeup a sched_wakeup (sched_wakeup_new for a task's first); a migration a
// sched_migrate_task. A pick of the task already running records nothing, as in the kernel.
// Picks of group entities are not task switches and are left out. A detach (the task leaves for
// another CPU's trace, §4.13) has no tracepoint here: the sink's `left` hears of it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "kernel/events.h"
#include "trace/event.h"

namespace vlag::kernel {

class ModelTracepoints {
 public:
  ModelTracepoints(std::function<void(const KernelEvent&)> sink,
                   std::function<void(int64_t pid)> left)
      : sink_(std::move(sink)), left_(std::move(left)) {}

  /// The trace's events in order; `line` is the event's line in its file.
  void on_event(const trace::Event& e, int line);

 private:
  struct Cpu {
    int64_t curr = 0;  // 0: idle
    PrevState leave = PrevState::Runnable;
  };
  KernelEvent event(const trace::Event& e, int line, KernelEventKind kind, int64_t pid,
                    int64_t current) const;
  const std::string& name_of(int64_t pid) const;

  std::function<void(const KernelEvent&)> sink_;
  std::function<void(int64_t)> left_;
  std::map<int, Cpu> cpus_;
  std::map<int64_t, std::string> names_;
  std::set<int64_t> woken_;  // tasks woken before: a later wakeup is not a new task's
};

}  // namespace vlag::kernel
