#include "smt/detail/step.h"

#include "spec/weights.h"

namespace vlag::smt::detail {
namespace {

constexpr int64_t kNoSlice = int64_t{1} << 40;  // larger than any slice: min_slice of ∅

z3::expr id_val(Numbers& num, int i) { return num.small(i + 1); }

}  // namespace

Model::Model(Numbers& num, const Options& o, std::string name)
    : num_(num),
      o_(o),
      p_(o.params.preset),
      tick_(o.params.tick_ns()),
      base_(o.params.base_slice_ns()),
      base_norm_(o.params.base_slice_norm_ns()),
      max_delta_(o.max_delta_ns > 0 ? o.max_delta_ns : o.params.tick_ns()),
      name_(std::move(name)) {}

// ---------------------------------------------------------------------------------------------
// Choices, creation and the structural domain

Choice Model::fresh_choice(const std::string& p) {
  z3::context& c = num_.ctx();
  return {num_.small_var(p + ".op"), num_.small_var(p + ".task"),
          num_.var(p + ".delta"),    num_.small_var(p + ".weight"),
          num_.var(p + ".slice"),    c.bool_const((p + ".sleep").c_str())};
}

z3::expr Model::choice_domain(const Choice& ch) {
  z3::context& c = num_.ctx();
  z3::expr w_in = c.bool_val(false);
  for (int64_t w : o_.weights) w_in = w_in || ch.weight == num_.small(w);
  z3::expr r_in = c.bool_val(false);
  for (int64_t r : o_.slices) r_in = r_in || ch.slice == num_.lit(r);
  return ch.kind >= 0 && ch.kind < kStepCount && ch.target >= 1 &&
         ch.target <= static_cast<int>(o_.tasks) && num_.le(num_.zero(), ch.delta) &&
         num_.le(ch.delta, num_.lit(max_delta_)) && num_.is_integral(ch.delta) && w_in && r_in;
}

z3::expr Model::initial(const SymState& s) {
  z3::context& c = num_.ctx();
  z3::expr r = s.curr == 0 && !s.has_prot && s.v_empty == num_.zero() && s.fluid == num_.zero() &&
               s.seq_ctr == 0 && s.prot == num_.zero() && s.next == 0 && !s.last_initial;
  for (const SymEntity& x : s.e) {
    z3::expr slice_in = c.bool_val(false);
    for (int64_t sl : o_.slices)
      slice_in = slice_in ||
                 (sl == 0 ? !x.custom && x.r == base_slice() : x.custom && x.r == num_.lit(sl));
    r = r && slice_in && x.v == num_.zero() && x.d == num_.zero() && x.vl == num_.zero() &&
        x.rho == num_.zero() && !x.rel && !x.cut && x.is_new && x.st == kSleeping && x.seq == 0;
  }
  return r && domain(s);
}

z3::expr Model::domain(const SymState& s) {
  z3::context& c = num_.ctx();
  // The next buddy is a queued entity other than curr (set at a wakeup of one, cleared when it
  // is picked or dequeued).
  z3::expr r = s.curr >= 0 && s.curr <= s.n() && s.seq_ctr >= 0 && s.next >= 0 && s.next <= s.n() &&
               (s.next == 0 || s.next != s.curr);
  for (int i = 0; i < s.n(); ++i) {
    const SymEntity& x = s.e[i];
    z3::expr w_in = c.bool_val(false);
    for (int64_t w : o_.weights) w_in = w_in || x.w == num_.small(w);
    z3::expr r_in = !x.custom && x.r == base_slice();
    for (int64_t sl : o_.slices)
      if (sl != 0) r_in = r_in || (x.custom && x.r == num_.lit(sl));
    r = r && w_in && r_in && x.st >= kSleeping && x.st <= kDelayed && x.seq >= 0 &&
        x.seq <= s.seq_ctr && z3::implies(s.curr == i + 1, x.st == kQueued) &&
        z3::implies(x.rel, x.st == kSleeping) && z3::implies(s.next == i + 1, x.st == kQueued);
    if (!p_.has(Feature::DELAY_DEQUEUE)) r = r && x.st != kDelayed;
    if (!num_.exact()) {
      // Keep every value far inside s64 (SPEC.md §7's margins): |x| < 2^48.
      const z3::expr lim = num_.lit(int64_t{1} << 48);
      for (const z3::expr* f : {&x.v, &x.d, &x.rho, &x.vl})
        r = r && num_.lt(*f, lim) && num_.lt(-lim, *f);
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Queue membership and the fluid clock (§3)

SymState Model::insert(const SymState& s, int i) {
  SymState t = s;
  t.seq_ctr = s.seq_ctr + 1;
  t.e[i].seq = t.seq_ctr;
  return t;
}

// TR eq. 18 on the ghost; V_∅ := V when the queue empties. W and V before the leave.
SymState Model::leave(const SymState& s, int i) {
  const z3::expr V = avg_vruntime(num_, s);
  const SymEntity& x = s.e[i];
  SymState t = s;
  t.e[i].st = num_.small(kSleeping);
  const WeightSum rest = queue_weights(t);
  const z3::expr last = !queue_nonempty(t);
  z3::expr moved = s.fluid;
  if (num_.exact() && o_.mutation != Mutation::NoLeaveRule)
    moved = s.fluid + num_.divsum(num_.mulw(x.w, s.fluid - x.v), rest, false);
  t.fluid = z3::ite(last, V, moved);
  t.v_empty = z3::ite(last, V, s.v_empty);
  return t;
}

// TR eq. 19 on the ghost; W before the join.
SymState Model::join(const SymState& s, int i) {
  const SymEntity& x = s.e[i];
  SymState t = s;
  t.e[i].st = num_.small(kQueued);
  const z3::expr was_empty = !queue_nonempty(s);
  if (num_.exact())  // linux64 keeps no ghost: its INV-LAG-SUM is the floored form (§6)
    t.fluid =
        z3::ite(was_empty, x.v,
                s.fluid - num_.divsum(num_.mulw(x.w, s.fluid - x.v), queue_weights(t), false));
  return insert(t, i);
}

// ---------------------------------------------------------------------------------------------
// §4.7 entity_lag and the rejoin strategies

// vdelta(max(2r, TICK), w), or under MaxSlice vdelta(the largest slice of Q and x's own + TICK, w).
z3::expr Model::clamp_limit(const SymState& s, const SymEntity& x) {
  if (p_.clamp == LagClamp::MaxSlice) {
    z3::expr span = x.r;
    for (const SymEntity& y : s.e) span = z3::ite(queued(y), num_.max(span, y.r), span);
    return num_.vdelta(span + tick(), x.w);
  }
  return num_.vdelta(num_.max(num_.mulw_const(2, x.r), tick()), x.w);
}

z3::expr Model::entity_lag(const SymState& s, int i, const z3::expr& V) {
  const z3::expr l = V - s.e[i].v;
  if (p_.clamp == LagClamp::None) return l;
  const z3::expr lim = clamp_limit(s, s.e[i]);
  return num_.min(num_.max(l, -lim), lim);
}

z3::expr Model::saved_lag(const SymState& s, int i, const z3::expr& V) {
  const z3::expr l = entity_lag(s, i, V);
  if (p_.rejoin_strategy == 2) return num_.zero();
  if (p_.rejoin_strategy == 3) return num_.min(l, num_.zero());
  return l;
}

// ---------------------------------------------------------------------------------------------
// §4.3 place_entity, enqueue_entity; §4.9 requeue of a delayed entity

SymState Model::place_entity(const SymState& s, int i, bool initial_known,
                             const z3::expr& initial) {
  const z3::expr V = avg_vruntime(num_, s);
  const WeightSum W = queue_weights(s);
  const z3::expr Wi = num_.weight_int(W);
  SymState t = s;
  SymEntity& x = t.e[i];
  x.r = z3::ite(x.custom, x.r, base_slice());
  z3::expr vs = num_.vdelta(x.r, x.w);
  z3::expr l = num_.zero();
  if (p_.has(Feature::PLACE_LAG)) {
    z3::expr lag = x.vl;
    if (p_.join == JoinRule::Inflate && o_.mutation != Mutation::NoInflation) {
      WeightSum with = W;
      with.terms.emplace_back(num_.ctx().bool_val(true), x.w);
      lag = num_.divsum(num_.mulsum(with, x.vl), W, false);  // vl·(W + w)/W
    }
    l = z3::ite(Wi != 0 && x.vl != num_.zero(), lag, num_.zero());
  }
  x.v = V - l;
  if (p_.has(Feature::PLACE_DEADLINE_INITIAL) && initial_known)
    vs = z3::ite(initial, num_.half(vs), vs);
  const z3::expr fresh_d = x.v + vs;
  // ρ := vs·w/N, the ghost request of the reference: truncated in linux64 (mul_div), so that
  // it is the request the rounded virtual slice stands for, not the one the slice meant.
  const z3::expr rho = num_.exact() ? num_.mulw(x.w, vs) * num_.ratio(1, kNice0Weight)
                                    : num_.mulw(x.w, vs) / num_.lit(kNice0Weight);
  x.d = z3::ite(s.e[i].rel, x.v + s.e[i].d, fresh_d);
  x.rho = z3::ite(s.e[i].rel, s.e[i].rho, rho);
  x.cut = z3::ite(s.e[i].rel, s.e[i].cut, num_.ctx().bool_val(false));
  x.rel = num_.ctx().bool_val(false);
  return t;
}

SymState Model::enqueue_entity(const SymState& s, int i) {
  z3::context& c = num_.ctx();
  const SymEntity& x = s.e[i];
  // From sleep: place, join, no longer new.
  SymState woke = join(place_entity(s, i, true, x.is_new), i);
  woke.e[i].is_new = c.bool_val(false);
  woke.last_initial = x.is_new;
  // From delayed (§4.9): under DELAY_ZERO a positive lag restarts the entity at V; under
  // NoDecrease a lag other than V − v (floored by the one it was delayed with) places it again.
  SymState requeued = s;
  if (p_.delayed_lag == DelayedLag::NoDecrease) {
    const z3::expr V = avg_vruntime(num_, s);
    z3::expr l = num_.max(entity_lag(s, i, V), x.vl);
    if (p_.has(Feature::DELAY_ZERO)) l = num_.min(l, num_.zero());
    SymState again = leave(s, i);
    again.e[i].vl = l;
    again = join(place_entity(again, i, false, c.bool_val(false)), i);
    requeued = select(l != V - x.v, again, s);
  } else if (p_.has(Feature::DELAY_ZERO)) {
    const z3::expr V = avg_vruntime(num_, s);
    SymState restart = leave(s, i);
    restart.e[i].vl = num_.zero();
    restart = join(place_entity(restart, i, false, c.bool_val(false)), i);
    requeued = select(num_.lt(num_.zero(), entity_lag(s, i, V)), restart, s);
  }
  requeued.e[i].st = num_.small(kQueued);
  requeued.last_initial = c.bool_val(false);
  return select(x.st == kDelayed, requeued, woke);
}

// ---------------------------------------------------------------------------------------------
// §4.7 dequeue_entity, §4.9 delayed dequeue

SymState Model::put_prev_entity(const SymState& s) {
  SymState t = s;
  for (int j = 0; j < s.n(); ++j) t = select(s.curr == j + 1 && queued(s.e[j]), insert(t, j), t);
  t.curr = num_.small(0);
  t.has_prot = num_.ctx().bool_val(false);
  return t;
}

SymState Model::dequeue_entity(const SymState& s0, int i, const z3::expr& sleep) {
  z3::context& c = num_.ctx();
  SymState s = s0;
  s.next = clear_buddy(s0, i);
  const z3::expr was_curr = s.curr == i + 1;
  // Delayed: stays in Q, back into the tree if it was running.
  SymState delayed = s;
  delayed.e[i].st = num_.small(kDelayed);
  if (p_.delayed_lag == DelayedLag::NoDecrease)
    delayed.e[i].vl = entity_lag(s, i, avg_vruntime(num_, s));  // the floor of its lag (§4.9)
  delayed = select(was_curr, put_prev_entity(delayed), delayed);
  const z3::expr delay =
      sleep && c.bool_val(p_.has(Feature::DELAY_DEQUEUE)) && !eligible(num_, s0, i);

  const z3::expr vl = saved_lag(s, i, avg_vruntime(num_, s));
  SymState gone = s;
  if (p_.has(Feature::PLACE_REL_DEADLINE)) {
    gone.e[i].d = z3::ite(sleep, s.e[i].d, s.e[i].d - s.e[i].v);
    gone.e[i].rel = !sleep;
  }
  gone.curr = z3::ite(was_curr, num_.small(0), s.curr);
  gone.has_prot = z3::ite(was_curr, c.bool_val(false), s.has_prot);
  gone = leave(gone, i);
  gone.e[i].vl = vl;
  return select(delay, delayed, gone);
}

SymState Model::finish_delayed_dequeue(const SymState& s, int i) {
  z3::expr vl = saved_lag(s, i, avg_vruntime(num_, s));
  if (p_.delayed_lag == DelayedLag::NoDecrease) vl = num_.max(vl, s.e[i].vl);
  if (p_.has(Feature::DELAY_ZERO)) vl = num_.min(vl, num_.zero());
  SymState t = leave(s, i);
  t.e[i].vl = vl;
  return t;
}

// ---------------------------------------------------------------------------------------------
// §4.1 update_curr, §4.2 entity_tick

SymState Model::update_deadline(const SymState& s, int i) {
  const SymEntity& x = s.e[i];
  SymState t = s;
  SymEntity& y = t.e[i];
  y.r = z3::ite(x.custom, x.r, base_slice());
  y.d = x.v + num_.vdelta(y.r, x.w);
  y.rho = y.r;
  y.cut = num_.ctx().bool_val(false);
  return select(num_.le(x.d, x.v), t, s);
}

SymState Model::update_curr(const SymState& s, const z3::expr& delta) {
  SymState out = s;
  for (int i = 0; i < s.n(); ++i) {
    SymState t = s;
    t.e[i].v = s.e[i].v + num_.vdelta(delta, s.e[i].w);
    if (num_.exact()) t.fluid = s.fluid + num_.divsum(num_.mulN(delta), queue_weights(s), false);
    out = select(s.curr == i + 1, update_deadline(t, i), out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// §4.5 protection

z3::expr Model::protect_slice(const SymState& s) {
  z3::context& c = num_.ctx();
  if (p_.protection == Protection::None) return c.bool_val(false);
  z3::expr r = c.bool_val(false);
  for (int i = 0; i < s.n(); ++i) {
    const z3::expr on =
        p_.protection == Protection::Stash ? s.prot == s.e[i].d : num_.lt(s.e[i].v, s.prot);
    r = r || (s.curr == i + 1 && s.has_prot && on);
  }
  return r;
}

SymState Model::set_protect_slice(const SymState& s, int i) {
  z3::context& c = num_.ctx();
  SymState t = s;
  const SymEntity& x = s.e[i];
  t.has_prot = c.bool_val(false);
  if (p_.protection == Protection::Stash && p_.has(Feature::RUN_TO_PARITY)) {
    t.has_prot = c.bool_val(true);
    t.prot = x.d;
  } else if (p_.protection == Protection::Vprot) {
    z3::expr sl = p_.has(Feature::RUN_TO_PARITY) ? min_slice(num_, s, num_.lit(kNoSlice))
                                                 : num_.lit(base_norm_);
    sl = num_.min(sl, x.r);
    t.has_prot = c.bool_val(true);
    t.prot = z3::ite(sl != x.r, num_.min(x.d, x.v + num_.vdelta(sl, x.w)), x.d);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// §4.4 pick

// The next buddy once entity i leaves the tree (picked, dequeued or yielding): none if it was i.
z3::expr Model::clear_buddy(const SymState& s, int i) {
  return z3::ite(s.next == i + 1, num_.small(0), s.next);
}

z3::expr Model::pick_eevdf(const SymState& s, bool protect) {
  z3::context& c = num_.ctx();
  const int n = s.n();
  std::vector<z3::expr> elig, cand;
  z3::expr count = num_.small(0);
  for (int j = 0; j < n; ++j) {
    elig.push_back(o_.mutation == Mutation::NoEligibility ? c.bool_val(true)
                                                          : eligible(num_, s, j));
    cand.push_back(queued(s.e[j]) && s.curr != j + 1 && elig.back());
    count = count + z3::ite(queued(s.e[j]), num_.small(1), num_.small(0));
  }
  // Step 5: the eligible tree entity with the least (d, seq).
  z3::expr best = num_.small(0);
  for (int j = n - 1; j >= 0; --j) {
    z3::expr least = cand[j];
    for (int k = 0; k < n; ++k)
      if (k != j)
        least =
            least && z3::implies(cand[k], num_.lt(s.e[j].d, s.e[k].d) ||
                                              (s.e[j].d == s.e[k].d && s.e[j].seq < s.e[k].seq));
    best = z3::ite(least, id_val(num_, j), best);
  }
  // Step 6: curr, if eligible, wins with a strictly earlier deadline (or with no other choice).
  z3::expr pick = best;
  z3::expr only = num_.small(0);
  for (int j = n - 1; j >= 0; --j) {
    z3::expr beats = elig[j];
    for (int k = 0; k < n; ++k)
      if (k != j) beats = beats && z3::implies(cand[k], num_.lt(s.e[j].d, s.e[k].d));
    pick = z3::ite(s.curr == j + 1 && beats, id_val(num_, j), pick);
    // Step 4: protected curr.
    if (protect)
      pick = z3::ite(s.curr == j + 1 && elig[j] && protect_slice(s), id_val(num_, j), pick);
    only = z3::ite(queued(s.e[j]), id_val(num_, j), only);
  }
  // Step 3: an eligible next buddy comes before everything but a lone entity (PICK_BUDDY).
  if (p_.has(Feature::PICK_BUDDY))
    for (int j = 0; j < n; ++j)
      pick = z3::ite(s.next == j + 1 && queued(s.e[j]) && elig[j], id_val(num_, j), pick);
  return z3::ite(count == 1, only, pick);  // step 1
}

SymState Model::set_next_entity(const SymState& s, int i) {
  SymState t = put_prev_entity(s);
  t.curr = num_.small(i + 1);
  t.next = clear_buddy(s, i);
  t = set_protect_slice(t, i);
  return select(s.curr == i + 1, s, t);  // the same task: nothing is re-armed
}

SymState Model::materialize(const SymState& s, z3::expr_vector& defs) {
  SymState m = fresh_state(num_, s.n(), name_ + "!" + std::to_string(materialized_++));
  defs.push_back(equal(m, s));
  return m;
}

SymState Model::pick_next_entity(const SymState& s) {
  z3::context& c = num_.ctx();
  z3::expr_vector defs(c);
  SymState cur = s;
  // A delayed pick completes that dequeue and picks again (§4.9): at most N rounds.
  const int rounds = p_.has(Feature::DELAY_DEQUEUE) ? s.n() : 0;
  for (int round = 0; round < rounds; ++round) {
    const z3::expr choice = pick_eevdf(cur, true);
    SymState next = cur;
    for (int j = 0; j < s.n(); ++j)
      next =
          select(choice == j + 1 && cur.e[j].st == kDelayed, finish_delayed_dequeue(cur, j), next);
    cur = materialize(next, defs);
  }
  const z3::expr choice = pick_eevdf(cur, true);
  SymState out = put_prev_entity(cur);
  for (int j = 0; j < s.n(); ++j) out = select(choice == j + 1, set_next_entity(cur, j), out);
  for (const z3::expr& d : defs) extra_defs_.push_back(d);
  return out;
}

// ---------------------------------------------------------------------------------------------
// §4.8 reweight

SymState Model::reweight_entity(const SymState& s, int i, const z3::expr& w2) {
  z3::context& c = num_.ctx();
  const SymEntity& x = s.e[i];
  const auto scale = [&](const z3::expr& y) { return num_.scale(y, x.w, w2); };

  SymState asleep = s;
  asleep.e[i].vl = scale(x.vl);
  asleep.e[i].d = z3::ite(x.rel, scale(x.d), x.d);
  asleep.e[i].w = w2;

  const z3::expr is_curr = s.curr == i + 1;
  const z3::expr V = avg_vruntime(num_, s);
  SymState q = s;
  switch (p_.reweight) {
    case ReweightRule::KeepV:
      q.e[i].d = x.v + scale(x.d - x.v);
      q.e[i].w = w2;
      break;
    case ReweightRule::Rescale: {
      const z3::expr l = entity_lag(s, i, V);
      q.e[i].cut = x.cut || l != V - x.v;
      q.e[i].v = V - scale(l);
      q.e[i].d = V + scale(x.d - V);
      if (p_.protection == Protection::Vprot)  // 7.1: a vprot in force is rescaled around V
        q.prot = z3::ite(is_curr && protect_slice(s), V + scale(s.prot - V), s.prot);
      if (p_.delayed_lag == DelayedLag::NoDecrease) q.e[i].vl = scale(l);
      q.e[i].w = w2;
      q = select(is_curr, q, insert(q, i));
      break;
    }
    case ReweightRule::Place: {
      const z3::expr l = entity_lag(s, i, V);
      const z3::expr rel = x.d - x.v;
      SymState t = select(is_curr, s, leave(s, i));
      t.e[i].vl = scale(l);
      t.e[i].d = scale(rel);
      t.e[i].rel = c.bool_val(true);
      t.e[i].w = w2;
      t = place_entity(t, i, false, c.bool_val(false));
      SymState joined = join(t, i);
      joined.e[i].st = x.st;
      q = select(is_curr, t, joined);
      break;
    }
  }
  if (num_.exact()) q.fluid = avg_vruntime(num_, q);  // §3: INV-REWEIGHT judges the move, once
  return select(queued(x), q, asleep);
}

// ---------------------------------------------------------------------------------------------
// §4.10 set_slice, §4.11 yield

SymState Model::set_slice(const SymState& s, int i, const z3::expr& r) {
  SymState t = s;
  t.e[i].custom = r != num_.zero();
  t.e[i].r = z3::ite(r != num_.zero(), r, base_slice());
  return t;
}

SymState Model::yield_task(const SymState& s) {
  z3::expr count = num_.small(0);
  for (const SymEntity& x : s.e) count = count + z3::ite(queued(x), num_.small(1), num_.small(0));
  SymState out = s;
  for (int i = 0; i < s.n(); ++i) {
    SymState t = s;
    const z3::expr vs = num_.vdelta(s.e[i].r, s.e[i].w);
    if (p_.yield == YieldRule::Forfeit) {
      // 79104becf42b: an eligible yielder forfeits the rest of its request; the ghost follows V.
      t.e[i].v = s.e[i].d;
      t.e[i].d = s.e[i].d + vs;
      t.e[i].rho = s.e[i].r;
      t.e[i].cut = num_.ctx().bool_val(false);
      if (num_.exact()) t.fluid = avg_vruntime(num_, t);
      t = select(eligible(num_, s, i), t, s);
    } else {
      t.e[i].d = s.e[i].d + vs;
      t.e[i].rho = s.e[i].rho + s.e[i].r;
    }
    t.next = clear_buddy(s, i);  // yield_task_fair clears the buddies whatever it does
    out = select(s.curr == i + 1 && count > 1, t, out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// §4.12 wakeup preemption

// Ends curr's protection, if it has one in force: stash moves past its deadline, vprot to v.
SymState Model::cancel_protect_slice(const SymState& s) {
  SymState t = s;
  for (int j = 0; j < s.n(); ++j) {
    const SymEntity& c = s.e[j];
    const z3::expr ended = p_.protection == Protection::Stash ? c.d + num_.lit(1) : c.v;
    t.prot = z3::ite(s.curr == j + 1, ended, t.prot);
  }
  return select(protect_slice(s), t, s);
}

// vprot only: the protection shrinks to the shortest slice in Q.
SymState Model::update_protect_slice(const SymState& s) {
  if (p_.protection != Protection::Vprot) return s;
  SymState t = s;
  const z3::expr sl = min_slice(num_, s, num_.lit(kNoSlice));
  for (int j = 0; j < s.n(); ++j) {
    const SymEntity& c = s.e[j];
    t.prot = z3::ite(s.curr == j + 1, num_.min(s.prot, c.v + num_.vdelta(sl, c.w)), t.prot);
  }
  return select(s.curr != 0 && s.has_prot, t, s);
}

SymState Model::wakeup_preempt(const SymState& s0, int i) {
  // NEXT_BUDDY: the wakee becomes the next buddy when something runs, unless it is a new
  // entity's first wakeup; the preemption decision below already sees it.
  SymState s = s0;
  if (p_.has(Feature::NEXT_BUDDY))
    s.next = z3::ite(s0.curr != 0 && !s0.last_initial, id_val(num_, i), s0.next);
  if (!p_.has(Feature::WAKEUP_PREEMPTION)) return s;
  const SymEntity& p = s.e[i];
  SymState out = s;
  for (int j = 0; j < s.n(); ++j) {
    if (j == i) continue;
    const SymEntity& c = s.e[j];
    const z3::expr is_short =
        num_.ctx().bool_val(p_.has(Feature::PREEMPT_SHORT)) && num_.lt(p.r, c.r);
    SymState t = s;
    switch (p_.wakeup) {
      case WakeupRule::None:
      case WakeupRule::Pick:
        break;
      case WakeupRule::ShortV1: {
        const z3::expr cancel =
            is_short && eligible(num_, s, i) && (num_.lt(p.d, c.d) || !eligible(num_, s, j));
        t = select(cancel, cancel_protect_slice(s), s);
        break;
      }
      case WakeupRule::ShortV2: {
        const z3::expr wins = z3::ite(is_short, pick_eevdf(s, false), pick_eevdf(s, true)) == i + 1;
        SymState lose = s;
        if (p_.has(Feature::RUN_TO_PARITY)) lose = select(is_short, update_protect_slice(s), s);
        t = select(wins, select(is_short, cancel_protect_slice(s), s), lose);
        break;
      }
    }
    out = select(s.curr == j + 1, t, out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The relations

z3::expr Model::transition(const SymState& s, const Choice& ch, const SymState& next) {
  const auto kind = [&](OpKind k) { return ch.kind == step_code(k); };
  z3::expr r = choice_domain(ch);
  for (int i = 0; i < s.n(); ++i) {
    const z3::expr at = ch.target == i + 1;
    r = r && z3::implies(kind(OpKind::Enqueue) && at,
                         s.e[i].st != kQueued && equal(next, enqueue_entity(s, i)));
    r = r && z3::implies(kind(OpKind::Dequeue) && at,
                         s.e[i].st == kQueued && equal(next, dequeue_entity(s, i, ch.sleep)));
    r = r &&
        z3::implies(kind(OpKind::Reweight) && at, equal(next, reweight_entity(s, i, ch.weight)));
    r = r && z3::implies(kind(OpKind::SetSlice) && at, equal(next, set_slice(s, i, ch.slice)));
    r = r &&
        z3::implies(kind(OpKind::WakeupPreempt) && at,
                    s.e[i].st == kQueued && s.curr != i + 1 && equal(next, wakeup_preempt(s, i)));
  }
  r = r && z3::implies(kind(OpKind::Pick), equal(next, pick_next_entity(s)));
  r = r && z3::implies(kind(OpKind::Run), equal(next, update_curr(s, ch.delta)));
  r = r && z3::implies(kind(OpKind::Tick), equal(next, update_curr(s, num_.zero())));
  r = r && z3::implies(kind(OpKind::Yield), s.curr != 0 && equal(next, yield_task(s)));
  for (const z3::expr& d : take_definitions()) r = r && d;
  return r;
}

std::vector<z3::expr> Model::take_definitions() {
  std::vector<z3::expr> out = num_.take_definitions();
  out.insert(out.end(), extra_defs_.begin(), extra_defs_.end());
  extra_defs_.clear();
  return out;
}

z3::expr Model::steady_transition(const SymState& s, const Choice& ch, const SymState& next) {
  z3::context& c = num_.ctx();
  z3::expr_vector defs(c);
  const SymState picked = materialize(pick_next_entity(s), defs);
  // Linux: the next decision comes within --max-delta (one tick by default: the tick, or an
  // update_curr before it). Paper: the quantum q is the tick, whatever --max-delta says.
  const bool paper = p_.protection == Protection::None;
  z3::expr run = num_.lt(num_.zero(), ch.delta) &&
                 num_.le(ch.delta, paper ? tick() : num_.lit(max_delta_)) &&
                 num_.is_integral(ch.delta);
  if (paper) {
    // §4.5, paper: the picked client runs for min(q, ⌈(d − v)·w/N⌉).
    for (int i = 0; i < s.n(); ++i) {
      const SymEntity& x = picked.e[i];
      const z3::expr rest = num_.mulw(x.w, x.d - x.v);  // N·remaining request
      const z3::expr ceil =
          num_.le(rest, num_.mulN(ch.delta)) && num_.lt(num_.mulN(ch.delta - num_.lit(1)), rest);
      run = run && z3::implies(picked.curr == i + 1,
                               z3::ite(num_.le(rest, num_.mulN(tick())), ceil, ch.delta == tick()));
    }
  }
  z3::expr r = picked.curr != 0 && run && equal(next, update_curr(picked, ch.delta)) &&
               ch.kind == step_code(OpKind::Run) && ch.target == 1;
  for (const z3::expr& d : defs) r = r && d;
  for (const z3::expr& d : take_definitions()) r = r && d;
  return r;
}

}  // namespace vlag::smt::detail
