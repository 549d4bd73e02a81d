#include "prove/replay.h"

#include <algorithm>

#include "reference/invariants.h"
#include "reference/runqueue.h"
#include "spec/error.h"
#include "spec/weights.h"
#include "trace/observer.h"

namespace vlag::prove {
namespace {

using reference::Num;
using reference::Runqueue;

// THM-LAG-BOUND-LINUX (SPEC.md §6): −(r + TICK) ≤ lag ≤ r + TICK for every queued entity.
std::vector<reference::Violation> linux_lag_bound(const Runqueue& rq) {
  std::vector<reference::Violation> out;
  const int64_t tick = rq.params().tick_ns();
  for (const reference::Entity* e : rq.queued()) {
    const Num lag = rq.lag(*e);
    const int64_t b = e->slice + tick;
    if (lag < -b || lag > b)
      out.push_back({"THM-LAG-BOUND-LINUX",
                     "task " + std::to_string(e->id) + " lag " + lag.get_str() + " ns outside [-" +
                         std::to_string(b) + ", " + std::to_string(b) + "]",
                     true});
  }
  return out;
}

// The largest |lag| against its bound, for the report of a lag-bound counterexample.
std::string lag_figure(const Runqueue& rq, bool linux) {
  std::string worst;
  double ratio = -1;
  for (const reference::Entity* e : rq.queued()) {
    const Num lag = rq.lag(*e);
    const int64_t bound = linux ? e->slice + rq.params().tick_ns()
                                : (lag < 0 ? e->slice : std::max(e->slice, rq.params().tick_ns()));
    const double r = std::abs(lag.get_d()) / static_cast<double>(bound);
    if (r > ratio) {
      ratio = r;
      worst = "task " + std::to_string(e->id) + " lag " + lag.get_str() + " ns against the bound " +
              (lag < 0 ? "-" : "") + std::to_string(bound) + " ns";
    }
  }
  return worst;
}

}  // namespace

Replay replay(const Options& o, const std::vector<Op>& ops, bool steady) {
  Runqueue rq(o.params);
  Replay out;
  for (size_t k = 0; k < ops.size(); ++k) {
    const Runqueue before = rq;
    rq.apply(ops[k]);
    std::vector<reference::Violation> found;
    if (o.invariant == "THM-LAG-BOUND") {
      if (steady && ops[k].kind == OpKind::Run) found = reference::check_paper_lag_bound(rq);
    } else if (o.invariant == "THM-LAG-BOUND-LINUX") {
      if (steady && ops[k].kind == OpKind::Run) found = linux_lag_bound(rq);
    } else {
      found = reference::check_step(before, ops[k], rq);
    }
    for (const auto& v : found) {
      if (v.id != o.invariant) continue;
      out.step = static_cast<int>(k);
      out.detail = v.detail;
      out.promised = v.promised;
      if (o.invariant.starts_with("THM-LAG-BOUND"))
        out.lag_reached = lag_figure(rq, o.invariant == "THM-LAG-BOUND-LINUX");
      return out;
    }
  }
  return out;
}

void write_trace(const Options& o, const std::vector<Op>& ops, std::ostream& out) {
  trace::Header h;
  h.producer = "vlag prove --invariant " + o.invariant;
  h.params = o.params;
  trace::TraceObserver<Num> observer(out, h);
  Runqueue rq(o.params);
  rq.set_observer(&observer);
  for (const Op& op : ops) rq.apply(op);
  // The lag bounds are judged at decision points (SPEC.md §6): the next pick is the one at
  // which the checker sees the lag the last run left.
  for (const auto& inv : invariants())
    if (inv.id == o.invariant && inv.steady) rq.apply(Op{OpKind::Pick});
}

}  // namespace vlag::prove
