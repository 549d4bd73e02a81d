// Definitions of BasicRunqueue (basic_runqueue.h). Included only where a runqueue type is
// instantiated (reference/runqueue.cpp, optimized/runqueue.cpp).
#pragma once

#include <algorithm>
#include <string>

#include "reference/basic_runqueue.h"
#include "rules/saved_lag.h"
#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::reference {
namespace detail {

template <class E>
bool in_queue(const E& e) {
  return e.status != Status::Sleeping;
}

inline std::string id_str(EntityId id) { return std::to_string(id); }

// Time may move forward by at most this much in one step (~11.6 days): keeps every product of
// the model far inside the range the Linux arithmetic of SPEC.md §7 can hold.
constexpr int64_t kMaxStepNs = int64_t{1} << 50;

}  // namespace detail

template <class Q>
BasicRunqueue<Q>::BasicRunqueue(Params params, RunqueueId id)
    : params_(std::move(params)), id_(id), queue_(params_), v_empty_(Arith::origin()) {
  if (!Arith::kExact && params_.preset.clamp == LagClamp::None)
    throw Error("preset '" + params_.preset.name +
                "' has no lag clamp: Linux arithmetic is defined for the Linux presets only");
}

template <class Q>
template <class OtherQueue>
BasicRunqueue<Q> BasicRunqueue<Q>::exact_copy_of(const BasicRunqueue<OtherQueue>& other) {
  using Other = BasicRunqueue<OtherQueue>;
  // Absolute times are read relative to the other arithmetic's origin; differences as they are.
  const auto time = [](const typename Other::Num& t) {
    return Num(static_cast<long>((t - Other::Arith::origin()).value()));
  };
  const auto diff = [](const typename Other::Num& t) { return Num(static_cast<long>(t.value())); };
  BasicRunqueue rq(other.params_, other.id_);
  other.queue_.for_each([&](const typename Other::Entity& o) {
    Entity e;
    e.id = o.id;
    e.weight = o.weight;
    e.slice = o.slice;
    e.custom_slice = o.custom_slice;
    e.vruntime = time(o.vruntime);
    e.deadline = o.rel_deadline ? diff(o.deadline) : time(o.deadline);
    e.request = diff(o.request);
    e.vlag = diff(o.vlag);
    e.rel_deadline = o.rel_deadline;
    e.request_cut = o.request_cut;
    e.status = o.status;
    e.is_new = o.is_new;
    e.seq = o.seq;
    Entity& added = rq.queue_.add(std::move(e));
    if (o.on_tree) rq.queue_.tree_insert(added);
  });
  rq.curr_ = other.curr_;
  rq.next_ = other.next_;
  if (other.prot_) rq.prot_ = time(*other.prot_);  // a cancelled stash d + 1 stays d + 1
  rq.now_ = other.now_;
  rq.nr_queued_ = other.nr_queued_;
  rq.v_empty_ = time(other.v_empty_);
  rq.seq_ = other.seq_;
  rq.need_resched_ = other.need_resched_;
  rq.last_enqueue_initial_ = other.last_enqueue_initial_;
  rq.fluid_ = rq.avg_vruntime();
  return rq;
}

template <class Q>
void BasicRunqueue<Q>::seed(const Seed& seed) {
  BasicRunqueue& rq = *this;
  if (seq_ != 0 || now_ != 0 || nr_queued_ != 0)
    throw Error("seed: the runqueue has run operations already");
  rq.queue_.rebase(seed.v0);
  rq.v_empty_ = seed.v0;
  for (const Entity& given : seed.entities) {
    validate_weight(given.weight);
    if (rq.queue_.find(given.id))
      throw Error("seed: entity " + detail::id_str(given.id) + " twice");
    Entity e = given;
    e.on_tree = false;
    Entity& added = rq.queue_.add(std::move(e));
    if (!detail::in_queue(added)) continue;
    ++rq.nr_queued_;
    if (seed.curr != added.id) rq.tree_insert(added);
  }
  const auto queued = [&](const std::optional<EntityId>& x) {
    const Entity* e = x ? rq.queue_.find(*x) : nullptr;
    return e && e->status == Status::Queued;
  };
  if (seed.curr && !queued(seed.curr))
    throw Error("seed: curr " + detail::id_str(*seed.curr) + " is not a queued entity");
  if (seed.next && !queued(seed.next))
    throw Error("seed: next buddy " + detail::id_str(*seed.next) + " is not a queued entity");
  rq.curr_ = seed.curr;
  rq.next_ = seed.next;
  if (seed.curr) rq.prot_ = seed.protection;
  rq.fluid_ = rq.avg_vruntime();
}

