// The two arithmetics the operations of SPEC.md §4 run in. Every formula whose rounding differs
// between them lives here, once; the operations themselves (basic_runqueue.h) are written once
// for both.
//
// ExactArith: rationals (GMP), the model of SPEC.md §1–§6.
// LinuxArith: 64-bit Linux ≤ 7.0, integer for integer (SPEC.md §7): LinuxTime values,
//   calc_delta_fair through sched_prio_to_wmult, truncating div_s64, V floored toward −∞,
//   eligibility without division, keys relative to a monotonic min_vruntime.
#pragma once

#include <gmpxx.h>

#include <cstdint>

#include "spec/linux_time.h"

namespace vlag::reference {

struct ExactArith {
  using Num = mpq_class;
  using Sum = mpq_class;  // Σ w_i·(v_i − v_0)
  static constexpr bool kExact = true;

  static Num origin() { return 0; }
  /// vdelta(δ, w) = δ·N/w (SPEC.md §1).
  static Num vdelta(int64_t delta_ns, int64_t weight);
  /// x·num/den.
  static Num mul_div(const Num& x, int64_t num, int64_t den);
  static Sum weighted(const Num& key, int64_t weight) { return key * static_cast<long>(weight); }
  /// V = v_0 + Σ/W.
  static Num average(const Num& v0, const Sum& sum, int64_t load);
  /// key·W ≤ Σ (SPEC.md §2, eligibility without division).
  static bool key_eligible(const Sum& sum, int64_t load, const Num& key) {
    return key * static_cast<long>(load) <= sum;
  }
  /// ⌈x·w/N⌉ in ns (remaining request).
  static int64_t ceil_ns(const Num& x, int64_t weight);
};

struct LinuxArith {
  using Num = LinuxTime;
  // The kernel keeps this sum in s64 (≤ 7.0); 128 bits here make sums the kernel would overflow
  // (SPEC.md §7) well-defined instead of undefined behaviour. Below 2^63 they agree bit for bit.
  using Sum = __int128;
  static constexpr bool kExact = false;

  /// init_cfs_rq's min_vruntime, (u64)(−(1 << 20)): times wrap through 0 early, as in Linux.
  static Num origin() { return -(int64_t{1} << 20); }
  /// calc_delta_fair: δ unchanged at NICE_0_LOAD, else δ·(1024·inv_weight) >> 32 in fixed point
  /// with inv_weight = sched_prio_to_wmult for nice weights and (2^32 − 1)/w otherwise.
  static Num vdelta(int64_t delta_ns, int64_t weight);
  /// div_s64(x·num, den): truncation toward zero, the product in 128 bits.
  static Num mul_div(Num x, int64_t num, int64_t den);
  static Sum weighted(Num key, int64_t weight) { return Sum{key.value()} * weight; }
  /// avg_vruntime: v_0 + ⌊Σ/W⌋, rounded toward −∞ so that V itself is eligible.
  static Num average(Num v0, Sum sum, int64_t load);
  static bool key_eligible(Sum sum, int64_t load, Num key) {
    return Sum{key.value()} * load <= sum;
  }
  static int64_t ceil_ns(Num x, int64_t weight);
  /// The fixed-point multiplier of calc_delta_fair as (factor, shift), for tests and bounds.
  static void delta_factor(int64_t weight, uint64_t& factor, int& shift);
};

}  // namespace vlag::reference
