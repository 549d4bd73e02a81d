#include "cfs/runqueue.h"

#include <algorithm>
#include <string>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::cfs {
namespace {

std::string id_str(EntityId id) { return std::to_string(id); }

// Time may move forward by at most this much in one step, as in the EEVDF runqueues.
constexpr int64_t kMaxStepNs = int64_t{1} << 50;
// entity_is_long_sleeper: a sleep longer than (1 << 63) / NICE_0_LOAD ns (about 104 days) drops
// the old vruntime, which could be too far behind to compare with s64 arithmetic.
constexpr int64_t kLongSleepNs = static_cast<int64_t>((uint64_t{1} << 63) / kNice0Weight);

LinuxTime max_vruntime(LinuxTime a, LinuxTime b) { return a < b ? b : a; }

}  // namespace

bool Runqueue::ByVruntime::operator()(const Entity* a, const Entity* b) const {
  if (a->vruntime != b->vruntime) return a->vruntime < b->vruntime;
  return a->seq < b->seq;
}

bool Runqueue::ByLatencyKey::operator()(const Entity* a, const Entity* b) const {
  const LinuxTime ka = a->vruntime + a->latency_offset;
  const LinuxTime kb = b->vruntime + b->latency_offset;
  if (ka != kb) return ka < kb;
  return a->seq < b->seq;
}

Runqueue::Runqueue(const Params& params, CfsOptions options, RunqueueId id)
    : params_(params),
      options_(options),
      rq_id_(id),
      tun_(tunables_for(params)),
      min_vruntime_(-(int64_t{1} << 20)) {}  // init_cfs_rq: (u64)(-(1LL << 20))

// ---------------------------------------------------------------------------------------------
// Lookups and derived quantities

Entity& Runqueue::get(EntityId id, const char* op) {
  auto it = entities_.find(id);
  if (it == entities_.end()) throw Error(std::string(op) + ": unknown task " + id_str(id));
  return it->second;
}

const EntityView& Runqueue::entity(EntityId id) const {
  auto it = entities_.find(id);
  if (it == entities_.end()) throw Error("unknown task " + id_str(id));
  return it->second;
}

Entity* Runqueue::curr_entity() { return curr_ ? &entities_.at(*curr_) : nullptr; }

const Entity* Runqueue::leftmost() const { return tree_.empty() ? nullptr : *tree_.begin(); }

const Entity* Runqueue::latency_leftmost() const {
  return latency_tree_.empty() ? nullptr : *latency_tree_.begin();
}

LinuxTime Runqueue::absolute_vruntime(const Entity& e) const {
  return e.relative ? e.vruntime + min_vruntime_ : e.vruntime;
}

// v6.5 with ALT_PERIOD and BASE_SLICE (both on by default): the period of the CPU's tasks
// (rq->cfs.h_nr_running, nr_running on a flat runqueue), counting se as if it were queued,
// shared by weight on se's runqueue and then on every level above it, and never less than
// min_granularity.
int64_t Runqueue::sched_slice(const Entity& e) const {
  const bool on_rq = e.status == Status::Queued;
  const int64_t nr = upper_ ? upper_->cpu_nr_queued() : nr_queued_;
  const int64_t period = tun_.period_ns(nr + (on_rq ? 0 : 1));
  int64_t slice = calc_delta(period, e.weight, load_ + (on_rq ? 0 : e.weight));
  if (upper_) slice = upper_->scale_to_root(slice);
  return std::max(slice, tun_.min_granularity_ns);
}

int Runqueue::wakeup_preempt_entity(const Entity& curr, const Entity& se) const {
  const int64_t vdiff = (absolute_vruntime(curr) - absolute_vruntime(se)).value();
  return wakeup_preempt(vdiff, curr.latency_offset, se.latency_offset, se.weight, tun_,
                        options_.latency_nice);
}

// ---------------------------------------------------------------------------------------------
// Trees

void Runqueue::tree_insert(Entity& e) {
  e.seq = ++seq_;
  tree_.insert(&e);
}

void Runqueue::tree_erase(Entity& e) { tree_.erase(&e); }