// ---------------------------------------------------------------------------------------------
// Lookups and derived quantities (SPEC.md §2)

template <class Q>
auto BasicRunqueue<Q>::get(EntityId id, const char* op) -> Entity& {
  Entity* e = queue_.find(id);
  if (!e) throw Error(std::string(op) + ": unknown task " + detail::id_str(id));
  return *e;
}

template <class Q>
auto BasicRunqueue<Q>::entity(EntityId id) const -> const Entity& {
  const Entity* e = queue_.find(id);
  if (!e) throw Error("unknown task " + detail::id_str(id));
  return *e;
}

template <class Q>
auto BasicRunqueue<Q>::curr_entity() -> Entity* {
  return curr_ ? queue_.find(*curr_) : nullptr;
}
template <class Q>
auto BasicRunqueue<Q>::curr_entity() const -> const Entity* {
  return curr_ ? queue_.find(*curr_) : nullptr;
}

template <class Q>
auto BasicRunqueue<Q>::queued() const -> std::vector<const Entity*> {
  std::vector<const Entity*> q;
  queue_.for_each([&](const Entity& e) {
    if (detail::in_queue(e)) q.push_back(&e);
  });
  return q;
}

// Linux keeps the sums over the tree and adds curr on the fly (avg_vruntime, entity_eligible).
template <class Q>
Sums<typename Q::Arith> BasicRunqueue<Q>::queue_sums() const {
  Sums<Arith> s = queue_.tree_sums();
  if (const Entity* c = curr_entity(); c && detail::in_queue(*c)) {
    s.weighted_keys += Arith::weighted(c->vruntime - queue_.v0(), c->weight);
    s.load += c->weight;
  }
  return s;
}

template <class Q>
int64_t BasicRunqueue<Q>::total_weight() const {
  return queue_sums().load;
}

template <class Q>
auto BasicRunqueue<Q>::avg_vruntime() const -> Num {
  const Sums<Arith> s = queue_sums();
  if (s.load == 0) return v_empty_;
  return Arith::average(queue_.v0(), s.weighted_keys, s.load);
}

// v_i ≤ V, as Σ w_j·(v_j − v_0) ≥ (v_i − v_0)·W: no division, so no rounding (SPEC.md §2).
template <class Q>
bool BasicRunqueue<Q>::entity_eligible(const Entity& e) const {
  const Sums<Arith> s = queue_sums();
  if (s.load == 0) return e.vruntime <= v_empty_;
  return Arith::key_eligible(s.weighted_keys, s.load, e.vruntime - queue_.v0());
}

template <class Q>
auto BasicRunqueue<Q>::lag(const Entity& e) const -> Num {
  return Arith::mul_div(avg_vruntime() - e.vruntime, e.weight, kNice0Weight);
}

template <class Q>
int64_t BasicRunqueue<Q>::min_slice() const {
  int64_t m = queue_.tree_min_slice();
  if (const Entity* c = curr_entity(); c && detail::in_queue(*c) && (m == 0 || c->slice < m))
    m = c->slice;
  return m;
}

template <class Q>
int64_t BasicRunqueue<Q>::max_slice() const {
  int64_t m = queue_.tree_max_slice();
  if (const Entity* c = curr_entity(); c && detail::in_queue(*c)) m = std::max(m, c->slice);
  return m;
}

template <class Q>
int64_t BasicRunqueue<Q>::remaining_request(const Entity& e) const {
  return Arith::ceil_ns(e.deadline - e.vruntime, e.weight);
}

// ---------------------------------------------------------------------------------------------
// Queue and tree membership, the fluid clock (SPEC.md §2, §3)

// Every insertion into the tree stamps a fresh seq (§2): it decides ties in pick (§4.4).
template <class Q>
void BasicRunqueue<Q>::tree_insert(Entity& e) {
  e.seq = ++seq_;
  queue_.tree_insert(e);
}

// Back into the tree after a change of key, weight or slice that Linux makes in place: same seq.
template <class Q>
void BasicRunqueue<Q>::tree_reinsert(Entity& e) {
  queue_.tree_insert(e);
}

template <class Q>
void BasicRunqueue<Q>::tree_erase(Entity& e) {
  queue_.tree_erase(e);
}

