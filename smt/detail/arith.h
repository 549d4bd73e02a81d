// The two number encodings of the symbolic model (SPEC.md §1, §7). Virtual times, slices and
// request sizes are "Num" terms: Z3 reals for the exact mathematics, 64-bit bit-vectors for
// Linux's integers. Weights are integers drawn from a finite set, and every product or quotient
// by a weight is an if-then-else over that set's constants, so the exact encoding stays linear
// arithmetic and the bit-vector one multiplies only by constants. Divisions by a weight sum
// become a fresh quotient defined by a linear side condition (exact) or Linux's floor and
// truncating divisions (linux64, as bit-vector division circuits, which SAT propagates).
#pragma once

#include <z3++.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "smt/engine.h"

namespace vlag::smt::detail {

/// A weight sum Σ_{cond} w: the divisor of avg_vruntime, lag inflation and the fluid clock.
struct WeightSum {
  std::vector<std::pair<z3::expr, z3::expr>> terms;  // (member?, weight as a small term)
};

class Numbers {
 public:
  Numbers(z3::context& ctx, Arith arith, std::vector<int64_t> weights);

  z3::context& ctx() { return ctx_; }
  bool exact() const { return arith_ == Arith::Exact; }
  const std::vector<int64_t>& weights() const { return weights_; }

  z3::sort sort();
  z3::expr var(const std::string& name);
  z3::expr lit(int64_t x);
  z3::expr zero() { return lit(0); }
  /// Values as a model gives them, as an exact rational text "p/q" or an integer.
  std::string value(const z3::model& m, const z3::expr& x);

  /// Small non-negative integers (weights, entity status, task ids, insertion numbers, step
  /// kinds): Ints in the exact encoding; 32-bit vectors in linux64, so that its problem is pure
  /// bit-vector logic, which Z3 bit-blasts to SAT, rather than a mixed Int and bit-vector one.
  /// Their values stay far below 2^31, so z3++'s signed bit-vector comparisons order them right.
  z3::sort small_sort();
  z3::expr small_var(const std::string& name);
  z3::expr small(int64_t x);

  z3::expr lt(const z3::expr& a, const z3::expr& b);
  z3::expr le(const z3::expr& a, const z3::expr& b);
  z3::expr min(const z3::expr& a, const z3::expr& b) { return z3::ite(le(a, b), a, b); }
  z3::expr max(const z3::expr& a, const z3::expr& b) { return z3::ite(le(a, b), b, a); }
  z3::expr is_integral(const z3::expr& x);  // exact: x ∈ ℤ; linux64: true

  /// x·w, w ∈ the weight set.
  z3::expr mulw(const z3::expr& w, const z3::expr& x);
  /// x·N (N = NICE_0_LOAD).
  z3::expr mulN(const z3::expr& x) { return mulw_const(1024, x); }
  z3::expr mulw_const(int64_t c, const z3::expr& x);
  /// vdelta(x, w) = x·N/w (§1): calc_delta_fair, fixed point in linux64.
  z3::expr vdelta(const z3::expr& x_ns, const z3::expr& w);
  /// x·w_old/w_new (§4.8), truncating in linux64 (div_s64).
  z3::expr scale(const z3::expr& x, const z3::expr& w_old, const z3::expr& w_new);
  /// x/2 (§4.3 step 5, PLACE_DEADLINE_INITIAL).
  z3::expr half(const z3::expr& x);
  /// The exact rational a/b (exact encoding only).
  z3::expr ratio(int64_t a, int64_t b);

  z3::expr weight_int(const WeightSum& s);  // Σ w as a small term
  /// Σ_{cond} w·x.
  z3::expr mulsum(const WeightSum& s, const z3::expr& x);
  /// x / Σw: exact quotient; linux64 floors (avg_vruntime) or truncates (div_s64). 0 when Σw = 0.
  z3::expr divsum(const z3::expr& x, const WeightSum& s, bool floor);

  /// Side conditions defining the fresh quotients created since the last call.
  std::vector<z3::expr> take_definitions();
  /// Forgets the quotients made so far: for a new solver that has not seen their definitions.
  /// Quotients are shared within one scope (one solver) only: its definitions live there.
  void set_scope(unsigned scope) { scope_ = scope; }

 private:
  z3::expr fresh(const char* what);
  z3::expr weight_num(const z3::expr& w);  // w as a Num term

  z3::context& ctx_;
  Arith arith_;
  std::vector<int64_t> weights_;
  std::vector<z3::expr> defs_;
  struct Quotient {
    z3::expr x, divisor, y;
  };
  std::map<std::tuple<unsigned, unsigned, unsigned>, Quotient> quotients_;
  unsigned scope_ = 0;
  int fresh_ = 0;
};

}  // namespace vlag::smt::detail
