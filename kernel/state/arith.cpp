#include "kernel/state/arith.h"

#include <algorithm>
#include <bit>

#include "spec/weights.h"

namespace vlag::kernel::state {
namespace {

constexpr uint64_t kWmultConst = 0xffffffffu;  // WMULT_CONST, ~0U
constexpr int kWmultShift = 32;
constexpr uint64_t kIdleWeight = 3;          // WEIGHT_IDLEPRIO
constexpr uint64_t kIdleWmult = 1431655765;  // WMULT_IDLEPRIO

// Division rounding toward −∞ (the kernel's avg_vruntime lowers a negative sum by load − 1
// before its truncating division, which is the same).
__int128 floor_div(__int128 a, __int128 b) {
  const __int128 q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

uint64_t scale_down(uint64_t weight) {
  return weight == 0 ? 0 : std::max<uint64_t>(2, weight >> 10);
}

uint64_t inv_weight(uint64_t weight, bool task) {
  const uint64_t w = scale_down(weight);
  if (task) {
    if (w == kIdleWeight) return kIdleWmult;
    for (size_t i = 0; i < kPrioToWeight.size(); ++i)
      if (static_cast<uint64_t>(kPrioToWeight[i]) == w)
        return static_cast<uint64_t>(kPrioToWmult[i]);
  }
  // __update_inv_weight(), for a weight the nice table does not give.
  if (w >= kWmultConst) return 1;
  if (w == 0) return kWmultConst;
  return kWmultConst / w;
}

uint64_t calc_delta_fair(uint64_t delta_ns, uint64_t weight, bool task) {
  if (weight == kNice0Load) return delta_ns;
  uint64_t fact = uint64_t{kNice0Weight} * inv_weight(weight, task);
  int shift = kWmultShift;
  if (const uint64_t hi = fact >> 32; hi != 0) {
    const int fs = std::bit_width(hi);
    fact >>= fs;
    shift -= fs;
  }
  return static_cast<uint64_t>((static_cast<unsigned __int128>(delta_ns) * fact) >> shift);
}

Average with_curr(uint64_t v0, int64_t sum_w_vruntime, uint64_t sum_weight, bool has_curr,
                  uint64_t curr_vruntime, uint64_t curr_weight) {
  Average a{v0, sum_w_vruntime, static_cast<__int128>(sum_weight)};
  if (has_curr) {
    const uint64_t w = scale_down(curr_weight);
    a.avg += static_cast<__int128>(key_of(curr_vruntime, v0)) * w;
    a.load += w;
  }
  return a;
}

uint64_t avg_vruntime(const Average& a) {
  if (a.load == 0) return a.v0;
  return a.v0 + static_cast<uint64_t>(static_cast<int64_t>(floor_div(a.avg, a.load)));
}

bool eligible(const Average& a, uint64_t vruntime) {
  return a.avg >= static_cast<__int128>(key_of(vruntime, a.v0)) * a.load;
}

int64_t lag_clamp_span(bool max_slice_rule, uint64_t slice, uint64_t max_slice, int hz) {
  const auto tick = static_cast<uint64_t>(tick_nsec(hz));
  return static_cast<int64_t>(max_slice_rule ? max_slice + tick : std::max(2 * slice, tick));
}

int64_t inflated_lag(int64_t vlag, __int128 load, uint64_t scaled_weight) {
  if (load == 0) return vlag;  // the kernel warns and divides by 1
  return static_cast<int64_t>(static_cast<__int128>(vlag) * (load + scaled_weight) / load);
}

int magnitude_bits(__int128 x) {
  const unsigned __int128 m =
      x < 0 ? static_cast<unsigned __int128>(-(x + 1)) + 1 : static_cast<unsigned __int128>(x);
  const auto hi = static_cast<uint64_t>(m >> 64), lo = static_cast<uint64_t>(m);
  return hi ? 64 + std::bit_width(hi) : std::bit_width(lo);
}

}  // namespace vlag::kernel::state