// i leaves Q: TR eq. 18 on the ghost, V_∅ when the queue empties. Linux's V of an empty queue is
// min_vruntime, not the last V (SPEC.md §7).
template <class Q>
void BasicRunqueue<Q>::leave(Entity& e) {
  const Num V = avg_vruntime();
  const int64_t W = total_weight();
  if (e.on_tree) tree_erase(e);
  e.status = Status::Sleeping;
  --nr_queued_;
  if (W == e.weight) {
    // zero_vruntime was moved to V when the leaver's lag was taken; min_vruntime lags behind.
    v_empty_ = Arith::kExact ? V : queue_.v0();
    fluid_ = v_empty_;
    return;
  }
  if constexpr (Arith::kExact)
    fluid_ += Arith::mul_div(fluid_ - e.vruntime, e.weight, W - e.weight);
}

// i joins Q at its placed v_i: TR eq. 19 on the ghost.
template <class Q>
void BasicRunqueue<Q>::join(Entity& e) {
  const int64_t W = total_weight();
  if (W == 0)
    fluid_ = e.vruntime;
  else if constexpr (Arith::kExact)
    fluid_ -= Arith::mul_div(fluid_ - e.vruntime, e.weight, W + e.weight);
  e.status = Status::Queued;
  ++nr_queued_;
  tree_insert(e);
}

// SPEC.md §7, Linux ≤ 6.18: min_vruntime := max(min_vruntime, min(v_curr, min v over the tree)),
// re-basing the sums. Exact arithmetic has no reference point to move.
template <class Q>
void BasicRunqueue<Q>::update_min_vruntime() {
  if constexpr (!Arith::kExact) {
    if (params_.preset.reference_point != ReferencePoint::MinVruntime) return;
    std::optional<Num> candidate = queue_.tree_min_vruntime();
    if (const Entity* c = curr_entity(); c && detail::in_queue(*c))
      candidate = candidate ? std::min(*candidate, c->vruntime) : c->vruntime;
    if (candidate && *candidate > queue_.v0()) queue_.rebase(*candidate);
  }
}

// SPEC.md §7.1, 6.18.y and mainline (b3d99f43c72b): zero_vruntime := V, re-basing the sums,
// wherever the kernel computes V for a placement, a saved lag or a tick. V itself does not move
// (v_0 is an integer and V = v_0 + ⌊Σ/W⌋), but the keys, the s64 margins and the V of a queue
// left empty do.
template <class Q>
void BasicRunqueue<Q>::update_zero_vruntime() {
  if constexpr (!Arith::kExact) {
    if (params_.preset.reference_point != ReferencePoint::ZeroVruntime) return;
    if (total_weight() != 0) queue_.rebase(avg_vruntime());
  }
}

// ---------------------------------------------------------------------------------------------
// §4.7 entity_lag: V − v_i clamped to ±vdelta(L, w_i), L = max(2·r_i, TICK) (Linux 6.6–6.18) or
// the largest slice in Q + TICK (6.18.y, mainline), as rules/saved_lag.h states it, with this
// arithmetic's vdelta.

template <class Q>
auto BasicRunqueue<Q>::clamp_limit(const Entity& e) const -> Num {
  return Arith::vdelta(rules::lag_clamp_ns(params_, e.slice, max_slice()), e.weight);
}

template <class Q>
auto BasicRunqueue<Q>::entity_lag(const Entity& e, const Num& V) const -> Num {
  return rules::entity_lag(params_.preset, Num(V - e.vruntime), [&] { return clamp_limit(e); });
}

// ---------------------------------------------------------------------------------------------
// §4.3 place_entity: position a joining entity so its lag after joining is its saved lag.

template <class Q>
void BasicRunqueue<Q>::place_entity(Entity& e, bool initial) {
  const Preset& p = params_.preset;
  update_zero_vruntime();
  const Num V = avg_vruntime();
  const int64_t W = total_weight();
  if (!e.custom_slice) e.slice = params_.base_slice_ns();
  Num vs = vslice(e);

  Num l = 0;
  if (p.has(Feature::PLACE_LAG) && W != 0 && e.vlag != 0) {
    l = e.vlag;
    // Adding e at V − l moves V to V − w·l/(W + w); inflating by (W + w)/W leaves e's measured
    // lag equal to the saved one (INV-PLACE-LAG).
    if (p.join == JoinRule::Inflate) l = Arith::mul_div(l, W + e.weight, W);
  }
  e.vruntime = V - l;

  if (e.rel_deadline) {  // keep the relative deadline across migration / reweight
    e.deadline += e.vruntime;
    e.rel_deadline = false;
    return;
  }
  if (p.has(Feature::PLACE_DEADLINE_INITIAL) && initial) vs = Arith::mul_div(vs, 1, 2);
  e.deadline = e.vruntime + vs;
  e.request = Arith::mul_div(vs, e.weight, kNice0Weight);
  e.request_cut = false;
}

