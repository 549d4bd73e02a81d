#include "checker/fluid_clock.h"

#include <cmath>

#include "spec/weights.h"

namespace vlag::checker {
namespace {

// The stretch of a reading no stretch makes exact.
constexpr uint64_t kRounded = UINT64_MAX;
constexpr int kFractionBits = 64;
constexpr int64_t kN = kNice0Weight;
// Runs summed before a fold: the sum never overflows 64 bits.
constexpr int64_t kFoldAt = int64_t{1} << 52;

// ⌊x·2^64⌋, or nothing where it leaves 128 bits.
std::optional<__int128> to_fixed(const Exact& x) {
  mpz_class scaled = x.get_num();
  scaled <<= kFractionBits;
  mpz_fdiv_q(scaled.get_mpz_t(), scaled.get_mpz_t(), x.get_den_mpz_t());
  const bool negative = scaled < 0;
  if (negative) scaled = -scaled;
  if (mpz_sizeinbase(scaled.get_mpz_t(), 2) > 126) return std::nullopt;
  const mpz_class high = scaled >> 64;
  const mpz_class low = scaled - (high << 64);
  const auto magnitude = (static_cast<unsigned __int128>(high.get_ui()) << 64) | low.get_ui();
  const auto value = static_cast<__int128>(magnitude);
  return negative ? -value : value;
}

// The exact number a fixed-point reading stands for.
Exact from_fixed(__int128 v) {
  const bool negative = v < 0;
  const auto magnitude = static_cast<unsigned __int128>(negative ? -v : v);
  mpz_class num = static_cast<unsigned long>(magnitude >> 64);
  num <<= 64;
  num += static_cast<unsigned long>(magnitude);
  if (negative) num = -num;
  mpz_class den = 1;
  den <<= kFractionBits;
  Exact x(num, den);
  x.canonicalize();
  return x;
}

// ⌊a·b/c⌋ for c > 0 (a = q·c + r, so a·b itself is never formed), or nothing where it leaves
// 128 bits.
std::optional<__int128> mul_div(__int128 a, int64_t b, int64_t c) {
  __int128 q = a / c, r = a % c;
  if (r < 0) {
    --q;
    r += c;
  }
  __int128 whole = 0, sum = 0;
  if (__builtin_mul_overflow(q, static_cast<__int128>(b), &whole)) return std::nullopt;
  if (__builtin_add_overflow(whole, r * b / c, &sum)) return std::nullopt;  // r·b < 2^126
  return sum;
}

}  // namespace

void FluidClock::advance(int64_t delta_ns, int64_t W) {
  if (W != pending_W_ || delta_ns > kFoldAt - pending_) {
    fold();
    pending_W_ = W;
  }
  pending_ += delta_ns;
}

void FluidClock::fold() {
  if (pending_ == 0) return;
  if (fixed_mode_) {
    const auto step = mul_div(static_cast<__int128>(pending_) << kFractionBits, kN, pending_W_);
    __int128 sum = 0;
    if (step && !__builtin_add_overflow(fixed_, *step, &sum)) {
      fixed_ = sum;
      pending_ = 0;
      return;
    }
    // Further than 128 bits hold (runs the format allows, not a machine's): exact until idle.
    exact_ = from_fixed(fixed_);
    fixed_mode_ = false;
    beyond_fixed_ = true;
  }
  Exact step(static_cast<long>(pending_));
  step *= Exact(static_cast<long>(kN));
  step /= Exact(static_cast<long>(pending_W_));
  exact_ += step;
  pending_ = 0;
  // Beyond 64 bits of denominator a figure-only clock goes fixed-point.
  if (always_exact_ || beyond_fixed_ || mpz_size(exact_.get_den_mpz_t()) <= 1) return;
  if (const auto fixed = to_fixed(exact_)) {
    fixed_ = *fixed;
    fixed_mode_ = true;
    ++stretch_;
  } else {
    beyond_fixed_ = true;
  }
}

void FluidClock::idle() {
  fold();
  if (always_exact_) return;  // its readings name the clock itself (THM-LAG-BOUND's witness)
  exact_ = 0;
  fixed_ = 0;
  fixed_mode_ = false;
  beyond_fixed_ = false;
}

FluidClock::Point FluidClock::now() {
  fold();
  Point p;
  if (fixed_mode_)
    p.fixed = fixed_;
  else
    p.exact = exact_;
  p.stretch = stretch_;
  return p;
}

const Exact& FluidClock::exact_now() {
  fold();
  return exact_;
}

Exact FluidClock::exact_clock() const { return fixed_mode_ ? from_fixed(fixed_) : exact_; }

bool FluidClock::exact_against(const Point& p) const {
  return !fixed_mode_ && !p.fixed && p.stretch == stretch_;
}

Exact FluidClock::exact_of(const Point& p) { return p.fixed ? from_fixed(*p.fixed) : p.exact; }

std::optional<__int128> FluidClock::fixed_of(const Point& p) {
  return p.fixed ? *p.fixed : to_fixed(p.exact);
}

FluidClock::Lag FluidClock::lag(const Point& since, int64_t weight, int64_t received) {
  fold();
  Lag l;
  if (fixed_mode_) {
    // w·(now − since)/N is at most the ns of the runnable interval, for w within W: in the
    // service layer these stay within 128 bits, and elsewhere the exact sum below answers.
    const auto start = fixed_of(since);
    __int128 elapsed = 0, lag = 0;
    if (start && !__builtin_sub_overflow(fixed_, *start, &elapsed)) {
      const auto share = mul_div(elapsed, weight, kN);
      if (share &&
          !__builtin_sub_overflow(*share, static_cast<__int128>(received) << kFractionBits, &lag)) {
        l.value = static_cast<double>(std::ldexp(static_cast<long double>(lag), -kFractionBits));
        return l;
      }
    }
  }
  Exact x = (exact_clock() - exact_of(since)) * static_cast<long>(weight) / static_cast<long>(kN) -
            Exact(static_cast<long>(received));
  x.canonicalize();
  l.value = x.get_d();
  if (exact_against(since)) l.exact = std::move(x);
  return l;
}

FluidClock::Point FluidClock::rejoin(const Point& since, int64_t old_weight, int64_t weight) {
  fold();
  Point p;
  if (fixed_mode_) {
    const auto start = fixed_of(since);
    __int128 elapsed = 0, at = 0;
    if (start && !__builtin_sub_overflow(fixed_, *start, &elapsed)) {
      const auto scaled = mul_div(elapsed, old_weight, weight);
      if (scaled && !__builtin_sub_overflow(fixed_, *scaled, &at)) {
        p.fixed = at;
        return p;
      }
    }
  }
  const Exact now = exact_clock();
  p.exact =
      now - (now - exact_of(since)) * static_cast<long>(old_weight) / static_cast<long>(weight);
  p.exact.canonicalize();
  p.stretch = exact_against(since) ? stretch_ : kRounded;
  return p;
}

}  // namespace vlag::checker
