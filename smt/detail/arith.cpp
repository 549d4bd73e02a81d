#include "smt/detail/arith.h"

#include <bit>

#include "spec/weights.h"

namespace vlag::smt::detail {
namespace {

constexpr unsigned kBits = 64;
constexpr unsigned kSmallBits = 32;
constexpr unsigned kWide = 96;  // mul_u64_u32_shr's product: 64-bit x by a 32-bit factor

// SPEC.md §7, Linux ≤ 7.0 __calc_delta: fact = 1024·inv_weight, renormalised to 32 bits, then
// (x·fact) >> shift. inv_weight is the sched_prio_to_wmult entry for nice weights (2^32/w
// rounded to nearest, not floored: 12820798 for 335) and 0xFFFFFFFF/w for others.
struct FixedPoint {
  uint64_t fact;
  unsigned shift;
};

FixedPoint fixed_point(int64_t w) {
  uint64_t inv = 0xFFFFFFFFull / static_cast<uint64_t>(w);
  for (size_t i = 0; i < kPrioToWeight.size(); ++i)
    if (kPrioToWeight[i] == w) inv = static_cast<uint64_t>(kPrioToWmult[i]);
  uint64_t fact = 1024 * inv;
  unsigned shift = 32;
  if (const uint64_t hi = fact >> 32; hi != 0) {
    const auto fs = static_cast<unsigned>(std::bit_width(hi));
    shift -= fs;
    fact >>= fs;
  }
  return {fact, shift};
}

}  // namespace

Numbers::Numbers(z3::context& ctx, Arith arith, std::vector<int64_t> weights)
    : ctx_(ctx), arith_(arith), weights_(std::move(weights)) {}

z3::sort Numbers::sort() { return exact() ? ctx_.real_sort() : ctx_.bv_sort(kBits); }

z3::expr Numbers::var(const std::string& name) { return ctx_.constant(name.c_str(), sort()); }

z3::expr Numbers::lit(int64_t x) { return exact() ? ctx_.real_val(x) : ctx_.bv_val(x, kBits); }

std::string Numbers::value(const z3::model& m, const z3::expr& x) {
  const z3::expr v = m.eval(x, true);
  if (exact()) {
    std::string s = v.get_decimal_string(0);  // only used for integers; fractions below
    if (v.is_numeral() && !v.is_int()) {
      std::string num = v.numerator().get_decimal_string(0);
      std::string den = v.denominator().get_decimal_string(0);
      return den == "1" ? num : num + "/" + den;
    }
    return s;
  }
  return std::to_string(static_cast<int64_t>(v.get_numeral_uint64()));
}

z3::sort Numbers::small_sort() { return exact() ? ctx_.int_sort() : ctx_.bv_sort(kSmallBits); }

z3::expr Numbers::small_var(const std::string& name) {
  return ctx_.constant(name.c_str(), small_sort());
}

z3::expr Numbers::small(int64_t x) {
  return exact() ? ctx_.int_val(x) : ctx_.bv_val(x, kSmallBits);
}

z3::expr Numbers::lt(const z3::expr& a, const z3::expr& b) {
  return exact() ? a < b : z3::slt(a, b);
}

z3::expr Numbers::le(const z3::expr& a, const z3::expr& b) {
  return exact() ? a <= b : z3::sle(a, b);
}

z3::expr Numbers::is_integral(const z3::expr& x) {
  return exact() ? z3::is_int(x) : ctx_.bool_val(true);
}

z3::expr Numbers::mulw_const(int64_t c, const z3::expr& x) {
  return exact() ? x * ctx_.real_val(c) : x * ctx_.bv_val(c, kBits);
}

z3::expr Numbers::mulw(const z3::expr& w, const z3::expr& x) {
  z3::expr r = mulw_const(weights_.back(), x);
  for (size_t i = weights_.size() - 1; i-- > 0;)
    r = z3::ite(w == small(weights_[i]), mulw_const(weights_[i], x), r);
  return r;
}

z3::expr Numbers::weight_num(const z3::expr& w) {
  z3::expr r = lit(weights_.back());
  for (size_t i = weights_.size() - 1; i-- > 0;)
    r = z3::ite(w == small(weights_[i]), lit(weights_[i]), r);
  return r;
}

z3::expr Numbers::vdelta(const z3::expr& x, const z3::expr& w) {
  const auto one = [&](int64_t c) -> z3::expr {
    if (exact()) return x * ratio(kNice0Weight, c);
    if (c == kNice0Weight) return x;  // calc_delta_fair's NICE_0_LOAD shortcut
    const FixedPoint fp = fixed_point(c);
    const z3::expr wide = z3::zext(x, kWide - kBits) * ctx_.bv_val(fp.fact, kWide);
    return z3::lshr(wide, ctx_.bv_val(fp.shift, kWide)).extract(kBits - 1, 0);
  };
  z3::expr r = one(weights_.back());
  for (size_t i = weights_.size() - 1; i-- > 0;)
    r = z3::ite(w == small(weights_[i]), one(weights_[i]), r);
  return r;
}

z3::expr Numbers::scale(const z3::expr& x, const z3::expr& w_old, const z3::expr& w_new) {
  z3::expr r = x;
  for (int64_t a : weights_)
    for (int64_t b : weights_) {
      // bvsdiv truncates (div_s64). A remainder side condition instead was no faster.
      const z3::expr y = exact() ? x * ratio(a, b) : (x * lit(a)) / lit(b);
      r = z3::ite(w_old == small(a) && w_new == small(b), y, r);
    }
  return r;
}

z3::expr Numbers::ratio(int64_t a, int64_t b) {
  return ctx_.real_val((std::to_string(a) + "/" + std::to_string(b)).c_str());
}

z3::expr Numbers::half(const z3::expr& x) {
  return exact() ? x / ctx_.real_val(2) : z3::lshr(x, lit(1));
}

z3::expr Numbers::weight_int(const WeightSum& s) {
  z3::expr sum = small(0);
  for (const auto& [cond, w] : s.terms) sum = sum + z3::ite(cond, w, small(0));
  return sum;
}

z3::expr Numbers::mulsum(const WeightSum& s, const z3::expr& x) {
  z3::expr sum = zero();
  for (const auto& [cond, w] : s.terms) sum = sum + z3::ite(cond, mulw(w, x), zero());
  return sum;
}

z3::expr Numbers::fresh(const char* what) {
  return var(std::string("q!") + what + "!" + std::to_string(fresh_++));
}

z3::expr Numbers::divsum(const z3::expr& x, const WeightSum& s, bool floor) {
  const z3::expr W = weight_int(s);
  if (exact()) {
    // The quotient y is defined by Σw·y = x: linear, since each w is a constant of the set.
    // The same quotient asked twice is one constant.
    // Terms are hash-consed; an id is stable while its term lives, so the entry keeps both.
    const z3::expr divisor = mulsum(s, ctx_.real_val(1));
    const auto key = std::make_tuple(scope_, x.id(), divisor.id());
    if (const auto it = quotients_.find(key); it != quotients_.end()) return it->second.y;
    const z3::expr y = fresh("div");
    defs_.push_back(z3::ite(W == 0, y == zero(), mulsum(s, y) == x));
    quotients_.emplace(key, Quotient{x, divisor, y});
    return y;
  }
  // linux64 keeps the division circuit. A fresh quotient y with the remainder bounds
  // 0 ≤ x − Σw·y < Σw (constant multiplications only) measured slower under QF_BV (THM-LAG-BOUND
  // linux-6.18 N = 3 depth 1: 1.8 s → 15.6 s), and so did stating those bounds next to the
  // circuit (INV-LAG-SUM N = 3 held to depth 1 instead of 2 in 60 s): SAT propagates a division
  // forwards, but has to search for a y that only a side condition defines.
  z3::expr Wn = zero();
  for (const auto& [cond, w] : s.terms) Wn = Wn + z3::ite(cond, weight_num(w), zero());
  const z3::expr safe = z3::ite(W == 0, lit(1), Wn);
  // avg_vruntime: "if (avg < 0) avg -= load − 1" turns div_s64's truncation into a floor.
  const z3::expr num = floor ? z3::ite(z3::slt(x, zero()), x - (safe - lit(1)), x) : x;
  return z3::ite(W == 0, zero(), num / safe);
}

std::vector<z3::expr> Numbers::take_definitions() {
  std::vector<z3::expr> d;
  d.swap(defs_);
  return d;
}

}  // namespace vlag::smt::detail
