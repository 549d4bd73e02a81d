#include "prove/replay.h"

#include <algorithm>

#include "prove/group_replay.h"
#include "reference/invariants.h"
#include "reference/runqueue.h"
#include "rules/invariants.h"
#include "spec/error.h"
#include "spec/properties.h"
#include "spec/weights.h"
#include "trace/observer.h"

namespace vlag::prove {
namespace {

using reference::Num;
using reference::Runqueue;

// The largest |lag| against its bound, for the report of a lag-bound counterexample.
std::string lag_figure(const Runqueue& rq, bool linux) {
  std::string worst;
  double ratio = -1;
  for (const reference::Entity* e : rq.queued()) {
    const Num lag = rq.lag(*e);
    const int64_t tick = rq.params().tick_ns();
    const int64_t bound = linux ? rules::linux_lag_bound(e->slice, tick)
                                : (lag < 0 ? e->slice : rules::paper_lag_upper(e->slice, tick));
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
  if (!o.groups.empty()) return replay_groups(o, ops);
  Runqueue rq(o.params);
  reference::History history;  // the judge's own record of the operations (INV-NEXT-BUDDY)
  Replay out;
  for (size_t k = 0; k < ops.size(); ++k) {
    const Runqueue before = rq;
    rq.apply(ops[k]);
    std::vector<reference::Violation> found;
    if (o.invariant == ids::kThmLagBound) {
      if (steady && ops[k].kind == OpKind::Run) found = reference::check_paper_lag_bound(rq);
    } else if (o.invariant == ids::kThmLagBoundLinux) {
      if (steady && ops[k].kind == OpKind::Run) found = reference::check_linux_lag_bound(rq);
    } else {
      found = reference::check_step(before, ops[k], rq, &history);
    }
    history.saw(ops[k]);
    for (const auto& v : found) {
      if (v.id != o.invariant) continue;
      out.step = static_cast<int>(k);
      out.detail = v.detail;
      out.promised = v.promised;
      if (o.invariant == ids::kThmLagBound || o.invariant == ids::kThmLagBoundLinux)
        out.lag_reached = lag_figure(rq, o.invariant == ids::kThmLagBoundLinux);
      return out;
    }
  }
  return out;
}

void write_trace(const Options& o, const std::vector<Op>& ops, std::ostream& out) {
  if (!o.groups.empty()) return write_group_trace(o, ops, out);
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