template <class Q>
void BasicRunqueue<Q>::enqueue_entity(EntityId id) {
  Entity& e = get(id, "enqueue");
  if (e.status == Status::Queued)
    throw Error("enqueue: task " + detail::id_str(id) + " is already queued");
  if (e.status == Status::Delayed) {
    requeue_delayed_entity(e);
    last_enqueue_initial_ = false;
    return;
  }
  const bool initial = e.is_new;
  place_entity(e, initial);
  join(e);
  e.is_new = false;
  last_enqueue_initial_ = initial;
}

// ---------------------------------------------------------------------------------------------
// §4.7 dequeue_entity, §4.9 delayed dequeue

// The saved lag (TR strategies 2 and 3 on top of the clamp): rules/saved_lag.h.
template <class Q>
auto BasicRunqueue<Q>::saved_lag(const Entity& e, const Num& V) const -> Num {
  return rules::saved_lag(params_.preset, Num(V - e.vruntime), [&] { return clamp_limit(e); });
}

template <class Q>
void BasicRunqueue<Q>::dequeue_entity(EntityId id, bool sleep) {
  Entity& e = get(id, "dequeue");
  if (e.status != Status::Queued)
    throw Error("dequeue: task " + detail::id_str(id) + " is not queued (it is " +
                (e.status == Status::Delayed ? "delayed" : "sleeping") + ")");
  if (next_ == id) next_.reset();
  const bool was_curr = curr_ == id;

  update_zero_vruntime();
  if (sleep && params_.preset.has(Feature::DELAY_DEQUEUE) && !entity_eligible(e)) {
    // Keep competing to burn off the negative lag; back into the tree if it was running. Under
    // NoDecrease the lag it leaves with is the floor of the lag it will leave with (§4.9).
    if (params_.preset.delayed_lag == DelayedLag::NoDecrease)
      e.vlag = entity_lag(e, avg_vruntime());
    e.status = Status::Delayed;
    if (was_curr) put_prev_entity();
    return;
  }

  const Num vl = saved_lag(e, avg_vruntime());
  if (params_.preset.has(Feature::PLACE_REL_DEADLINE) && !sleep) {
    e.deadline -= e.vruntime;
    e.rel_deadline = true;
  }
  leave(e);  // V and W before the leave still count curr
  if (was_curr) {
    curr_.reset();
    prot_.reset();
  }
  e.vlag = vl;
  update_min_vruntime();
}

template <class Q>
void BasicRunqueue<Q>::finish_delayed_dequeue(Entity& e) {
  update_zero_vruntime();
  const Num vl = rules::delayed_dequeue_lag(params_.preset, Num(avg_vruntime() - e.vruntime),
                                            e.vlag, [&] { return clamp_limit(e); });
  leave(e);
  e.vlag = vl;
  update_min_vruntime();
}

template <class Q>
void BasicRunqueue<Q>::requeue_delayed_entity(Entity& e) {
  const Preset& p = params_.preset;
  update_zero_vruntime();
  if (p.delayed_lag == DelayedLag::NoDecrease) {
    // Mainline: the lag kept is at least the one it was delayed with, and under DELAY_ZERO at
    // most 0; where that is not V − v it is placed again with it (a fresh request).
    const Num V = avg_vruntime();
    const Num l = rules::requeued_delayed_lag(p, entity_lag(e, V), e.vlag);
    if (l != V - e.vruntime) {
      leave(e);
      e.vlag = l;
      place_entity(e, false);
      join(e);
    }
  } else if (p.has(Feature::DELAY_ZERO) && entity_lag(e, avg_vruntime()) > 0) {
    // It became eligible while delayed: restart at V with a fresh request.
    leave(e);
    e.vlag = 0;
    place_entity(e, false);
    join(e);
  }
  e.status = Status::Queued;
}

// ---------------------------------------------------------------------------------------------
// §4.1 update_curr, §4.2 entity_tick

template <class Q>
void BasicRunqueue<Q>::update_deadline(Entity& e) {
  if (e.vruntime < e.deadline) return;
  if (!e.custom_slice) e.slice = params_.base_slice_ns();
  e.deadline = e.vruntime + vslice(e);
  e.request = e.slice;
  e.request_cut = false;
  if (nr_queued_ > 1) need_resched_ = true;
}

