#include "reference/runqueue.h"

#include <algorithm>
#include <string>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::reference {
namespace {

bool in_queue(const Entity& e) { return e.status != Status::Sleeping; }

std::string id_str(TaskId id) { return std::to_string(id); }

// Time may move forward by at most this much in one step (~11.6 days): keeps every product of
// the model far inside the range the Linux arithmetic of SPEC.md §7 can hold.
constexpr int64_t kMaxStepNs = int64_t{1} << 50;

}  // namespace

Runqueue::Runqueue(Params params) : params_(std::move(params)) {}

// ---------------------------------------------------------------------------------------------
// Lookups and derived quantities (SPEC.md §2)

Entity* Runqueue::find(TaskId id) {
  for (auto& e : entities_)
    if (e.id == id) return &e;
  return nullptr;
}

const Entity* Runqueue::find(TaskId id) const {
  for (const auto& e : entities_)
    if (e.id == id) return &e;
  return nullptr;
}

Entity& Runqueue::get(TaskId id, const char* op) {
  Entity* e = find(id);
  if (!e) throw Error(std::string(op) + ": unknown task " + id_str(id));
  return *e;
}

const Entity& Runqueue::entity(TaskId id) const {
  const Entity* e = find(id);
  if (!e) throw Error("unknown task " + id_str(id));
  return *e;
}

Entity* Runqueue::curr_entity() { return curr_ ? find(*curr_) : nullptr; }
const Entity* Runqueue::curr_entity() const { return curr_ ? find(*curr_) : nullptr; }

std::vector<const Entity*> Runqueue::queued() const {
  std::vector<const Entity*> q;
  for (const auto& e : entities_)
    if (in_queue(e)) q.push_back(&e);
  return q;
}

Num Runqueue::vdelta(int64_t delta_ns, int64_t weight) const {
  return vdelta(Num(static_cast<long>(delta_ns)), weight);
}

Num Runqueue::vdelta(const Num& delta_ns, int64_t weight) const {
  Num v = delta_ns * static_cast<long>(kNice0Weight) / Num(static_cast<long>(weight));
  v.canonicalize();
  return v;
}

int64_t Runqueue::total_weight() const {
  int64_t w = 0;
  for (const auto& e : entities_)
    if (in_queue(e)) w += e.weight;
  return w;
}

Num Runqueue::avg_vruntime() const {
  Num sum = 0;
  int64_t w = 0;
  for (const auto& e : entities_) {
    if (!in_queue(e)) continue;
    sum += e.vruntime * static_cast<long>(e.weight);
    w += e.weight;
  }
  if (w == 0) return v_empty_;
  Num v = sum / Num(static_cast<long>(w));
  v.canonicalize();
  return v;
}

bool Runqueue::entity_eligible(const Entity& e) const { return e.vruntime <= avg_vruntime(); }

