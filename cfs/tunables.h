// The numbers of Linux v6.5's fair class (kernel/sched/fair.c, SPEC.md §8.1): the sysctls with
// their CPU factor, sched_period/sched_slice, and the fixed-point __calc_delta they go through.
// The latency-nice series (v9) adds the latency offset of a latency_nice value.
#pragma once

#include <cstdint>

#include "spec/features.h"

namespace vlag::cfs {

struct Tunables {
  int64_t latency_ns = 0;             // sysctl_sched_latency: 6 ms × factor
  int64_t min_granularity_ns = 0;     // sysctl_sched_min_granularity: 0.75 ms × factor
  int64_t wakeup_granularity_ns = 0;  // sysctl_sched_wakeup_granularity: 1 ms × factor
  int64_t nr_latency = 8;             // sched_nr_latency = latency / min_granularity

  /// get_sleep_latency(false): the sleeper credit, latency halved by GENTLE_FAIR_SLEEPERS.
  int64_t sleeper_credit_ns() const { return latency_ns >> 1; }
  /// get_latency_max() of the v9 series: the sleeper credit less one min_granularity.
  int64_t latency_max_ns() const { return sleeper_credit_ns() - min_granularity_ns; }
  /// __sched_period(nr).
  int64_t period_ns(int64_t nr_running) const;
};

/// The tunables for a run: SCHED_TUNABLESCALING_LOG, factor 1 + ilog2(min(ncpus, 8)), the factor
/// Params::base_slice_ns applies.
Tunables tunables_for(const Params& params);

/// __calc_delta(delta, weight, lw) with lw->inv_weight = WMULT_CONST / load (a runqueue's load,
/// whose inverse the kernel recomputes): delta·weight/load in 32.32 fixed point, truncated.
int64_t calc_delta(int64_t delta_ns, int64_t weight, int64_t load);
/// calc_delta_fair(delta, se): delta·1024/weight through the entity's inv_weight.
int64_t calc_delta_fair(int64_t delta_ns, int64_t weight);

/// v9 series: sched_latency_to_weight[] (±1024 at ±20, linear, rounded to nearest) and
/// latency_offset = weight · sleeper credit / 1024, truncated toward zero. Negative for
/// latency-sensitive tasks. Throws vlag::Error outside −20..19.
int64_t latency_weight(int latency_nice);
int64_t latency_offset_ns(int latency_nice, const Tunables& t);

/// wakeup_latency_gran (v9 5/9): a negative offset counts against the other entity's, a
/// non-negative one alone; at most get_latency_max().
int64_t wakeup_latency_gran(int64_t curr_offset, int64_t se_offset, const Tunables& t);

/// wakeup_preempt_entity(curr, se) from vdiff = curr.vruntime − se.vruntime: 1 when curr is more
/// than the wakeup granularity (in se's virtual time) ahead of se, −1 when it is not ahead, else
/// 0. With latency_nice (v9 1/9 and 5/9) the offsets move both thresholds and the granularity is
/// capped at get_latency_max().
int wakeup_preempt(int64_t vdiff, int64_t curr_offset, int64_t se_offset, int64_t se_weight,
                   const Tunables& t, bool latency_nice);

}  // namespace vlag::cfs