template <class Q>
void BasicRunqueue<Q>::update_curr(int64_t delta_ns) {
  if (delta_ns < 0)
    throw Error("run: time would go backwards (delta " + std::to_string(delta_ns) + " ns)");
  if (delta_ns > detail::kMaxStepNs || now_ > INT64_MAX - delta_ns)
    throw Error("run: delta " + std::to_string(delta_ns) + " ns overflows the clock");
  now_ += delta_ns;
  Entity* c = curr_entity();
  if (!c) return;
  c->vruntime += Arith::vdelta(delta_ns, c->weight);
  if constexpr (Arith::kExact)
    fluid_ += Arith::mul_div(Num(static_cast<long>(delta_ns)), kNice0Weight, total_weight());
  if (delta_ns > 0) update_min_vruntime();  // Linux returns early on an empty delta
  update_deadline(*c);
  // 6.12: a cancelled protection ends the slice once curr is ineligible; 6.17+: every
  // update after the protected period asks for a new pick.
  const Preset& p = params_.preset;
  if (nr_queued_ > 1 && ((p.protection == Protection::Vprot && !protect_slice()) ||
                         (p.protection == Protection::Stash && p.has(Feature::PREEMPT_SHORT) &&
                          !protect_slice() && !entity_eligible(*c))))
    need_resched_ = true;
}

template <class Q>
void BasicRunqueue<Q>::entity_tick() {
  update_curr(0);
  update_zero_vruntime();
}

// ---------------------------------------------------------------------------------------------
// §4.5 protection

template <class Q>
bool BasicRunqueue<Q>::protect_slice() const {
  const Entity* c = curr_entity();
  if (!c || !prot_) return false;
  switch (params_.preset.protection) {
    case Protection::None:
      return false;
    case Protection::Stash:
      return *prot_ == c->deadline;
    case Protection::Vprot:
      return c->vruntime < *prot_;
  }
  return false;
}

template <class Q>
void BasicRunqueue<Q>::set_protect_slice(Entity& e) {
  const Preset& p = params_.preset;
  prot_.reset();
  if (p.protection == Protection::Stash) {
    if (p.has(Feature::RUN_TO_PARITY)) prot_ = e.deadline;
  } else if (p.protection == Protection::Vprot) {
    int64_t s = p.has(Feature::RUN_TO_PARITY) ? min_slice() : params_.base_slice_norm_ns();
    s = std::min(s, e.slice);
    Num prot = e.deadline;
    if (s != e.slice) prot = std::min(prot, Num(e.vruntime + Arith::vdelta(s, e.weight)));
    prot_ = prot;
  }
}

template <class Q>
void BasicRunqueue<Q>::cancel_protect_slice() {
  if (!protect_slice()) return;
  const Entity* c = curr_entity();
  prot_ = params_.preset.protection == Protection::Stash ? Num(c->deadline + 1) : c->vruntime;
}

template <class Q>
void BasicRunqueue<Q>::update_protect_slice() {
  const Entity* c = curr_entity();
  if (!c || !prot_ || params_.preset.protection != Protection::Vprot) return;
  prot_ = std::min(*prot_, Num(c->vruntime + Arith::vdelta(min_slice(), c->weight)));
}

// ---------------------------------------------------------------------------------------------
// §4.4 pick

template <class Q>
std::optional<EntityId> BasicRunqueue<Q>::earliest_eligible_deadline() const {
  const Sums<Arith> s = queue_sums();
  const Num v0 = queue_.v0();
  const auto eligible = [&](const Num& v) {
    return Arith::key_eligible(s.weighted_keys, s.load, v - v0);
  };
  const Entity* best = queue_.earliest_eligible(eligible);
  const Entity* c = curr_entity();
  if (c && entity_eligible(*c) && (!best || c->deadline < best->deadline)) best = c;
  if (!best) return std::nullopt;
  return best->id;
}

template <class Q>
auto BasicRunqueue<Q>::pick_eevdf(bool protect) const -> Choice {
  if (nr_queued_ == 0) return {};
  if (nr_queued_ == 1) {
    const Entity* c = curr_entity();
    if (c && detail::in_queue(*c)) return {c->id, false, false};
    return {earliest_eligible_deadline(), false, false};  // the only tree entity is eligible
  }
  if (params_.preset.has(Feature::PICK_BUDDY) && next_ && entity_eligible(*queue_.find(*next_)))
    return {*next_, false, true};
  const Entity* c = curr_entity();
  if (protect && c && entity_eligible(*c) && protect_slice()) return {c->id, true, false};
  return {earliest_eligible_deadline(), false, false};
}

