// One simulated CPU: its runqueue (optimized::Runqueue, Linux arithmetic), its optional trace,
// and the generation that invalidates its already scheduled tick and burst-end events.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>

#include "optimized/runqueue.h"
#include "trace/observer.h"

namespace vlag::sim {

struct Cpu {
  explicit Cpu(const Params& params) : rq(params) {}

  optimized::Runqueue rq;
  std::unique_ptr<std::ostream> trace_out;
  std::unique_ptr<trace::TraceObserver<optimized::Runqueue::Num>> tracer;
  uint64_t burst_gen = 0;   // bumped whenever the running task or its burst changes
  bool tick_armed = false;  // a tick is scheduled (ticks stop while the CPU idles: NOHZ)
  int64_t busy_ns = 0;
  int64_t switches = 0;

  bool idle() const { return !rq.curr() && rq.nr_queued() == 0; }
};

}  // namespace vlag::sim
