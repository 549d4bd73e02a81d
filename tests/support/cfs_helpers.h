// A CFS runqueue on one CPU whose every operation is written as a trace (spec/TRACE.md) into
// `out`, for tests that check the runqueue's traces.
#pragma once

#include <sstream>

#include "cfs/runqueue.h"
#include "spec/cfs_policy.h"
#include "trace/observer.h"

namespace vlag::testing {

struct TracedCfs {
  explicit TracedCfs(bool latency_nice)
      : params(make_params(cfs_preset(latency_nice ? kCfsLatencyNicePolicy : kCfsPolicy), 250, 1)),
        tracer(out, header(params)),
        rq(params, cfs::CfsOptions{latency_nice}) {
    rq.set_observer(&tracer);
  }

  static trace::Header header(const Params& p) {
    trace::Header h;
    h.producer = "vlag tests";
    h.params = p;
    return h;
  }

  Params params;
  std::ostringstream out;
  trace::TraceObserver<int64_t> tracer;
  cfs::Runqueue rq;
};

}  // namespace vlag::testing