template <class Q>
void BasicRunqueue<Q>::put_prev_entity() {
  Entity* c = curr_entity();
  curr_.reset();
  prot_.reset();
  if (c && detail::in_queue(*c)) tree_insert(*c);
}

// §10.2: the runqueue stops running (its group entity lost the CPU at the level above).
template <class Q>
void BasicRunqueue<Q>::put_prev(EntityId id) {
  if (curr_ != id)
    throw Error("put_prev: task " + detail::id_str(id) + " is not the running entity");
  put_prev_entity();
}

template <class Q>
void BasicRunqueue<Q>::set_next_entity(Entity& e) {
  if (curr_ == e.id) return;  // Linux does not call set_next_task for the same task
  put_prev_entity();
  if (next_ == e.id) next_.reset();
  tree_erase(e);
  curr_ = e.id;
  set_protect_slice(e);
}

template <class Q>
std::optional<EntityId> BasicRunqueue<Q>::pick_next_entity() {
  need_resched_ = false;
  // Each round completes one delayed dequeue, so |Q| + 1 rounds end it; more is a broken
  // model looping, which must fail rather than hang a test or a fuzzer.
  const int64_t most = nr_queued_ + 1;
  for (int64_t round = 0;; ++round) {
    if (round > most)
      throw Error("pick_next_entity: no progress after " + std::to_string(round) +
                  " rounds of completing delayed dequeues");
    const Choice choice = pick_eevdf(true);
    outcome_.by_protection = choice.by_protection;
    outcome_.by_buddy = choice.by_buddy;
    if (!choice.id) {
      put_prev_entity();
      return std::nullopt;
    }
    Entity& e = *queue_.find(*choice.id);
    if (e.status == Status::Delayed) {  // §4.9: its dequeue completes now
      finish_delayed_dequeue(e);
      continue;
    }
    set_next_entity(e);
    return e.id;
  }
}

// ---------------------------------------------------------------------------------------------
// §4.6 wakeup preemption

template <class Q>
bool BasicRunqueue<Q>::wakeup_preempt(EntityId id) {
  Entity& p = get(id, "wakeup_preempt");
  if (p.status != Status::Queued)
    throw Error("wakeup_preempt: task " + detail::id_str(id) + " is not queued");
  Entity* c = curr_entity();
  if (!c) {  // an idle CPU always switches to the wakee
    need_resched_ = true;
    return true;
  }
  if (c->id == id)
    throw Error("wakeup_preempt: task " + detail::id_str(id) + " is already running");
  const Preset& pre = params_.preset;
  if (pre.has(Feature::NEXT_BUDDY) && !last_enqueue_initial_) next_ = id;
  if (!pre.has(Feature::WAKEUP_PREEMPTION) || pre.wakeup == WakeupRule::None) return false;

  bool preempt = false;
  switch (pre.wakeup) {
    case WakeupRule::None:
      break;
    case WakeupRule::Pick:
      preempt = pick_eevdf(true).id == id;
      break;
    case WakeupRule::ShortV1: {
      if (pre.has(Feature::PREEMPT_SHORT) && p.slice < c->slice && entity_eligible(p) &&
          (p.deadline < c->deadline || !entity_eligible(*c)))
        cancel_protect_slice();
      preempt = pick_eevdf(true).id == id;
      break;
    }
    case WakeupRule::ShortV2: {
      const bool is_short = pre.has(Feature::PREEMPT_SHORT) && p.slice < c->slice;
      if (pick_eevdf(!is_short).id == id) {
        if (is_short) cancel_protect_slice();
        preempt = true;
      } else if (pre.has(Feature::RUN_TO_PARITY) && is_short) {
        update_protect_slice();
      }
      break;
    }
  }
  if (preempt) need_resched_ = true;
  return preempt;
}

// ---------------------------------------------------------------------------------------------
// §4.8 reweight

