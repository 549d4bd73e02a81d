#include "checker/fluid_clock.h"

#include <cmath>

#include "spec/weights.h"

namespace vlag::checker {
namespace {

constexpr int kFractionBits = 64;
constexpr int64_t kN = kNice0Weight;

// ⌊x·2^64⌋ of an exact number; it fits: the clock stays below 2^57 ns (2^50 ns of runs at
// W >= kMinWeight).
__int128 to_fixed(const Exact& x) {
  mpz_class scaled = x.get_num();
  scaled <<= kFractionBits;
  mpz_fdiv_q(scaled.get_mpz_t(), scaled.get_mpz_t(), x.get_den_mpz_t());
  const bool negative = scaled < 0;
  if (negative) scaled = -scaled;
  const mpz_class high = scaled >> 64;
  const mpz_class low = scaled - (high << 64);
  const auto magnitude = (static_cast<unsigned __int128>(high.get_ui()) << 64) | low.get_ui();
  const auto value = static_cast<__int128>(magnitude);
  return negative ? -value : value;
}

// ⌊a·b/c⌋ for c > 0 without the product overflowing: a = q·c + r.
__int128 mul_div(__int128 a, int64_t b, int64_t c) {
  __int128 q = a / c, r = a % c;
  if (r < 0) {
    --q;
    r += c;
  }
  return q * b + r * b / c;
}

}  // namespace

void FluidClock::advance(int64_t delta_ns, int64_t W) {
  if (W != pending_W_) {
    fold();
    pending_W_ = W;
  }
  pending_ += delta_ns;
  if (pending_ > (int64_t{1} << 52)) fold();  // pending_·N stays within 64 bits
}

void FluidClock::fold() {
  if (pending_ == 0) return;
  if (fixed_mode_) {
    fixed_ += mul_div(static_cast<__int128>(pending_) << kFractionBits, kN, pending_W_);
  } else {
    Exact step(static_cast<long>(pending_ * kN));
    step /= Exact(static_cast<long>(pending_W_));
    exact_ += step;
    // Beyond 64 bits of denominator a figure-only clock goes fixed-point.
    if (!always_exact_ && mpz_size(exact_.get_den_mpz_t()) > 1) {
      fixed_ = to_fixed(exact_);
      fixed_mode_ = true;
    }
  }
  pending_ = 0;
}

void FluidClock::idle() {
  fold();
  if (always_exact_) return;  // its readings name the clock itself (THM-LAG-BOUND's witness)
  exact_ = 0;
  fixed_ = 0;
  fixed_mode_ = false;
}

FluidClock::Point FluidClock::now() {
  fold();
  Point p;
  if (fixed_mode_)
    p.fixed = fixed_;
  else
    p.exact = exact_;
  return p;
}

const Exact& FluidClock::exact_now() {
  fold();
  return exact_;
}

__int128 FluidClock::fixed_of(const Point& p) const {
  return p.fixed ? *p.fixed : to_fixed(p.exact);
}

FluidClock::Lag FluidClock::lag(const Point& since, int64_t weight, int64_t received) {
  fold();
  Lag l;
  if (!fixed_mode_ && !since.fixed) {
    Exact x = (exact_ - since.exact) * static_cast<long>(weight) / static_cast<long>(kN) -
              Exact(static_cast<long>(received));
    x.canonicalize();
    l.value = x.get_d();
    l.exact = std::move(x);
    return l;
  }
  const __int128 now = fixed_mode_ ? fixed_ : to_fixed(exact_);
  // w·(now − since)/N ≤ the ns of the runnable interval: the product stays within 128 bits.
  const __int128 lag = mul_div(now - fixed_of(since), weight, kN) -
                       (static_cast<__int128>(received) << kFractionBits);
  l.value = static_cast<double>(std::ldexp(static_cast<long double>(lag), -kFractionBits));
  return l;
}

FluidClock::Point FluidClock::rejoin(const Point& since, int64_t old_weight, int64_t weight,
                                     int64_t received) {
  fold();
  Point p;
  if (!fixed_mode_ && !since.fixed) {
    const Lag l = lag(since, old_weight, received);
    p.exact = exact_ - (*l.exact + Exact(static_cast<long>(received))) * static_cast<long>(kN) /
                           static_cast<long>(weight);
    p.exact.canonicalize();
    return p;
  }
  const __int128 now = fixed_mode_ ? fixed_ : to_fixed(exact_);
  p.fixed = now - mul_div(now - fixed_of(since), old_weight, weight);
  return p;
}

}  // namespace vlag::checker
