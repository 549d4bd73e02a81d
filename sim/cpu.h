// One simulated CPU: its runqueue (behind sim/cpu_runqueue.h, so the policy chooses the class),
// its optional trace, and the generation that invalidates its already scheduled tick and
// burst-end events.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

#include "sim/cpu_runqueue.h"

namespace vlag::sim {

// A workload timer queued on a CPU's hrtimer base until it fires (SPEC.md §9.2).
struct PendingTimer {
  int64_t soft_ns = 0;  // the expiry asked for
  int64_t task = 0;
  uint64_t id = 0;  // the Timer event of its hard expiry carries it
};

struct Cpu {
  explicit Cpu(std::unique_ptr<CpuRunqueue> runqueue) : rq(std::move(runqueue)) {}

  std::unique_ptr<CpuRunqueue> rq;
  std::unique_ptr<std::ostream> trace_out;
  uint64_t burst_gen = 0;      // bumped whenever the running task or its burst changes
  uint64_t resched_gen = 0;    // bumped at every pick: a later Resched event is stale
  bool resched_armed = false;  // a wakeup's delayed switch is on the agenda
  uint64_t hrtick_gen = 0;     // bumped whenever the HRTICK timer is re-armed or cancelled
  int64_t curr_since_ns = 0;   // the running task's runtime_ns when it was switched in
  std::vector<PendingTimer> timers;
  bool tick_armed = false;  // a tick is scheduled (ticks stop while the CPU idles: NOHZ)
  int64_t busy_ns = 0;
  int64_t switches = 0;

  bool idle() const { return !rq->curr() && rq->nr_queued() == 0; }
};

}  // namespace vlag::sim
