#include "smt/detail/decode.h"

#include <gmpxx.h>

#include "spec/weights.h"

namespace vlag::smt::detail {
namespace {

int64_t as_int(Numbers& num, const z3::model& m, const z3::expr& x) {
  return std::stoll(num.value(m, x));
}

mpq_class as_exact(Numbers& num, const z3::model& m, const z3::expr& x) {
  mpq_class q(num.value(m, x));
  q.canonicalize();
  return q;
}

std::string text(mpq_class q) {
  q.canonicalize();
  return q.get_str();
}

// A non-steady step as the spec operation it performs.
Op decoded_op(Numbers& num, const z3::model& m, const Choice& c) {
  const OpKind kind = step_op(m.eval(c.kind, true).get_numeral_int());
  const EntityId id = m.eval(c.target, true).get_numeral_int64();
  switch (kind) {
    case OpKind::Enqueue:
      return {OpKind::Enqueue, id};
    case OpKind::Dequeue:
      return {OpKind::Dequeue, id, 0, 0, m.eval(c.sleep, true).is_true() ? kDequeueSleep : 0u};
    case OpKind::Pick:
      return {OpKind::Pick};
    case OpKind::Run:
      return {OpKind::Run, 0, as_int(num, m, c.delta)};
    case OpKind::Tick:
      return {OpKind::Tick};
    case OpKind::Reweight:
      return {OpKind::Reweight, id, m.eval(c.weight, true).get_numeral_int64()};
    case OpKind::SetSlice:
      return {OpKind::SetSlice, id, as_int(num, m, c.slice)};
    case OpKind::WakeupPreempt:
      return {OpKind::WakeupPreempt, id};
    default:  // Yield, the one step left (the choice's domain holds no other value)
      break;
  }
  return {OpKind::Yield};
}

}  // namespace

std::vector<Op> decode(Numbers& num, const z3::model& m, const SymState& s0,
                       const std::vector<Choice>& steps, bool steady) {
  std::vector<Op> ops;
  for (int i = 0; i < s0.n(); ++i) {
    const SymEntity& x = s0.e[i];
    const bool custom = m.eval(x.custom, true).is_true();
    ops.push_back({OpKind::Create, i + 1, m.eval(x.w, true).get_numeral_int64(),
                   custom ? as_int(num, m, x.r) : 0});
  }
  if (steady)
    for (int i = 0; i < s0.n(); ++i) ops.push_back({OpKind::Enqueue, i + 1});
  for (const Choice& c : steps) {
    if (steady) {
      ops.push_back({OpKind::Pick});
      ops.push_back({OpKind::Run, 0, as_int(num, m, c.delta)});
      continue;
    }
    ops.push_back(decoded_op(num, m, c));
  }
  return ops;
}

std::string step_text(Numbers& num, const z3::model& m, const Choice& step, bool steady) {
  if (steady) return "pick; run " + num.value(m, step.delta);
  return to_string(decoded_op(num, m, step));
}

StateValues state_values(Numbers& num, const z3::model& m, const SymState& s) {
  StateValues out;
  out.curr = m.eval(s.curr, true).get_numeral_int64();
  mpq_class sum = 0, W = 0;
  for (const SymEntity& x : s.e) {
    if (m.eval(x.st, true).get_numeral_int() == kSleeping) continue;
    const int64_t w = m.eval(x.w, true).get_numeral_int64();
    sum += as_exact(num, m, x.v) * w;
    W += w;
  }
  mpq_class V = as_exact(num, m, s.v_empty);
  if (W != 0) {
    V = sum / W;
    if (!num.exact()) {  // avg_vruntime floors
      mpz_class floored;
      mpz_fdiv_q(floored.get_mpz_t(), V.get_num_mpz_t(), V.get_den_mpz_t());
      V = floored;
    }
  }
  out.V = text(V);
  static const char* status[] = {"sleeping", "queued", "delayed"};
  for (int i = 0; i < s.n(); ++i) {
    const SymEntity& x = s.e[i];
    const int64_t w = m.eval(x.w, true).get_numeral_int64();
    const mpq_class v = as_exact(num, m, x.v), d = as_exact(num, m, x.d);
    out.entities.push_back({i + 1, status[m.eval(x.st, true).get_numeral_int()], w,
                            num.value(m, x.r), text(v), text(d), text((V - v) * w / kNice0Weight),
                            text((d - v) * w / kNice0Weight)});
  }
  return out;
}

}  // namespace vlag::smt::detail