// __enqueue_latency (v9 8/9): only latency-sensitive entities, and outside a wakeup only those
// that ran less than min_granularity since their pick (cut short by a higher priority).
void Runqueue::latency_insert(Entity& e, bool wakeup) {
  if (!options_.latency_nice || e.latency_offset >= 0 || e.on_latency_tree) return;
  if (!wakeup && e.sum_exec_runtime - e.prev_sum_exec_runtime >= tun_.min_granularity_ns) return;
  latency_tree_.insert(&e);
  e.on_latency_tree = true;
}

void Runqueue::latency_erase(Entity& e) {
  if (!e.on_latency_tree) return;
  latency_tree_.erase(&e);
  e.on_latency_tree = false;
}

std::optional<EntityId>& Runqueue::buddy(Buddy b) {
  switch (b) {
    case Buddy::Next:
      return next_;
    case Buddy::Last:
      return last_;
    case Buddy::Skip:
      break;
  }
  return skip_;
}

void Runqueue::mark_buddy(Buddy b, EntityId id) { buddy(b) = id; }

bool Runqueue::unmark_buddy(Buddy b, EntityId id) {
  std::optional<EntityId>& slot = buddy(b);
  if (slot != id) return false;
  slot.reset();
  return true;
}

void Runqueue::set_buddy(Buddy b, EntityId id) {
  buddy(b) = id;
  if (upper_) upper_->buddy_set(b);
}

void Runqueue::clear_buddies(EntityId id) {
  for (Buddy b : {Buddy::Next, Buddy::Last, Buddy::Skip})
    if (unmark_buddy(b, id) && upper_) upper_->buddy_cleared(b);
}

// min_vruntime follows the smaller of curr's and the leftmost's vruntime, never backwards.
void Runqueue::update_min_vruntime() {
  const Entity* c = curr_ ? &entities_.at(*curr_) : nullptr;
  const Entity* left = leftmost();
  LinuxTime v = min_vruntime_;
  if (c) v = c->vruntime;
  if (left) v = c ? std::min(v, left->vruntime) : left->vruntime;
  min_vruntime_ = max_vruntime(min_vruntime_, v);
}

// ---------------------------------------------------------------------------------------------
// Enqueue and dequeue

bool Runqueue::is_long_sleeper(const Entity& e) const {
  if (e.exec_start == 0 || now_ <= e.exec_start) return false;
  return now_ - e.exec_start > kLongSleepNs;
}

// initial: task_fork_fair's placement (START_DEBIT: one vslice after min_vruntime, and not
// before the forking task, the running one); else a wakeup's (a sleeper credit before
// min_vruntime at most, GENTLE_FAIR_SLEEPERS).
void Runqueue::place_entity(Entity& e, bool initial) {
  LinuxTime v = min_vruntime_;
  if (initial) {
    v += calc_delta_fair(sched_slice(e), e.weight);
    if (const Entity* c = curr_ ? &entities_.at(*curr_) : nullptr) v = max_vruntime(v, c->vruntime);
    e.vruntime = v;
    return;
  }
  v -= tun_.sleeper_credit_ns();
  e.vruntime = is_long_sleeper(e) ? v : max_vruntime(e.vruntime, v);
}

void Runqueue::enqueue_entity(EntityId id) {
  Entity& e = get(id, "enqueue");
  if (e.status == Status::Queued) throw Error("enqueue: task " + id_str(id) + " is already queued");
  // A relative entity gets the min_vruntime of now: a migrated one is then placed as a waking
  // task (ENQUEUE_WAKEUP|ENQUEUE_MIGRATED), one dequeued without sleeping is restored as it was.
  bool wakeup = !e.is_new;
  if (e.relative) {
    e.vruntime += min_vruntime_;
    e.relative = false;
    wakeup = e.migrated;
    e.migrated = false;
  }
  if (e.is_new)
    place_entity(e, true);
  else if (wakeup)
    place_entity(e, false);
  e.is_new = false;
  e.status = Status::Queued;
  ++nr_queued_;
  load_ += e.weight;
  tree_insert(e);
  latency_insert(e, wakeup);
}

void Runqueue::dequeue_entity(EntityId id, bool sleep) {
  Entity& e = get(id, "dequeue");
  if (e.status != Status::Queued)
    throw Error("dequeue: task " + id_str(id) + " is not queued (it is sleeping)");
  clear_buddies(id);
  if (curr_ == id) {
    curr_.reset();
    e.running = false;
  } else {
    tree_erase(e);
    latency_erase(e);
  }
  e.status = Status::Sleeping;
  --nr_queued_;
  load_ -= e.weight;
  if (!sleep) {
    e.vruntime -= min_vruntime_;
    e.relative = true;
  }
  update_min_vruntime();
}