template <class Q>
void BasicRunqueue<Q>::reweight_entity(EntityId id, int64_t weight) {
  validate_weight(weight);
  Entity& e = get(id, "reweight");
  const int64_t w = e.weight;
  const auto scale = [&](const Num& x) { return Arith::mul_div(x, w, weight); };
  if (!detail::in_queue(e)) {
    e.vlag = scale(e.vlag);
    if (e.rel_deadline) e.deadline = scale(e.deadline);
    e.weight = weight;
    return;
  }
  const bool is_curr = curr_ == id;
  update_zero_vruntime();
  const Num V = avg_vruntime();
  switch (params_.preset.reweight) {
    case ReweightRule::KeepV:
      // 6.6 changes the deadline in place (the vruntime-sorted tree keeps its order).
      if (!is_curr) tree_erase(e);
      e.deadline = e.vruntime + scale(e.deadline - e.vruntime);
      e.weight = weight;
      if (!is_curr) tree_reinsert(e);
      break;
    case ReweightRule::Rescale: {
      // V is invariant: v' = V − l·w/w', d' = V + (d − V)·w/w' (Linux reweight_eevdf).
      const Num l = entity_lag(e, V);
      if (l != V - e.vruntime) e.request_cut = true;
      // 7.1 (ff38424030f9, 101f3498b4bd): a vprot bound in force before the move is rescaled
      // around V too, so that curr stays inside it.
      const bool rescale_prot =
          is_curr && params_.preset.protection == Protection::Vprot && protect_slice();
      if (!is_curr) tree_erase(e);
      e.vruntime = V - scale(l);
      e.deadline = V + scale(e.deadline - V);
      if (rescale_prot) prot_ = Num(V + scale(*prot_ - V));
      // 7.1's rescale_entity stores the scaled lag in se->vlag: a delayed entity's floor (§4.9).
      if (params_.preset.delayed_lag == DelayedLag::NoDecrease) e.vlag = scale(l);
      e.weight = weight;
      if (!is_curr) tree_insert(e);
      break;
    }
    case ReweightRule::Place: {
      // 6.13–7.0: save lag and relative deadline, scale both, and place again. For curr the
      // placement sees curr itself in V and W, which breaks its precondition (SPEC.md §4.8).
      const Num l = entity_lag(e, V);
      const Num rel = e.deadline - e.vruntime;
      const Status status = e.status;
      if (!is_curr) leave(e);
      e.vlag = scale(l);
      e.deadline = scale(rel);
      e.rel_deadline = true;
      e.weight = weight;
      place_entity(e, false);
      if (!is_curr) {
        join(e);
        e.status = status;
      }
      break;
    }
  }
  fluid_ = avg_vruntime();  // §3: INV-REWEIGHT judges the move, once
}

// ---------------------------------------------------------------------------------------------
// §4.10–§4.12

template <class Q>
void BasicRunqueue<Q>::set_slice(EntityId id, int64_t slice) {
  validate_slice(slice);
  Entity& e = get(id, "set_slice");
  const bool on_tree = e.on_tree;
  if (on_tree) tree_erase(e);  // min_slice is augmented over the tree
  e.custom_slice = slice != 0;
  e.slice = slice != 0 ? slice : params_.base_slice_ns();
  if (on_tree) tree_reinsert(e);
}

template <class Q>
void BasicRunqueue<Q>::yield_task() {
  Entity* c = curr_entity();
  if (!c) throw Error("yield: no task is running");
  if (nr_queued_ == 1) return;
  if (next_ == c->id) next_.reset();
  need_resched_ = true;
  if (params_.preset.yield == YieldRule::Forfeit) {
    // 79104becf42b: an eligible yielder gives up the rest of its request and starts the next
    // one; an ineligible one keeps both. The jump is service nobody received: the ghost V_f of
    // §3 is set to V, as after a reweight.
    if (!entity_eligible(*c)) return;
    c->vruntime = c->deadline;
    c->deadline += vslice(*c);
    c->request = c->slice;
    c->request_cut = false;
    fluid_ = avg_vruntime();
    return;
  }
  c->deadline += vslice(*c);
  c->request += c->slice;
}

template <class Q>
void BasicRunqueue<Q>::create(EntityId id, int64_t weight, int64_t slice) {
  if (queue_.find(id)) throw Error("create: task " + detail::id_str(id) + " exists already");
  validate_weight(weight);
  validate_slice(slice);
  Entity e;
  e.id = id;
  e.weight = weight;
  e.custom_slice = slice != 0;
  e.slice = slice != 0 ? slice : params_.base_slice_ns();
  queue_.add(std::move(e));
}

template <class Q>
void BasicRunqueue<Q>::exit(EntityId id) {
  Entity& e = get(id, "exit");
  if (e.status != Status::Sleeping)
    throw Error("exit: task " + detail::id_str(id) + " is still queued; dequeue it first");
  queue_.remove(id);
}

// ---------------------------------------------------------------------------------------------
// §4.13 migration: the entity leaves this runqueue with what Linux keeps in the task across
// set_task_cpu() (weight, slice, custom flag, se->vlag) and joins another as a sleeping, known
// entity, so its next enqueue places it with the saved lag (place_entity, not a new task's).

