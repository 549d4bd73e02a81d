#include "smt/detail/state.h"

namespace vlag::smt::detail {

SymState fresh_state(Numbers& num, int n, const std::string& p) {
  z3::context& c = num.ctx();
  std::vector<SymEntity> es;
  for (int i = 1; i <= n; ++i) {
    const std::string k = p + "." + std::to_string(i) + ".";
    es.push_back({num.small_var(k + "w"), num.var(k + "r"), c.bool_const((k + "c").c_str()),
                  num.var(k + "v"), num.var(k + "d"), num.var(k + "rho"), num.var(k + "vl"),
                  c.bool_const((k + "rel").c_str()), c.bool_const((k + "cut").c_str()),
                  c.bool_const((k + "new").c_str()), num.small_var(k + "st"),
                  num.small_var(k + "seq")});
  }
  return {std::move(es),
          num.small_var(p + ".curr"),
          num.var(p + ".prot"),
          c.bool_const((p + ".hasprot").c_str()),
          num.var(p + ".vempty"),
          num.var(p + ".fluid"),
          num.small_var(p + ".seq"),
          num.small_var(p + ".next"),
          c.bool_const((p + ".lastinit").c_str())};
}

z3::expr equal(const SymState& a, const SymState& b) {
  z3::expr r = a.curr == b.curr && a.prot == b.prot && a.has_prot == b.has_prot &&
               a.v_empty == b.v_empty && a.fluid == b.fluid && a.seq_ctr == b.seq_ctr &&
               a.next == b.next && a.last_initial == b.last_initial;
  for (size_t i = 0; i < a.e.size(); ++i) {
    const SymEntity &x = a.e[i], &y = b.e[i];
    r = r && x.w == y.w && x.r == y.r && x.custom == y.custom && x.v == y.v && x.d == y.d &&
        x.rho == y.rho && x.vl == y.vl && x.rel == y.rel && x.cut == y.cut &&
        x.is_new == y.is_new && x.st == y.st && x.seq == y.seq;
  }
  return r;
}

SymState select(const z3::expr& c, const SymState& a, const SymState& b) {
  const auto ite = [&](const z3::expr& x, const z3::expr& y) { return z3::ite(c, x, y); };
  SymState s = b;
  for (size_t i = 0; i < a.e.size(); ++i) {
    const SymEntity &x = a.e[i], &y = b.e[i];
    s.e[i] = {ite(x.w, y.w),           ite(x.r, y.r),     ite(x.custom, y.custom),
              ite(x.v, y.v),           ite(x.d, y.d),     ite(x.rho, y.rho),
              ite(x.vl, y.vl),         ite(x.rel, y.rel), ite(x.cut, y.cut),
              ite(x.is_new, y.is_new), ite(x.st, y.st),   ite(x.seq, y.seq)};
  }
  s.curr = ite(a.curr, b.curr);
  s.prot = ite(a.prot, b.prot);
  s.has_prot = ite(a.has_prot, b.has_prot);
  s.v_empty = ite(a.v_empty, b.v_empty);
  s.fluid = ite(a.fluid, b.fluid);
  s.seq_ctr = ite(a.seq_ctr, b.seq_ctr);
  s.next = ite(a.next, b.next);
  s.last_initial = ite(a.last_initial, b.last_initial);
  return s;
}

z3::expr queued(const SymEntity& x) { return x.st != kSleeping; }

WeightSum queue_weights(const SymState& s) {
  WeightSum ws;
  for (const SymEntity& x : s.e) ws.terms.emplace_back(queued(x), x.w);
  return ws;
}

z3::expr queue_nonempty(const SymState& s) {
  z3::expr r = s.curr.ctx().bool_val(false);
  for (const SymEntity& x : s.e) r = r || queued(x);
  return r;
}

z3::expr avg_vruntime(Numbers& num, const SymState& s) {
  z3::expr sum = num.zero();
  for (const SymEntity& x : s.e) sum = sum + z3::ite(queued(x), num.mulw(x.w, x.v), num.zero());
  return z3::ite(queue_nonempty(s), num.divsum(sum, queue_weights(s), true), s.v_empty);
}

z3::expr eligible(Numbers& num, const SymState& s, int i) {
  z3::expr sum = num.zero();
  for (const SymEntity& x : s.e)
    sum = sum + z3::ite(queued(x), num.mulw(x.w, x.v - s.e[i].v), num.zero());
  return num.le(num.zero(), sum);
}

z3::expr min_slice(Numbers& num, const SymState& s, const z3::expr& none) {
  z3::expr m = none;
  for (const SymEntity& x : s.e) m = z3::ite(queued(x) && num.lt(x.r, m), x.r, m);
  return m;
}

}  // namespace vlag::smt::detail