// ---------------------------------------------------------------------------------------------
// Pick

void Runqueue::set_next_entity(Entity& e) {
  clear_buddies(e.id);
  tree_erase(e);
  latency_erase(e);
  curr_ = e.id;
  e.running = true;
  e.exec_start = now_;
  e.prev_sum_exec_runtime = e.sum_exec_runtime;
}

void Runqueue::put_prev_entity() {
  Entity* c = curr_entity();
  if (!c) return;
  curr_.reset();
  c->running = false;
  tree_insert(*c);
  latency_insert(*c, false);
}

// pick_next_entity after put_prev_entity (the !FAIR_GROUP_SCHED order): the leftmost, unless
// the skip buddy is leftmost and the second is not too unfair; then the next buddy, else the
// last buddy, if not too unfair against the leftmost; then (v9) the latency tree's leftmost if
// not too unfair against that choice.
std::optional<EntityId> Runqueue::pick_next_entity() {
  need_resched_ = false;
  const std::optional<EntityId> prev = curr_;
  put_prev_entity();
  if (tree_.empty()) return std::nullopt;
  Entity* left = *tree_.begin();
  Entity* se = left;
  if (skip_ == se->id) {
    auto second = std::next(tree_.begin());
    if (second != tree_.end() && wakeup_preempt_entity(**second, *left) < 1) se = *second;
  }
  if (next_ && wakeup_preempt_entity(entities_.at(*next_), *left) < 1)
    se = &entities_.at(*next_);
  else if (last_ && wakeup_preempt_entity(entities_.at(*last_), *left) < 1)
    se = &entities_.at(*last_);
  if (options_.latency_nice && !latency_tree_.empty()) {
    Entity* latency = *latency_tree_.begin();
    if (latency != se && wakeup_preempt_entity(*latency, *se) < 1) se = latency;
  }
  if (options_.in_hierarchy && se->id == prev) {  // it keeps running as it was
    tree_erase(*se);
    latency_erase(*se);
    curr_ = se->id;
    se->running = true;
    return se->id;
  }
  set_next_entity(*se);
  return se->id;
}

// ---------------------------------------------------------------------------------------------
// Run and tick

void Runqueue::update_curr(int64_t delta_ns) {
  if (delta_ns < 0)
    throw Error("run: time would go backwards (delta " + std::to_string(delta_ns) + " ns)");
  if (delta_ns > kMaxStepNs || now_ > INT64_MAX - delta_ns)
    throw Error("run: delta " + std::to_string(delta_ns) + " ns overflows the clock");
  now_ += delta_ns;
  Entity* c = curr_entity();
  if (!c || delta_ns == 0) return;  // Linux returns early on an empty delta
  c->sum_exec_runtime += delta_ns;
  c->exec_start = now_;
  c->vruntime += calc_delta_fair(delta_ns, c->weight);
  update_min_vruntime();
}

// check_preempt_tick: preempt once curr ran its ideal runtime; after min_granularity also when
// it is more than that ideal runtime (compared in virtual time, as v6.5 does) ahead of the
// leftmost. v9 moves the threshold by the latency offsets and caps it at get_latency_max().
void Runqueue::check_preempt_tick(Entity& c) {
  const int64_t ideal = sched_slice(c);
  const int64_t ran = c.sum_exec_runtime - c.prev_sum_exec_runtime;
  if (ran > ideal) {
    need_resched_ = true;
    clear_buddies(c.id);
    return;
  }
  if (ran < tun_.min_granularity_ns) return;
  const Entity* left = leftmost();
  if (!left) return;
  const int64_t delta = (c.vruntime - left->vruntime).value();
  if (!options_.latency_nice) {
    if (delta > ideal) need_resched_ = true;
    return;
  }
  if (delta < wakeup_latency_gran(c.latency_offset, left->latency_offset, tun_)) return;
  if (delta > ideal || delta > tun_.latency_max_ns()) need_resched_ = true;
}

void Runqueue::entity_tick() {
  Entity* c = curr_entity();
  if (c && nr_queued_ > 1) check_preempt_tick(*c);
}

// ---------------------------------------------------------------------------------------------
// Wakeup preemption, yield