template <class Q>
auto BasicRunqueue<Q>::detach(EntityId id) -> std::optional<Migrant<Num>> {
  const Entity* e = queue_.find(id);
  if (!e || e->status != Status::Sleeping) return std::nullopt;
  Migrant<Num> m{e->id, e->weight, e->slice, e->custom_slice, e->vlag};
  queue_.remove(id);
  if (observer_) emit(Op{.kind = OpKind::Detach, .se = id, .rq = id_}, &m);
  return m;
}

template <class Q>
bool BasicRunqueue<Q>::attach(const Migrant<Num>& m) {
  if (queue_.find(m.se)) return false;
  validate_weight(m.weight);
  validate_slice(m.custom_slice ? m.slice : 0);
  Entity e;
  e.id = m.se;
  e.weight = m.weight;
  e.custom_slice = m.custom_slice;
  e.slice = m.custom_slice ? m.slice : params_.base_slice_ns();
  e.vlag = m.vlag;
  e.is_new = false;
  queue_.add(std::move(e));
  outcome_ = Outcome{};
  if (observer_) emit(Op{OpKind::Attach, m.se, m.weight, m.custom_slice ? m.slice : 0, 0, id_});
  return true;
}

// ---------------------------------------------------------------------------------------------
// Dispatch and observation

template <class Q>
Outcome BasicRunqueue<Q>::apply(const Op& op) {
  if (op.rq != id_)
    throw Error(to_string(op) + ": an operation of runqueue " + std::to_string(op.rq) +
                " applied to runqueue " + std::to_string(id_));
  outcome_ = Outcome{};
  switch (op.kind) {
    case OpKind::Create:
      create(op.se, op.a, op.b);
      break;
    case OpKind::Exit:
      exit(op.se);
      break;
    case OpKind::Enqueue:
      enqueue_entity(op.se);
      break;
    case OpKind::Dequeue:
      dequeue_entity(op.se, op.flags & kDequeueSleep);
      break;
    case OpKind::Pick:
      outcome_.picked = pick_next_entity();
      break;
    case OpKind::Run:
      update_curr(op.a);
      break;
    case OpKind::Tick:
      entity_tick();
      break;
    case OpKind::Reweight:
      reweight_entity(op.se, op.a);
      break;
    case OpKind::SetSlice:
      set_slice(op.se, op.a);
      break;
    case OpKind::Yield:
      yield_task();
      break;
    case OpKind::WakeupPreempt:
      outcome_.preempt = wakeup_preempt(op.se);
      break;
    case OpKind::PutPrev:
      put_prev(op.se);
      break;
    case OpKind::Detach:
    case OpKind::Attach:
      throw Error(std::string(op_name(op.kind)) + " " + detail::id_str(op.se) +
                  ": a migration carries the entity; use detach() and attach()");
  }
  if (observer_) emit(op);
  return outcome_;
}

template <class Q>
void BasicRunqueue<Q>::emit(const Op& op, const Migrant<Num>* gone) {
  StepReport<Num> ev;
  ev.op = op;
  ev.rq = id_;
  ev.now = now_;
  ev.picked = outcome_.picked;
  ev.preempt = outcome_.preempt;
  ev.need_resched = need_resched_;
  ev.V = avg_vruntime();
  ev.W = total_weight();
  ev.nr_queued = nr_queued_;
  // The entity the event is about: the one named, or the running one for pick/run/tick/yield.
  const bool about_curr = op.kind == OpKind::Pick || op.kind == OpKind::Run ||
                          op.kind == OpKind::Tick || op.kind == OpKind::Yield;
  const Entity* e = about_curr ? curr_entity() : queue_.find(op.se);
  if (gone) {  // detach: the entity is no longer here; report what it took along
    EntityState<Num> s;
    s.se = gone->se;
    s.task = gone->se;
    s.weight = gone->weight;
    s.slice = gone->slice;
    s.vlag = gone->vlag;
    ev.entity = s;
  } else if (e) {
    EntityState<Num> s;
    s.se = e->id;
    s.task = e->id;  // every entity here is a task's (no group scheduling in the model)
    s.weight = e->weight;
    s.slice = e->slice;
    s.vruntime = e->vruntime;
    s.deadline = e->deadline;
    s.vlag = detail::in_queue(*e) ? Num(ev.V - e->vruntime) : e->vlag;
    s.status = e->status;
    s.running = curr_ == e->id;
    s.eligible = detail::in_queue(*e) && entity_eligible(*e);
    ev.entity = s;
  }
  observer_->on_step(ev);
}

}  // namespace vlag::reference
