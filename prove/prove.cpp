#include "prove/prove.h"

#include <chrono>

#include "prove/replay.h"

namespace vlag::prove {
namespace {

bool steady(const std::string& id) {
  for (const auto& inv : invariants())
    if (inv.id == id) return inv.steady;
  return false;
}

// The model's counterexample as the reference sees it: a symbolic-only violation keeps the
// model's last step and says so.
void replay_counterexample(const Options& o, Counterexample& c) {
  const Replay rp = replay(o, c.ops, steady(o.invariant));
  c.reference_agrees = rp.step.has_value();
  if (rp.step) {
    c.violated_step = *rp.step;
    c.detail = rp.detail;
    c.promised = c.promised && rp.promised;
  } else {
    c.detail = "the exact reference does not flag " + o.invariant +
               " on this schedule (a violation of the symbolic model only)";
  }
  c.lag_reached = rp.lag_reached;
}

}  // namespace

Result run(const Options& o, const std::function<void(const Progress&)>& progress,
           std::atomic<bool>* stop) {
  const auto start = std::chrono::steady_clock::now();
  Result r = smt::search(o, progress, stop);
  if (r.cex) replay_counterexample(o, *r.cex);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace vlag::prove