// check_preempt_wakeup with v6.5's default features: WAKEUP_PREEMPTION on, NEXT_BUDDY off (so a
// wakee becomes the next buddy only when it preempts), LAST_BUDDY on (curr becomes the last
// buddy when it is preempted on a runqueue of at least sched_nr_latency tasks).
bool Runqueue::check_preempt_wakeup(EntityId id) {
  Entity& p = get(id, "wakeup_preempt");
  if (p.status != Status::Queued)
    throw Error("wakeup_preempt: task " + id_str(id) + " is not queued");
  Entity* c = curr_entity();
  if (!c) {  // an idle CPU always switches to the wakee
    need_resched_ = true;
    return true;
  }
  if (c->id == id) throw Error("wakeup_preempt: task " + id_str(id) + " is already running");
  if (need_resched_) return false;  // a reschedule is already due: no new decision
  if (wakeup_preempt_entity(*c, p) != 1) return false;
  set_buddy(Buddy::Next, id);
  need_resched_ = true;
  if (nr_queued_ >= tun_.nr_latency && !c->group) set_buddy(Buddy::Last, c->id);
  return true;
}

void Runqueue::yield_task() {
  Entity* c = curr_entity();
  if (!c) throw Error("yield: no task is running");
  if ((upper_ ? upper_->cpu_nr_queued() : nr_queued_) == 1) return;  // rq->nr_running
  clear_buddies(c->id);
  set_buddy(Buddy::Skip, c->id);
  need_resched_ = true;  // sched_yield() calls schedule()
}

// ---------------------------------------------------------------------------------------------
// Attribute changes, create and exit

// An attribute change goes through dequeue_task(DEQUEUE_SAVE) and enqueue_task(ENQUEUE_RESTORE)
// (put_prev/set_next for the running task): the vruntime comes back as it was, the task's
// buddies are cleared, a waiting task is queued again behind equal keys and re-enters the
// latency tree only under the not-a-wakeup rule, and a running task starts a new slice.
bool Runqueue::save(Entity& e) {
  if (e.status != Status::Queued) return false;
  clear_buddies(e.id);
  if (curr_ == e.id) return false;
  tree_erase(e);
  latency_erase(e);
  return true;
}

void Runqueue::restore(Entity& e, bool waiting) {
  if (waiting) {
    tree_insert(e);
    latency_insert(e, false);
  } else if (curr_ == e.id) {
    e.prev_sum_exec_runtime = e.sum_exec_runtime;
    e.exec_start = now_;
  }
}

void Runqueue::reweight_entity(EntityId id, int64_t weight) {
  validate_weight(weight);
  Entity& e = get(id, "reweight");
  if (e.group) {  // update_cfs_group's reweight_entity moves the weights only
    if (e.status == Status::Queued) load_ += weight - e.weight;
    e.weight = weight;
    return;
  }
  const bool waiting = save(e);
  if (e.status == Status::Queued) load_ += weight - e.weight;
  // prio_changed_fair: the running task that got a lower priority reschedules.
  if (curr_ == id && weight < e.weight) need_resched_ = true;
  e.weight = weight;
  restore(e, waiting);
}

void Runqueue::set_latency_nice(EntityId id, int latency_nice) {
  const int64_t offset = latency_offset_ns(latency_nice, tun_);
  Entity& e = get(id, "set_latency_nice");
  if (!options_.latency_nice)
    throw Error("set_latency_nice: task " + id_str(id) +
                ": latency_nice needs the cfs-latency-nice policy (v6.5 has none)");
  const bool waiting = save(e);
  e.latency_nice = latency_nice;
  e.latency_offset = offset;
  restore(e, waiting);
}

void Runqueue::set_slice(EntityId id, int64_t slice) {
  validate_slice(slice);
  get(id, "set_slice");
}

// A group entity starts as a waking entity that ran nowhere: its first enqueue places it at
// min_vruntime − the sleeper credit (the kernel's zeroed vruntime compares before that on any
// runqueue whose min_vruntime has passed 0, the first millisecond of virtual time).
void Runqueue::create(EntityId id, int64_t weight, int64_t slice, bool group) {
  if (entities_.count(id)) throw Error("create: task " + id_str(id) + " exists already");
  validate_weight(weight);
  validate_slice(slice);
  Entity e;
  e.id = id;
  e.weight = weight;
  if (group) {
    e.group = true;
    e.is_new = false;
    e.vruntime = min_vruntime_ - tun_.sleeper_credit_ns();
  }
  entities_.emplace(id, e);
}

