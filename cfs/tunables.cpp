#include "cfs/tunables.h"

#include <algorithm>
#include <bit>
#include <string>

#include "reference/arith.h"
#include "spec/error.h"

namespace vlag::cfs {

int64_t Tunables::period_ns(int64_t nr_running) const {
  return nr_running > nr_latency ? nr_running * min_granularity_ns : latency_ns;
}

Tunables tunables_for(const Params& params) {
  const auto cpus = static_cast<unsigned>(std::min(params.ncpus, 8));
  const int64_t factor = std::bit_width(cpus);  // 1 + ilog2(cpus)
  Tunables t;
  t.latency_ns = 6'000'000 * factor;
  t.min_granularity_ns = 750'000 * factor;
  t.wakeup_granularity_ns = 1'000'000 * factor;
  t.nr_latency = (t.latency_ns + t.min_granularity_ns - 1) / t.min_granularity_ns;
  return t;
}

int64_t calc_delta(int64_t delta_ns, int64_t weight, int64_t load) {
  constexpr uint64_t kWmultConst = 0xffff'ffffULL;
  const uint64_t inv = static_cast<uint64_t>(load) >= kWmultConst ? 1
                       : load == 0                                ? kWmultConst
                                   : kWmultConst / static_cast<uint64_t>(load);
  // Weights stay below 2^32, so only the product with the inverse can need a smaller shift.
  uint64_t fact = static_cast<uint64_t>(weight) * inv;
  int shift = 32;
  if (const uint64_t hi = fact >> 32; hi != 0) {
    const int fs = std::bit_width(hi);
    shift -= fs;
    fact >>= fs;
  }
  using u128 = unsigned __int128;
  return static_cast<int64_t>((static_cast<u128>(delta_ns) * fact) >> shift);
}

int64_t calc_delta_fair(int64_t delta_ns, int64_t weight) {
  return reference::LinuxArith::vdelta(delta_ns, weight).value();
}

int64_t latency_weight(int latency_nice) {
  if (latency_nice < -20 || latency_nice > 19)
    throw Error("latency_nice " + std::to_string(latency_nice) + " is outside -20..19");
  // 1024·n/20 to the nearest integer; no entry falls on a half.
  const int64_t twice = int64_t{2} * 1024 * latency_nice;
  return (twice + (latency_nice < 0 ? -20 : 20)) / 40;
}

int64_t latency_offset_ns(int latency_nice, const Tunables& t) {
  return latency_weight(latency_nice) * t.sleeper_credit_ns() / 1024;
}

int64_t wakeup_latency_gran(int64_t curr_offset, int64_t se_offset, const Tunables& t) {
  int64_t offset = se_offset;
  if (offset < 0 || curr_offset < 0) offset -= curr_offset;
  return std::min(offset, t.latency_max_ns());
}

int wakeup_preempt(int64_t vdiff, int64_t curr_offset, int64_t se_offset, int64_t se_weight,
                   const Tunables& t, bool latency_nice) {
  const int64_t gran = calc_delta_fair(t.wakeup_granularity_ns, se_weight);
  if (!latency_nice) {
    if (vdiff <= 0) return -1;
    return vdiff > gran ? 1 : 0;
  }
  const int64_t offset = wakeup_latency_gran(curr_offset, se_offset, t);
  if (vdiff < offset) return -1;
  // v9 1/9: a long sleeper, placed a sleeper credit behind min_vruntime, must be able to preempt
  // whatever its weight makes of the granularity.
  return vdiff > std::min(offset + gran, t.latency_max_ns()) ? 1 : 0;
}

}  // namespace vlag::cfs
