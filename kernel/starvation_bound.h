// The weight-scaled bound of INV-NO-STARVATION on a real kernel (SPEC.md §6.2): how much
// service the other entities of a cfs_rq can receive, under Linux 6.18's EEVDF, while one
// runnable entity k of it waits. It is derived in SPEC.md from the pick rule (an entity runs
// only while eligible with the earliest deadline, or under its own protection, and a request
// overruns by at most a tick) and the lag limits (a placed lag within ±max(2r, TICK), a running
// entity's lag above −(r + TICK)):
//
//   B = m_k·W/w_k + r_k·(W − w_k)/w_k + (n + 2J + K + 1)·(m̂ + TICK),   m(r) = max(2r, r + TICK)
//
// with W the most weight the cfs_rq held during the wait (k included; joiners added), n the
// other entities queued when the wait began, J the joins and K the leaves during it, m̂ the
// largest m of the others. Every input is a Range, so the bound is one too.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernel/range.h"

namespace vlag::kernel {

struct StarvationInputs {
  Range w_k;       // the waiting entity's weight
  Range r_k;       // its slice (ns)
  Range W;         // the cfs_rq's weight during the wait, k included
  Range n_others;  // entities queued besides k when the wait began (hi: possibly delayed ones)
  int joins = 0;   // entities that joined the cfs_rq during the wait
  int leaves = 0;  // entities that left it (blocked, migrated, exited) during the wait
  Range m_others;  // max over the others of max(2r, r + TICK), ns
  int64_t tick_ns = 0;
};

/// m(r) = max(2r, r + TICK): how far below zero a lag can be when an entity becomes runnable
/// (the placement clamp, or a preemption after its request plus a tick).
inline double lag_deficit(double slice_ns, int64_t tick_ns) {
  return std::max(2 * slice_ns, slice_ns + static_cast<double>(tick_ns));
}

/// B in ns of the cfs_rq's service; hi is infinite when a weight is unbounded.
Range starvation_bound(const StarvationInputs& in);

}  // namespace vlag::kernel