void Runqueue::exit(EntityId id) {
  Entity& e = get(id, "exit");
  if (e.status != Status::Sleeping)
    throw Error("exit: task " + id_str(id) + " is still queued; dequeue it first");
  entities_.erase(id);
}

// ---------------------------------------------------------------------------------------------
// Migration

std::optional<Migrant<int64_t>> Runqueue::detach(EntityId id) {
  Entity& e = get(id, "detach");
  if (e.status != Status::Sleeping) return std::nullopt;
  // A task never enqueued has no vruntime yet: it leaves level with min_vruntime.
  const LinuxTime rel = e.is_new     ? LinuxTime(0)
                        : e.relative ? e.vruntime
                                     : e.vruntime - min_vruntime_;
  Migrant<int64_t> m;
  m.se = id;
  m.weight = e.weight;
  m.vlag = (-rel).value();
  if (observer_) emit(Op{OpKind::Detach, id, 0, 0, 0, rq_id_});  // while the entity is here
  entities_.erase(id);
  return m;
}

bool Runqueue::attach(const Migrant<int64_t>& m) {
  validate_weight(m.weight);
  if (entities_.count(m.se)) return false;
  Entity e;
  e.id = m.se;
  e.weight = m.weight;
  e.vruntime = -m.vlag;
  e.relative = true;
  e.migrated = true;
  e.is_new = false;
  entities_.emplace(m.se, e);
  if (observer_) emit(Op{OpKind::Attach, m.se, m.weight, 0, 0, rq_id_});
  return true;
}

// ---------------------------------------------------------------------------------------------
// Dispatch and observation

void Runqueue::apply(const Op& op) {
  outcome_ = Outcome{};
  std::optional<EntityId> picked;
  switch (op.kind) {
    case OpKind::Create:
      create(op.se, op.a, op.b, op.flags & kCreateGroupEntity);
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
      picked = pick_next_entity();
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
      outcome_.preempt = check_preempt_wakeup(op.se);
      break;
    case OpKind::PutPrev:
      if (curr_ != op.se) throw Error("put_prev: task " + id_str(op.se) + " is not running");
      put_prev_entity();
      break;
    case OpKind::Detach:
    case OpKind::Attach:
      throw Error(std::string(op_name(op.kind)) + " " + id_str(op.se) +
                  ": a migration carries the entity; use detach() and attach()");
  }
  if (observer_) emit(op);
}

// The event fields, read for CFS (SPEC.md §8.4): V is min_vruntime, W the load; an entity's v is
// its absolute vruntime, d its latency-tree key v + latency_offset, vlag min_vruntime − v, r its
// sched_slice, elig whether it is on the latency tree.
void Runqueue::emit(const Op& op) {
  StepReport<int64_t> ev;
  ev.op = op;
  ev.rq = op.rq;  // one runqueue, whatever its operations call it
  ev.now = now_;
  if (op.kind == OpKind::Pick) ev.picked = curr_;
  ev.preempt = outcome_.preempt;
  ev.need_resched = need_resched_;
  ev.V = min_vruntime_.value();
  ev.W = load_;
  ev.nr_queued = nr_queued_;
  const bool about_curr = op.kind == OpKind::Pick || op.kind == OpKind::Run ||
                          op.kind == OpKind::Tick || op.kind == OpKind::Yield;
  const Entity* e = nullptr;
  if (about_curr) {
    if (curr_) e = &entities_.at(*curr_);
  } else if (auto it = entities_.find(op.se); it != entities_.end()) {
    e = &it->second;
  }
  if (e) {
    EntityState<int64_t> s;
    s.se = e->id;
    s.task = e->id;
    s.weight = e->weight;
    s.slice = sched_slice(*e);
    const LinuxTime v = absolute_vruntime(*e);
    s.vruntime = v.value();
    s.deadline = (v + e->latency_offset).value();
    s.vlag = (min_vruntime_ - v).value();
    s.status = e->status;
    s.running = e->running;
    s.eligible = e->on_latency_tree;
    ev.entity = s;
  }
  observer_->on_step(ev);
}

}  // namespace vlag::cfs