Num Runqueue::lag(const Entity& e) const {
  Num l =
      (avg_vruntime() - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(kNice0Weight);
  l.canonicalize();
  return l;
}

int64_t Runqueue::min_slice() const {
  int64_t m = 0;
  for (const auto& e : entities_)
    if (in_queue(e) && (m == 0 || e.slice < m)) m = e.slice;
  return m;
}

int64_t Runqueue::remaining_request(const Entity& e) const {
  const Num rest =
      (e.deadline - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(kNice0Weight);
  mpz_class up;
  mpz_cdiv_q(up.get_mpz_t(), rest.get_num_mpz_t(), rest.get_den_mpz_t());
  return up.get_si();
}

// ---------------------------------------------------------------------------------------------
// Queue membership and the fluid clock (SPEC.md §3)

void Runqueue::insert(Entity& e) { e.seq = ++seq_; }

// i leaves Q: TR eq. 18 on the ghost, V_∅ when the queue empties.
void Runqueue::leave(Entity& e) {
  const Num V = avg_vruntime();
  const int64_t W = total_weight();
  e.status = Status::Sleeping;
  if (W == e.weight) {
    v_empty_ = V;
    fluid_ = V;
    return;
  }
  fluid_ += (fluid_ - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(W - e.weight);
  fluid_.canonicalize();
}

// i joins Q at its placed v_i: TR eq. 19 on the ghost.
void Runqueue::join(Entity& e) {
  const int64_t W = total_weight();
  if (W == 0) {
    fluid_ = e.vruntime;
  } else {
    fluid_ -= (fluid_ - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(W + e.weight);
    fluid_.canonicalize();
  }
  e.status = Status::Queued;
  insert(e);
}

// ---------------------------------------------------------------------------------------------
// §4.7 entity_lag: V − v_i clamped to ±vdelta(max(2·r_i, TICK), w_i) (Linux 6.6–7.0).

Num Runqueue::entity_lag(const Entity& e, const Num& V) const {
  Num l = V - e.vruntime;
  if (params_.preset.clamp == LagClamp::TwiceSlice) {
    const Num limit = vdelta(std::max(2 * e.slice, params_.tick_ns()), e.weight);
    l = std::clamp(l, Num(-limit), limit);
  }
  return l;
}

// ---------------------------------------------------------------------------------------------
// §4.3 place_entity: position a joining entity so its lag after joining is its saved lag.

void Runqueue::place_entity(Entity& e, bool initial) {
  const Preset& p = params_.preset;
  const Num V = avg_vruntime();
  const int64_t W = total_weight();
  if (!e.custom_slice) e.slice = params_.base_slice_ns();
  Num vs = vslice(e);

  Num l = 0;
  if (p.has(Feature::PLACE_LAG) && W != 0 && e.vlag != 0) {
    l = e.vlag;
    if (p.join == JoinRule::Inflate) {
      // Adding e at V − l moves V to V − w·l/(W + w); inflating by (W + w)/W leaves e's
      // measured lag equal to the saved one (INV-PLACE-LAG).
      l = l * static_cast<long>(W + e.weight) / static_cast<long>(W);
      l.canonicalize();
    }
  }
  e.vruntime = V - l;

  if (e.rel_deadline) {  // keep the relative deadline across migration / reweight
    e.deadline += e.vruntime;
    e.rel_deadline = false;
    return;
  }
  if (p.has(Feature::PLACE_DEADLINE_INITIAL) && initial) vs /= 2;
  e.deadline = e.vruntime + vs;
  e.request = vs * static_cast<long>(e.weight) / static_cast<long>(kNice0Weight);
  e.request.canonicalize();
  e.request_cut = false;
}

void Runqueue::enqueue_entity(TaskId id) {
  Entity& e = get(id, "enqueue");
  if (e.status == Status::Queued) throw Error("enqueue: task " + id_str(id) + " is already queued");
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

Num Runqueue::saved_lag(const Entity& e, const Num& V) const {
  Num l = entity_lag(e, V);
  switch (params_.preset.rejoin_strategy) {
    case 2:
      return 0;  // TR strategy 2: lag is not preserved
    case 3:
      return l > 0 ? Num(0) : l;  // TR strategy 3: positive lag is forfeited
    default:
      return l;
  }
}

void Runqueue::dequeue_entity(TaskId id, bool sleep) {
  Entity& e = get(id, "dequeue");
  if (e.status != Status::Queued)
    throw Error("dequeue: task " + id_str(id) + " is not queued (it is " +
                (e.status == Status::Delayed ? "delayed" : "sleeping") + ")");
  if (next_ == id) next_.reset();
  const bool was_curr = curr_ == id;

  if (sleep && params_.preset.has(Feature::DELAY_DEQUEUE) && !entity_eligible(e)) {
    // Keep competing to burn off the negative lag; back into the tree if it was running.
    e.status = Status::Delayed;
    if (was_curr) put_prev_entity();
    return;
  }

  const Num vl = saved_lag(e, avg_vruntime());
  if (params_.preset.has(Feature::PLACE_REL_DEADLINE) && !sleep) {
    e.deadline -= e.vruntime;
    e.rel_deadline = true;
  }
  if (was_curr) {
    curr_.reset();
    prot_.reset();
  }
  leave(e);
  e.vlag = vl;
}

void Runqueue::finish_delayed_dequeue(Entity& e) {
  Num vl = saved_lag(e, avg_vruntime());
  if (params_.preset.has(Feature::DELAY_ZERO) && vl > 0) vl = 0;
  leave(e);
  e.vlag = vl;
}

void Runqueue::requeue_delayed_entity(Entity& e) {
  if (params_.preset.has(Feature::DELAY_ZERO) && entity_lag(e, avg_vruntime()) > 0) {
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

void Runqueue::update_deadline(Entity& e) {
  if (e.vruntime < e.deadline) return;
  if (!e.custom_slice) e.slice = params_.base_slice_ns();
  e.deadline = e.vruntime + vslice(e);
  e.request = e.slice;
  e.request_cut = false;
  if (queued().size() > 1) need_resched_ = true;
}

void Runqueue::update_curr(int64_t delta_ns) {
  if (delta_ns < 0)
    throw Error("run: time would go backwards (delta " + std::to_string(delta_ns) + " ns)");
  if (delta_ns > kMaxStepNs || now_ > INT64_MAX - delta_ns)
    throw Error("run: delta " + std::to_string(delta_ns) + " ns overflows the clock");
  now_ += delta_ns;
  Entity* c = curr_entity();
  if (!c) return;
  c->vruntime += vdelta(delta_ns, c->weight);
  fluid_ += Num(static_cast<long>(delta_ns)) * static_cast<long>(kNice0Weight) /
            static_cast<long>(total_weight());
  fluid_.canonicalize();
  update_deadline(*c);
  // 6.12: a cancelled protection ends the slice once curr is ineligible; 6.17+: every
  // update after the protected period asks for a new pick.
  const Preset& p = params_.preset;
  if (queued().size() > 1 && ((p.protection == Protection::Vprot && !protect_slice()) ||
                              (p.protection == Protection::Stash && p.has(Feature::PREEMPT_SHORT) &&
                               !protect_slice() && !entity_eligible(*c))))
    need_resched_ = true;
}

void Runqueue::entity_tick() { update_curr(0); }

// ---------------------------------------------------------------------------------------------
// §4.5 protection

bool Runqueue::protect_slice() const {
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

void Runqueue::set_protect_slice(Entity& e) {
  const Preset& p = params_.preset;
  prot_.reset();
  if (p.protection == Protection::Stash) {
    if (p.has(Feature::RUN_TO_PARITY)) prot_ = e.deadline;
  } else if (p.protection == Protection::Vprot) {
    int64_t s = p.has(Feature::RUN_TO_PARITY) ? min_slice() : params_.base_slice_norm_ns();
    s = std::min(s, e.slice);
    Num prot = e.deadline;
    if (s != e.slice) prot = std::min(prot, Num(e.vruntime + vdelta(s, e.weight)));
    prot_ = prot;
  }
}

void Runqueue::cancel_protect_slice() {
  if (!protect_slice()) return;
  const Entity* c = curr_entity();
  prot_ = params_.preset.protection == Protection::Stash ? Num(c->deadline + 1) : c->vruntime;
}

void Runqueue::update_protect_slice() {
  const Entity* c = curr_entity();
  if (!c || !prot_ || params_.preset.protection != Protection::Vprot) return;
  prot_ = std::min(*prot_, Num(c->vruntime + vdelta(min_slice(), c->weight)));
}

// ---------------------------------------------------------------------------------------------
// §4.4 pick

std::optional<TaskId> Runqueue::earliest_eligible_deadline() const {
  const Entity* best = nullptr;
  const Entity* c = curr_entity();
  for (const auto& e : entities_) {
    if (!in_queue(e) || &e == c || !entity_eligible(e)) continue;
    if (!best || e.deadline < best->deadline || (e.deadline == best->deadline && e.seq < best->seq))
      best = &e;
  }
  if (c && entity_eligible(*c) && (!best || c->deadline < best->deadline)) best = c;
  if (!best) return std::nullopt;
  return best->id;
}

Runqueue::Choice Runqueue::pick_eevdf(bool protect) const {
  const auto q = queued();
  if (q.empty()) return {};
  if (q.size() == 1) return {q.front()->id, false, false};
  if (params_.preset.has(Feature::PICK_BUDDY) && next_ && entity_eligible(*find(*next_)))
    return {*next_, false, true};
  const Entity* c = curr_entity();
  if (protect && c && entity_eligible(*c) && protect_slice()) return {c->id, true, false};
  return {earliest_eligible_deadline(), false, false};
}

void Runqueue::put_prev_entity() {
  Entity* c = curr_entity();
  curr_.reset();
  prot_.reset();
  if (c && in_queue(*c)) insert(*c);
}

void Runqueue::set_next_entity(Entity& e) {
  if (curr_ == e.id) return;  // Linux does not call set_next_task for the same task
  put_prev_entity();
  if (next_ == e.id) next_.reset();
  curr_ = e.id;
  set_protect_slice(e);
}

std::optional<TaskId> Runqueue::pick_next_entity() {
  need_resched_ = false;
  for (;;) {
    const Choice choice = pick_eevdf(true);
    outcome_.by_protection = choice.by_protection;
    outcome_.by_buddy = choice.by_buddy;
    if (!choice.id) {
      put_prev_entity();
      return std::nullopt;
    }
    Entity& e = *find(*choice.id);
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

bool Runqueue::wakeup_preempt(TaskId id) {
  Entity& p = get(id, "wakeup_preempt");
  if (p.status != Status::Queued)
    throw Error("wakeup_preempt: task " + id_str(id) + " is not queued");
  Entity* c = curr_entity();
  if (!c) {  // an idle CPU always switches to the wakee
    need_resched_ = true;
    return true;
  }
  if (c->id == id) throw Error("wakeup_preempt: task " + id_str(id) + " is already running");
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

void Runqueue::reweight_entity(TaskId id, int64_t weight) {
  validate_weight(weight);
  Entity& e = get(id, "reweight");
  const int64_t w = e.weight;
  const auto scale = [&](const Num& x) {
    Num y = x * static_cast<long>(w) / static_cast<long>(weight);
    y.canonicalize();
    return y;
  };
  if (!in_queue(e)) {
    e.vlag = scale(e.vlag);
    if (e.rel_deadline) e.deadline = scale(e.deadline);
    e.weight = weight;
    return;
  }
  const bool is_curr = curr_ == id;
  const Num V = avg_vruntime();
  switch (params_.preset.reweight) {
    case ReweightRule::KeepV:
      e.deadline = e.vruntime + scale(e.deadline - e.vruntime);
      e.weight = weight;
      break;
    case ReweightRule::Rescale: {
      // V is invariant: v' = V − l·w/w', d' = V + (d − V)·w/w' (Linux reweight_eevdf).
      const Num l = entity_lag(e, V);
      if (l != V - e.vruntime) e.request_cut = true;
      e.vruntime = V - scale(l);
      e.deadline = V + scale(e.deadline - V);
      e.weight = weight;
      if (!is_curr) insert(e);
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

void Runqueue::set_slice(TaskId id, int64_t slice) {
  validate_slice(slice);
  Entity& e = get(id, "set_slice");
  e.custom_slice = slice != 0;
  e.slice = slice != 0 ? slice : params_.base_slice_ns();
}

void Runqueue::yield_task() {
  Entity* c = curr_entity();
  if (!c) throw Error("yield: no task is running");
  if (queued().size() == 1) return;
  if (next_ == c->id) next_.reset();
  c->deadline += vslice(*c);
  c->request += c->slice;
  need_resched_ = true;
}

void Runqueue::create(TaskId id, int64_t weight, int64_t slice) {
  if (find(id)) throw Error("create: task " + id_str(id) + " exists already");
  validate_weight(weight);
  validate_slice(slice);
  Entity e;
  e.id = id;
  e.weight = weight;
  e.custom_slice = slice != 0;
  e.slice = slice != 0 ? slice : params_.base_slice_ns();
  entities_.push_back(std::move(e));
}

void Runqueue::exit(TaskId id) {
  Entity& e = get(id, "exit");
  if (e.status != Status::Sleeping)
    throw Error("exit: task " + id_str(id) + " is still queued; dequeue it first");
  std::erase_if(entities_, [&](const Entity& x) { return x.id == id; });
}

// ---------------------------------------------------------------------------------------------
// Dispatch and observation

Outcome Runqueue::apply(const Op& op) {
  outcome_ = Outcome{};
  switch (op.kind) {
    case OpKind::Create:
      create(op.id, op.a, op.b);
      break;
    case OpKind::Exit:
      exit(op.id);
      break;
    case OpKind::Enqueue:
      enqueue_entity(op.id);
      break;
    case OpKind::Dequeue:
      dequeue_entity(op.id, op.flags & kDequeueSleep);
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
      reweight_entity(op.id, op.a);
      break;
    case OpKind::SetSlice:
      set_slice(op.id, op.a);
      break;
    case OpKind::Yield:
      yield_task();
      break;
    case OpKind::WakeupPreempt:
      outcome_.preempt = wakeup_preempt(op.id);
      break;
  }
  if (observer_) emit(op);
  return outcome_;
}

void Runqueue::emit(const Op& op) {
  Event<Num> ev;
  ev.op = op;
  ev.now = now_;
  ev.picked = outcome_.picked;
  ev.preempt = outcome_.preempt;
  ev.need_resched = need_resched_;
  ev.V = avg_vruntime();
  ev.W = total_weight();
  ev.nr_queued = static_cast<int64_t>(queued().size());
  // The entity the event is about: the one named, or the running one for pick/run/tick/yield.
  const bool about_curr = op.kind == OpKind::Pick || op.kind == OpKind::Run ||
                          op.kind == OpKind::Tick || op.kind == OpKind::Yield;
  const Entity* e = about_curr ? curr_entity() : find(op.id);
  if (e) {
    EntityState<Num> s;
    s.id = e->id;
    s.weight = e->weight;
    s.slice = e->slice;
    s.vruntime = e->vruntime;
    s.deadline = e->deadline;
    s.vlag = in_queue(*e) ? Num(ev.V - e->vruntime) : e->vlag;
    s.status = e->status;
    s.running = curr_ == e->id;
    s.eligible = in_queue(*e) && entity_eligible(*e);
    ev.entity = s;
  }
  observer_->on_event(ev);
}

}  // namespace vlag::reference
