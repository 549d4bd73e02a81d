// The 64-bit arithmetic Linux 6.6–7.0 does on a cfs_rq's numbers (kernel/sched/fair.c), on the
// values a BPF capture records (kernel/bpf/state_capture.h: weights as stored, nice 0 = 2^20;
// vruntimes as u64): the checks of SPEC.md §6.4 recompute what the kernel computed from them.
// Products and sums are taken in 128 bits, so that a value the kernel's s64 would wrap is seen as
// it is and its width reported (INV-S64-MARGIN); below 2^63 both agree bit for bit.
#pragma once

#include <cstdint>

namespace vlag::kernel::state {

/// NICE_0_LOAD as the kernel stores a weight on 64-bit (1024 << 10).
inline constexpr uint64_t kNice0Load = uint64_t{1} << 20;

/// scale_load_down(w): w >> 10, at least 2, 0 for 0 — the weight in the sums and averages.
uint64_t scale_down(uint64_t weight);

/// (s64)(v − v0), the kernel's key of a vruntime relative to its cfs_rq's reference point.
inline int64_t key_of(uint64_t v, uint64_t v0) { return static_cast<int64_t>(v - v0); }

/// a < b on vruntimes, through the signed difference as the kernel compares them.
inline bool before(uint64_t a, uint64_t b) { return key_of(a, b) < 0; }

/// The inverse weight __calc_delta multiplies by: a task's is sched_prio_to_wmult of its nice
/// level (WMULT_IDLEPRIO for SCHED_IDLE's weight 3), a group entity's WMULT_CONST / w.
uint64_t inv_weight(uint64_t weight, bool task);

/// calc_delta_fair(δ, se): δ unchanged at NICE_0_LOAD, else δ·(1024·inv) >> 32 in the kernel's
/// fixed point (the factor shifted right until it fits 32 bits, the 96-bit product truncated).
uint64_t calc_delta_fair(uint64_t delta_ns, uint64_t weight, bool task);

/// TICK_NSEC for a HZ.
inline int64_t tick_nsec(int hz) { return (1'000'000'000 + hz / 2) / hz; }

/// A cfs_rq's sums with curr added as avg_vruntime() and vruntime_eligible() add it: Σ key·w and
/// Σ w over the tree and curr (while queued), the weights scaled down.
struct Average {
  uint64_t v0 = 0;
  __int128 avg = 0;   // Σ (v_i − v0)·w_i
  __int128 load = 0;  // Σ w_i
};
Average with_curr(uint64_t v0, int64_t sum_w_vruntime, uint64_t sum_weight, bool has_curr,
                  uint64_t curr_vruntime, uint64_t curr_weight);

/// avg_vruntime(): v0 + ⌊avg / load⌋ (rounded toward −∞), v0 for an empty cfs_rq.
uint64_t avg_vruntime(const Average& a);

/// vruntime_eligible(): avg ≥ (v − v0)·load, without division.
bool eligible(const Average& a, uint64_t vruntime);

/// The real time entity_lag() clamps a saved lag to, as calc_delta_fair() of it gives the limit:
/// max(2·slice, TICK_NSEC) (Linux 6.6–6.18), or the cfs_rq's largest slice (its queued
/// entities' and curr's, se->max_slice augments the tree for it) plus TICK_NSEC on kernels with
/// se->max_slice (the development machine's 6.18.44 among them).
int64_t lag_clamp_span(bool max_slice_rule, uint64_t slice, uint64_t max_slice, int hz);
/// entity_lag(): V − v clamped to ±limit.
inline int64_t clamp_lag(uint64_t V, uint64_t v, int64_t limit) {
  const int64_t lag = key_of(V, v);
  return lag < -limit ? -limit : lag > limit ? limit : lag;
}

/// place_entity()'s lag inflation: div_s64(vlag·(load + w), load), truncated toward 0, with load
/// the cfs_rq's Σ w (curr included) before the entity joins and w its scaled weight.
int64_t inflated_lag(int64_t vlag, __int128 load, uint64_t scaled_weight);

/// The bits a signed value needs besides its sign: 63 or more and the kernel's s64 wraps.
int magnitude_bits(__int128 x);

}  // namespace vlag::kernel::state
