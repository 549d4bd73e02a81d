#include "reference/arith.h"

#include <algorithm>
#include <bit>

#include "spec/weights.h"

namespace vlag::reference {

// ---------------------------------------------------------------------------------------------
// Exact

ExactArith::Num ExactArith::vdelta(int64_t delta_ns, int64_t weight) {
  return mul_div(Num(static_cast<long>(delta_ns)), kNice0Weight, weight);
}

ExactArith::Num ExactArith::mul_div(const Num& x, int64_t num, int64_t den) {
  Num y = x * static_cast<long>(num) / Num(static_cast<long>(den));
  y.canonicalize();
  return y;
}

ExactArith::Num ExactArith::average(const Num& v0, const Sum& sum, int64_t load) {
  Num v = v0 + sum / Num(static_cast<long>(load));
  v.canonicalize();
  return v;
}

int64_t ExactArith::ceil_ns(const Num& x, int64_t weight) {
  const Num ns = mul_div(x, weight, kNice0Weight);
  mpz_class up;
  mpz_cdiv_q(up.get_mpz_t(), ns.get_num_mpz_t(), ns.get_den_mpz_t());
  return up.get_si();
}

// ---------------------------------------------------------------------------------------------
// Linux

namespace {

constexpr uint64_t kWmultConst = 0xFFFF'FFFFu;  // WMULT_CONST
constexpr int kWmultShift = 32;                 // WMULT_SHIFT

// se->load.inv_weight: the table entry for a nice weight (set_load_weight), else computed the
// way __update_inv_weight does for any other weight.
uint64_t inv_weight(int64_t weight) {
  // kPrioToWeight is strictly decreasing: binary search it.
  const auto it = std::lower_bound(kPrioToWeight.begin(), kPrioToWeight.end(), weight,
                                   [](int64_t entry, int64_t w) { return entry > w; });
  if (it != kPrioToWeight.end() && *it == weight)
    return static_cast<uint64_t>(kPrioToWmult[static_cast<size_t>(it - kPrioToWeight.begin())]);
  return kWmultConst / static_cast<uint64_t>(weight);
}

// s128 division rounding toward −∞. Operands of 64 bits, as nearly every Σ w·(v − v0) of a
// runqueue is, divide in 64 bits (one instruction rather than a call into libgcc's 128-bit
// division); the remainder comes from the quotient.
__int128 floor_div(__int128 a, __int128 b) {
  const bool small = a >= INT64_MIN && a <= INT64_MAX && b >= INT64_MIN && b <= INT64_MAX &&
                     !(a == INT64_MIN && b == -1);
  __int128 q = small ? __int128{static_cast<int64_t>(a) / static_cast<int64_t>(b)} : a / b;
  if (a - q * b != 0 && (a < 0) != (b < 0)) --q;
  return q;
}

}  // namespace

void LinuxArith::delta_factor(int64_t weight, uint64_t& factor, int& shift) {
  // __calc_delta(δ, NICE_0_LOAD, lw): fact = scale_load_down(NICE_0_LOAD) · inv_weight, then
  // shifted right until it fits 32 bits, the shift taken off WMULT_SHIFT.
  factor = static_cast<uint64_t>(kNice0Weight) * inv_weight(weight);
  shift = kWmultShift;
  if (const uint64_t hi = factor >> 32; hi != 0) {
    const int fs = std::bit_width(hi);
    shift -= fs;
    factor >>= fs;
  }
}

LinuxArith::Num LinuxArith::vdelta(int64_t delta_ns, int64_t weight) {
  if (weight == kNice0Weight) return delta_ns;
  uint64_t factor = 0;
  int shift = 0;
  delta_factor(weight, factor, shift);
  // mul_u64_u32_shr: the 96-bit product, truncated.
  const unsigned __int128 product =
      static_cast<unsigned __int128>(static_cast<uint64_t>(delta_ns)) * factor;
  return static_cast<int64_t>(static_cast<uint64_t>(product >> shift));
}

LinuxArith::Num LinuxArith::mul_div(Num x, int64_t num, int64_t den) {
  return static_cast<int64_t>(Sum{x.value()} * num / den);  // C division truncates toward 0
}

LinuxArith::Num LinuxArith::average(Num v0, Sum sum, int64_t load) {
  return v0 + Num(static_cast<int64_t>(floor_div(sum, load)));
}

int64_t LinuxArith::ceil_ns(Num x, int64_t weight) {
  const __int128 n = Sum{x.value()} * weight;
  return static_cast<int64_t>(-floor_div(-n, kNice0Weight));
}

}  // namespace vlag::reference
