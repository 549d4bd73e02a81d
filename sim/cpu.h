// One simulated CPU: its runqueue (behind sim/cpu_runqueue.h, so the policy chooses the class),
// its optional trace, and the generation that invalidates its already scheduled tick and
// burst-end events.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>

#include "sim/cpu_runqueue.h"

namespace vlag::sim {

struct Cpu {
  explicit Cpu(std::unique_ptr<CpuRunqueue> runqueue) : rq(std::move(runqueue)) {}

  std::unique_ptr<CpuRunqueue> rq;
  std::unique_ptr<std::ostream> trace_out;
  uint64_t burst_gen = 0;   // bumped whenever the running task or its burst changes
  bool tick_armed = false;  // a tick is scheduled (ticks stop while the CPU idles: NOHZ)
  int64_t busy_ns = 0;
  int64_t switches = 0;

  bool idle() const { return !rq->curr() && rq->nr_queued() == 0; }
};

}  // namespace vlag::sim
