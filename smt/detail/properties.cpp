#include "smt/detail/properties.h"

#include "spec/properties.h"

namespace vlag::smt::detail {
namespace {

z3::expr kind_is(const Choice& ch, OpKind k) { return ch.kind == step_code(k); }

// INV-LAG-SUM: Σ w_i·(V_f − v_i) = 0 (exact); Linux's floored V: −W < Σ w_i·(V − v_i) ≤ 0.
z3::expr lag_sum_bad(Model& m, const SymState& s) {
  Numbers& num = m.num();
  const z3::expr ref = num.exact() ? s.fluid : avg_vruntime(num, s);
  z3::expr sum = num.zero();
  for (const SymEntity& x : s.e)
    sum = sum + z3::ite(queued(x), num.mulw(x.w, ref - x.v), num.zero());
  if (num.exact()) return queue_nonempty(s) && sum != num.zero();
  const z3::expr W = num.mulsum(queue_weights(s), num.lit(1));
  return queue_nonempty(s) && !(num.lt(-W, sum) && num.le(sum, num.zero()));
}

z3::expr eligible_exists_bad(Model& m, const SymState& s) {
  z3::expr none = queue_nonempty(s);
  for (int i = 0; i < s.n(); ++i) none = none && !(queued(s.e[i]) && eligible(m.num(), s, i));
  return none;
}

// INV-DEADLINE: 0 < (d − v)·w/N ≤ ρ for i ∈ Q, unless a clamped reweight cut the request.
z3::expr deadline_bad(Model& m, const SymState& s) {
  Numbers& num = m.num();
  z3::expr any = s.curr.ctx().bool_val(false);
  for (const SymEntity& x : s.e) {
    const z3::expr rest = num.mulw(x.w, x.d - x.v);
    any = any ||
          (queued(x) && !x.cut && !(num.lt(num.zero(), rest) && num.le(rest, num.mulN(x.rho))));
  }
  return any;
}

// THM-LAG-BOUND: −r < lag < max(r, q); THM-LAG-BOUND-LINUX: −(r + TICK) ≤ lag ≤ r + TICK.
z3::expr lag_bound_bad(Model& m, const SymState& s, bool linux) {
  Numbers& num = m.num();
  const z3::expr V = avg_vruntime(num, s);
  z3::expr any = s.curr.ctx().bool_val(false);
  for (const SymEntity& x : s.e) {
    const z3::expr lagN = num.mulw(x.w, V - x.v);  // N·lag
    const z3::expr ok =
        linux ? num.le(num.mulN(-(x.r + m.tick())), lagN) && num.le(lagN, num.mulN(x.r + m.tick()))
              : num.lt(num.mulN(-x.r), lagN) && num.lt(lagN, num.mulN(num.max(x.r, m.tick())));
    any = any || (queued(x) && !ok);
  }
  return any;
}

// INV-PLACE-LAG after a wakeup from sleep.
z3::expr place_bad(Model& m, const SymState& b, const Choice& ch, const SymState& a) {
  Numbers& num = m.num();
  const Preset& p = m.options().params.preset;
  const z3::expr Va = avg_vruntime(num, a);
  z3::expr any = b.curr.ctx().bool_val(false);
  for (int i = 0; i < b.n(); ++i) {
    const WeightSum W = queue_weights(b);
    const z3::expr got = Va - a.e[i].v;
    z3::expr wrong = got != num.zero();
    if (p.has(Feature::PLACE_LAG)) {
      WeightSum with = W;
      with.terms.emplace_back(b.curr.ctx().bool_val(true), a.e[i].w);
      // Linux: V − v = vl; TR join: (V − v)·(W + w) = vl·W.
      const z3::expr off = p.join == JoinRule::Paper
                               ? num.mulsum(with, got) != num.mulsum(W, b.e[i].vl)
                               : got != b.e[i].vl;
      wrong = z3::ite(num.weight_int(W) == 0, wrong, off);
    }
    any = any || (ch.target == i + 1 && b.e[i].st == kSleeping && wrong);
  }
  return kind_is(ch, OpKind::Enqueue) && any;
}

// INV-REWEIGHT: V unchanged and w·vlag preserved, unless the lag clamp cut.
z3::expr reweight_bad(Model& m, const SymState& b, const Choice& ch, const SymState& a) {
  Numbers& num = m.num();
  const Preset& p = m.options().params.preset;
  const z3::expr Vb = avg_vruntime(num, b), Va = avg_vruntime(num, a);
  z3::expr any = b.curr.ctx().bool_val(false);
  for (int i = 0; i < b.n(); ++i) {
    const SymEntity &x = b.e[i], &y = a.e[i];
    z3::expr cut = b.curr.ctx().bool_val(false);
    if (p.clamp != LagClamp::None) {
      const z3::expr lim = m.clamp_limit(b, x);
      cut = num.lt(lim, Vb - x.v) || num.lt(Vb - x.v, -lim);
    }
    const z3::expr q_bad = !cut && (Va != Vb || num.mulw(x.w, Vb - x.v) != num.mulw(y.w, Va - y.v));
    const z3::expr s_bad = num.mulw(x.w, x.vl) != num.mulw(y.w, y.vl);
    z3::expr viol = z3::ite(queued(x), q_bad, s_bad);
    // linux-6.18 promises it only for i ≠ curr (§4.8 "place").
    if (p.reweight == ReweightRule::Place) viol = viol && b.curr != i + 1;
    any = any || (ch.target == i + 1 && viol);
  }
  return kind_is(ch, OpKind::Reweight) && any;
}

z3::expr pick_bad(Model& m, const SymState& b, const Choice& ch, const SymState& a, bool edf) {
  Numbers& num = m.num();
  z3::expr any = b.curr.ctx().bool_val(false);
  if (!edf) {
    z3::expr not_elig = a.curr == 0;
    for (int i = 0; i < a.n(); ++i)
      not_elig = not_elig || (a.curr == i + 1 && !eligible(num, a, i));
    return kind_is(ch, OpKind::Pick) && queue_nonempty(a) && not_elig;
  }
  // Exempt (§4.4): curr kept under protection, and the next buddy taken under PICK_BUDDY.
  z3::expr kept = b.curr == a.curr && m.protect_slice(b);
  if (m.options().params.preset.has(Feature::PICK_BUDDY))
    kept = kept || (b.next != 0 && a.curr == b.next);
  for (int i = 0; i < a.n(); ++i)
    for (int j = 0; j < a.n(); ++j)
      if (i != j)
        any = any || (a.curr == i + 1 && queued(a.e[j]) && eligible(num, a, j) &&
                      num.lt(a.e[j].d, a.e[i].d));
  return kind_is(ch, OpKind::Pick) && !kept && any;
}

// INV-LAG-CLAMP for every entity that left Q in this step.
z3::expr clamp_bad(Model& m, const SymState& b, const SymState& a) {
  Numbers& num = m.num();
  const Preset& p = m.options().params.preset;
  z3::expr any = b.curr.ctx().bool_val(false);
  for (int i = 0; i < b.n(); ++i) {
    const SymEntity& y = a.e[i];
    const z3::expr lim = m.clamp_limit(b, y);  // the span of Q when the lag was taken
    z3::expr v = num.lt(lim, y.vl) || num.lt(y.vl, -lim);
    if (p.has(Feature::DELAY_ZERO)) v = v || (b.e[i].st == kDelayed && num.lt(num.zero(), y.vl));
    any = any || (queued(b.e[i]) && y.st == kSleeping && v);
  }
  return any;
}

z3::expr delay_bad(Model& m, const SymState& b, const Choice& ch, const SymState& a) {
  z3::expr delayed_eligible = b.curr.ctx().bool_val(false);
  for (int i = 0; i < b.n(); ++i)
    delayed_eligible = delayed_eligible || (ch.target == i + 1 && b.e[i].st == kQueued &&
                                            a.e[i].st == kDelayed && eligible(m.num(), b, i));
  z3::expr runs_delayed = b.curr.ctx().bool_val(false);
  for (int i = 0; i < a.n(); ++i)
    runs_delayed = runs_delayed || (a.curr == i + 1 && a.e[i].st != kQueued);
  return (kind_is(ch, OpKind::Dequeue) && delayed_eligible) || runs_delayed;
}

}  // namespace

z3::expr distinct_insertions(const SymState& s) {
  z3::expr r = s.curr.ctx().bool_val(true);
  for (int i = 0; i < s.n(); ++i)
    for (int j = i + 1; j < s.n(); ++j)
      r = r && z3::implies(queued(s.e[i]) && queued(s.e[j]), s.e[i].seq != s.e[j].seq);
  return r;
}

bool is_state_invariant(const std::string& id) {
  const Property& p = property(id);
  return p.kind == PropertyKind::StateInvariant || p.prove.steady;
}

z3::expr bad_state(Model& m, const std::string& id, const SymState& s) {
  if (id == ids::kInvLagSum) return lag_sum_bad(m, s);
  if (id == ids::kInvEligibleExists) return eligible_exists_bad(m, s);
  if (id == ids::kInvDeadline) return deadline_bad(m, s);
  if (id == ids::kThmLagBound) return lag_bound_bad(m, s, false);
  if (id == ids::kThmLagBoundLinux) return lag_bound_bad(m, s, true);
  return s.curr.ctx().bool_val(false);
}

bool can_violate(const std::string& id, OpKind k) {
  if (is_state_invariant(id) || id == ids::kInvLagClamp || id == ids::kInvDelay) return true;
  if (id == ids::kInvPlaceLag) return k == OpKind::Enqueue;
  if (id == ids::kInvReweight) return k == OpKind::Reweight;
  if (id == ids::kInvPickEligible || id == ids::kInvPickEdf) return k == OpKind::Pick;
  return false;
}

z3::expr bad(Model& m, const std::string& id, const SymState& b, const Choice& ch,
             const SymState& a) {
  if (is_state_invariant(id)) return bad_state(m, id, a);
  if (id == ids::kInvPlaceLag) return place_bad(m, b, ch, a);
  if (id == ids::kInvReweight) return reweight_bad(m, b, ch, a);
  if (id == ids::kInvPickEligible) return pick_bad(m, b, ch, a, false);
  if (id == ids::kInvPickEdf) return pick_bad(m, b, ch, a, true);
  if (id == ids::kInvLagClamp) return clamp_bad(m, b, a);
  if (id == ids::kInvDelay) return delay_bad(m, b, ch, a);
  return b.curr.ctx().bool_val(false);
}

// The strengthening lemmas (spec/RESULTS.md lists them): k-induction starts from any state that
// satisfies them, and BMC checks after every step that they still hold, so each is proved along
// with the invariant it supports (a lemma that failed would stop the search, never be assumed).
z3::expr lemma(Model& m, const std::string& id, const SymState& s) {
  Numbers& num = m.num();
  z3::expr r = m.domain(s);
  if (id == ids::kInvDeadline) {
    // L-REQUEST: every entity in Q, and every sleeping one that keeps a relative deadline, has a
    // positive request ρ. Without it an unreachable sleeper with a cut request (exempt from the
    // bound) and ρ ≤ 0 wakes up, drops the cut on its next request and breaks 0 < ρ.
    // L-REL-DEADLINE: a sleeping entity's relative deadline d is the remaining request it will
    // resume with (placement adds v back), so 0 < d·w/N ≤ ρ holds while it sleeps.
    for (const SymEntity& x : s.e) {
      const z3::expr rest = num.mulw(x.w, x.d);
      r = r && z3::implies(queued(x) || x.rel, num.lt(num.zero(), x.rho)) &&
          z3::implies(x.rel && !x.cut, num.lt(num.zero(), rest) && num.le(rest, num.mulN(x.rho)));
    }
  }
  if (id == ids::kInvPickEligible) {
    // L-SEQ-DISTINCT: the entities in Q carry distinct insertion numbers (each insert takes a new
    // one). Pick orders ties of deadline by seq; with two equal seqs and equal deadlines no tree
    // entity is "least" and pick_eevdf would return none although an eligible entity exists
    // (INV-ELIGIBLE-EXISTS, which needs no lemma: the division-free form holds for min v).
    r = r && distinct_insertions(s);
  }
  if (id == ids::kThmLagBound || id == ids::kThmLagBoundLinux) {
    // L-STEADY: under the steady driver every entity stays in Q (none sleeps or is delayed) and
    // serves requests of at most its slice (0 < ρ ≤ r: the first may be halved under
    // PLACE_DEADLINE_INITIAL; no cut), with INV-DEADLINE's 0 < (d − v)·w/N ≤ ρ. The lower bounds
    // rest on it: an entity is picked with lag ≥ 0 and runs at most its remaining request (paper)
    // or until a decision after it (Linux), so it cannot fall to −r (−(r + TICK)). Without the
    // bound the induction starts from a remaining request larger than r.
    for (const SymEntity& x : s.e) {
      const z3::expr rest = num.mulw(x.w, x.d - x.v);
      r = r && x.st == kQueued && !x.rel && !x.cut && !x.is_new && num.lt(num.zero(), x.rho) &&
          num.le(x.rho, x.r) && num.lt(num.zero(), rest) && num.le(rest, num.mulN(x.rho));
    }
  }
  return r;
}

}  // namespace vlag::smt::detail
