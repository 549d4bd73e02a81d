#include "kernel/starvation_bound.h"

#include <algorithm>

namespace vlag::kernel {

Range starvation_bound(const StarvationInputs& in) {
  const double tick = static_cast<double>(in.tick_ns);
  const auto one_end = [&](double w_k, double r_k, double W, double n, double m_hat) {
    // Phase 1: k's lag rises from −m_k to 0 at w_k/W per ns of the cfs_rq's service. Phase 2:
    // eligible, k waits only for entities whose deadlines precede its own, which lies a virtual
    // slice ahead: (W − w_k)·r_k/w_k of their service, plus, per entity, a tick of overrun and
    // the lag it may be ahead by; each join or leave can push V back by at most its lag.
    const double terms = n + 2.0 * in.joins + in.leaves + 1;
    return lag_deficit(r_k, in.tick_ns) * W / w_k + r_k * std::max(0.0, W - w_k) / w_k +
           terms * (m_hat + tick);
  };
  return {one_end(in.w_k.hi, in.r_k.lo, in.W.lo, in.n_others.lo, in.m_others.lo),
          one_end(in.w_k.lo, in.r_k.hi, in.W.hi, in.n_others.hi, in.m_others.hi)};
}

}  // namespace vlag::kernel
