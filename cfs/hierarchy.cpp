#include "cfs/hierarchy.h"

#include <string>

#include "spec/error.h"

namespace vlag::cfs {

using reference::group_entity_id;
using reference::group_of_entity;
using reference::is_group_entity;
using reference::kRootGroup;

Hierarchy::Hierarchy(const Params& params, reference::TaskGroups& groups, int cpu,
                     CfsOptions options, GroupLatencyNice group_latency_nice)
    : params_(params),
      groups_(groups),
      cpu_(cpu),
      options_(options),
      group_latency_nice_(std::move(group_latency_nice)) {
  options_.in_hierarchy = true;
  ensure_runqueue(kRootGroup);
}

// ---------------------------------------------------------------------------------------------
// The links between levels

// sched_slice's for_each_sched_entity: each group entity's share of its parent's load, counted
// as if it were queued when it is not.
int64_t Hierarchy::Level::scale_to_root(int64_t slice) const {
  for (GroupId x = g; x != kRootGroup; x = h->parent(x)) {
    const Runqueue& p = h->rq(h->parent(x));
    const Entity& ge = p.entity(group_entity_id(x));
    const int64_t load = p.load() + (ge.status == Status::Queued ? 0 : ge.weight);
    slice = calc_delta(slice, ge.weight, load);
  }
  return slice;
}

void Hierarchy::Level::buddy_set(Buddy b) {
  if (g != kRootGroup) h->mark_up(g, b);
}

// __clear_buddies_*: up while each level's buddy is the entity above the one cleared.
void Hierarchy::Level::buddy_cleared(Buddy b) {
  for (GroupId x = g; x != kRootGroup; x = h->parent(x))
    if (!h->rq(h->parent(x)).unmark_buddy(b, group_entity_id(x))) return;
}

// set_*_buddy from g's group entity up to the root.
void Hierarchy::mark_up(GroupId g, Buddy b) {
  for (GroupId x = g; x != kRootGroup; x = parent(x))
    rq(parent(x)).mark_buddy(b, group_entity_id(x));
}

void Hierarchy::Forward::on_step(const StepReport<int64_t>& r) {
  if (!to) return;
  if (r.op.kind == OpKind::Run && !r.entity) return;
  if (r.entity && is_group_entity(r.entity->se)) {
    StepReport<int64_t> copy = r;
    copy.entity->task.reset();
    to->on_step(copy);
    return;
  }
  to->on_step(r);
}

// ---------------------------------------------------------------------------------------------
// Runqueues

bool Hierarchy::has_runqueue(GroupId g) const {
  return g >= 0 && static_cast<size_t>(g) < rqs_.size() && rqs_[static_cast<size_t>(g)];
}

Runqueue& Hierarchy::rq(GroupId g) {
  if (!has_runqueue(g)) throw Error("no runqueue of group " + std::to_string(g) + " here");
  return *rqs_[static_cast<size_t>(g)];
}

const Runqueue& Hierarchy::rq(GroupId g) const {
  if (!has_runqueue(g)) throw Error("no runqueue of group " + std::to_string(g) + " here");
  return *rqs_[static_cast<size_t>(g)];
}

GroupId Hierarchy::group_of(TaskId t) const {
  const auto it = group_.find(t);
  if (it == group_.end()) throw Error("no task " + std::to_string(t) + " on this CPU");
  return it->second;
}

const Entity& Hierarchy::group_entity(GroupId g) const {
  return rq(parent(g)).entity(group_entity_id(g));
}

// A runqueue off the running path only sees time pass (it has no curr to charge).
void Hierarchy::sync(GroupId g) {
  Runqueue& r = rq(g);
  if (r.now() < now_) r.apply({OpKind::Run, 0, now_ - r.now(), 0, 0, g});
}

Hierarchy::Outcome Hierarchy::op(GroupId g, Op o) {
  sync(g);
  o.rq = g;
  Runqueue& r = rq(g);
  r.apply(o);
  if (g != kRootGroup) groups_.set_load(g, cpu_, r.load());
  Outcome out;
  if (o.kind == OpKind::Pick) out.picked = r.curr();
  out.preempt = r.last_outcome().preempt;
  return out;
}

void Hierarchy::ensure_runqueue(GroupId g) {
  if (has_runqueue(g)) return;
  if (g != kRootGroup) ensure_runqueue(parent(g));
  const size_t i = static_cast<size_t>(g);
  if (rqs_.size() <= i) {
    rqs_.resize(i + 1);
    levels_.resize(i + 1);
  }
  rqs_[i] = std::make_unique<Runqueue>(params_, options_, g);
  levels_[i] = std::make_unique<Level>();
  levels_[i]->h = this;
  levels_[i]->g = g;
  rqs_[i]->set_observer(&forward_);
  rqs_[i]->set_upper_levels(levels_[i].get());
  if (g == kRootGroup) return;
  const reference::TaskGroup& tg = groups_.group(g);
  if (forward_.to)
    forward_.to->on_runqueue({now_, g, cpu_, tg.path, tg.parent, group_entity_id(g)});
  op(tg.parent, {OpKind::Create, group_entity_id(g), tg.shares, 0, kCreateGroupEntity});
  // Series 6/9: cpu.latency.nice is the group entity's latency_nice (set while it sleeps).
  if (options_.latency_nice && group_latency_nice_)
    if (const std::optional<int> ln = group_latency_nice_(g))
      rq(tg.parent).set_latency_nice(group_entity_id(g), *ln);
}

std::vector<GroupId> Hierarchy::running_path() const {
  std::vector<GroupId> path;
  GroupId g = kRootGroup;
  for (;;) {
    const std::optional<EntityId> c = rq(g).curr();
    if (!c) return path;
    path.push_back(g);
    if (!is_group_entity(*c)) return path;
    g = group_of_entity(*c);
  }
}

// (runqueue, entity) from the task up to its entity on the root runqueue.
std::vector<std::pair<GroupId, EntityId>> Hierarchy::chain(TaskId t) const {
  std::vector<std::pair<GroupId, EntityId>> c;
  GroupId g = group_of(t);
  c.emplace_back(g, t);
  for (; g != kRootGroup; g = parent(g)) c.emplace_back(parent(g), group_entity_id(g));
  return c;
}

void Hierarchy::put_subtree(GroupId g) {
  const std::optional<EntityId> c = rq(g).curr();
  if (!c) return;
  op(g, {OpKind::PutPrev, *c});
  if (is_group_entity(*c)) put_subtree(group_of_entity(*c));
}

// update_cfs_group, instantaneous form (SPEC.md §10.3); an empty group runqueue keeps its
// entity's weight.
void Hierarchy::update_shares(GroupId g) {
  if (rq(g).nr_queued() == 0) return;
  const int64_t w = groups_.shares_on(g, cpu_);
  if (group_entity(g).weight != w) op(parent(g), {OpKind::Reweight, group_entity_id(g), w});
}

// ---------------------------------------------------------------------------------------------
// State

std::optional<TaskId> Hierarchy::curr() const {
  const std::vector<GroupId> path = running_path();
  if (path.empty()) return std::nullopt;
  const std::optional<EntityId> c = rq(path.back()).curr();
  if (c && is_group_entity(*c)) return std::nullopt;
  return c;
}

int64_t Hierarchy::nr_queued() const {
  int64_t n = 0;
  for (size_t g = 0; g < rqs_.size(); ++g) {
    if (!rqs_[g]) continue;
    n += rqs_[g]->nr_queued();
    if (g != 0 && group_entity(static_cast<GroupId>(g)).status == Status::Queued) --n;
  }
  return n;
}

bool Hierarchy::need_resched() const {
  const std::vector<GroupId> path = running_path();
  for (GroupId g : path)
    if (rq(g).need_resched()) return true;
  if (!path.empty() && !curr()) return true;
  return rq(kRootGroup).need_resched();
}

// ---------------------------------------------------------------------------------------------
// Operations

void Hierarchy::create(TaskId t, int64_t weight, int64_t slice, GroupId g) {
  if (group_.count(t)) throw Error("task " + std::to_string(t) + " exists already");
  if (is_group_entity(t)) throw Error("task id " + std::to_string(t) + " is a group entity's");
  ensure_runqueue(g);
  op(g, {OpKind::Create, t, weight, slice});
  group_[t] = g;
}

// enqueue_task_fair: the task with its own flags, then each group entity not yet queued as a
// wakeup (ENQUEUE_WAKEUP), its weight updated first; above the first one queued already, only
// the weights.
void Hierarchy::enqueue(TaskId t) {
  const GroupId g = group_of(t);
  op(g, {OpKind::Enqueue, t});
  for (GroupId x = g; x != kRootGroup; x = parent(x)) {
    update_shares(x);
    if (group_entity(x).status != Status::Queued)
      op(parent(x), {OpKind::Enqueue, group_entity_id(x)});
  }
}

// dequeue_task_fair: each group entity whose runqueue became empty leaves its parent as a sleep
// (DEQUEUE_SLEEP, its vruntime kept absolute); at the first runqueue that keeps load, a task that
// went to sleep makes that runqueue's group entity the next buddy up the hierarchy; above it,
// only the weights.
void Hierarchy::dequeue(TaskId t, bool sleep) {
  const GroupId g = group_of(t);
  op(g, {OpKind::Dequeue, t, 0, 0, sleep ? kDequeueSleep : 0u});
  bool leaving = true;
  for (GroupId x = g; x != kRootGroup; x = parent(x)) {
    if (leaving && rq(x).nr_queued() == 0) {
      op(parent(x), {OpKind::Dequeue, group_entity_id(x), 0, 0, kDequeueSleep});
      continue;
    }
    if (leaving && sleep) mark_up(x, Buddy::Next);
    leaving = false;
    update_shares(x);
  }
}

// pick_next_task_fair: pick_next_entity on every level from the root down; a level whose choice
// is its running entity leaves it running (CfsOptions::in_hierarchy), one that changes it puts
// the old subtree back first.
std::optional<TaskId> Hierarchy::pick() {
  GroupId g = kRootGroup;
  for (;;) {
    const std::optional<EntityId> prev = rq(g).curr();
    const std::optional<EntityId> picked = op(g, {OpKind::Pick}).picked;
    if (prev && prev != picked && is_group_entity(*prev)) put_subtree(group_of_entity(*prev));
    if (!picked) {
      if (g == kRootGroup) return std::nullopt;
      throw Error("pick: group " + groups_.group(g).path + "'s runqueue is empty on CPU " +
                  std::to_string(cpu_) + " while its entity is queued");
    }
    if (!is_group_entity(*picked)) return *picked;
    g = group_of_entity(*picked);
  }
}

// update_curr on every runqueue of the running path.
void Hierarchy::run(int64_t delta) {
  if (delta < 0) throw Error("run: negative time");
  for (GroupId g : running_path()) op(g, {OpKind::Run, 0, delta});
  now_ += delta;
}

// task_tick_fair: entity_tick from the task's runqueue up to the root, each level's running group
// entity reweighted (update_cfs_group) before that level's check_preempt_tick.
void Hierarchy::tick() {
  const std::vector<GroupId> path = running_path();
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const std::optional<EntityId> c = rq(*it).curr();
    if (c && is_group_entity(*c)) update_shares(group_of_entity(*c));
    op(*it, {OpKind::Tick});
  }
}

// check_preempt_wakeup: no decision while a reschedule is pending; else the wakee against curr
// on their first common runqueue (find_matching_se). The runqueue marks the buddies, up the
// hierarchy through its Level.
bool Hierarchy::wakeup_preempt(TaskId t) {
  if (status(t) != Status::Queued)
    throw Error("wakeup_preempt: task " + std::to_string(t) + " is not queued");
  const std::optional<TaskId> c = curr();
  auto wakee = chain(t);
  if (!c) {
    if (rq(kRootGroup).curr()) return true;  // a group runs with no task in it: resched
    return op(kRootGroup, {OpKind::WakeupPreempt, wakee.back().second}).preempt;
  }
  if (need_resched()) return false;
  auto running = chain(*c);
  while (wakee.size() > running.size()) wakee.erase(wakee.begin());
  while (running.size() > wakee.size()) running.erase(running.begin());
  while (wakee.front().first != running.front().first) {
    wakee.erase(wakee.begin());
    running.erase(running.begin());
  }
  return op(wakee.front().first, {OpKind::WakeupPreempt, wakee.front().second}).preempt;
}

std::optional<Migrant<int64_t>> Hierarchy::detach(TaskId t) {
  const GroupId g = group_of(t);
  sync(g);
  auto m = rq(g).detach(t);
  if (!m) return std::nullopt;
  group_.erase(t);
  if (g != kRootGroup) groups_.set_load(g, cpu_, rq(g).load());
  return m;
}

bool Hierarchy::attach(const Migrant<int64_t>& m, GroupId g) {
  if (group_.count(m.se)) return false;
  ensure_runqueue(g);
  sync(g);
  if (!rq(g).attach(m)) return false;
  group_[m.se] = g;
  return true;
}

void Hierarchy::set_latency_nice(TaskId t, int latency_nice) {
  rq(group_of(t)).set_latency_nice(t, latency_nice);
}

Hierarchy::Outcome Hierarchy::apply(const Op& o, GroupId create_in) {
  Outcome out;
  switch (o.kind) {
    case OpKind::Create:
      create(o.se, o.a, o.b, create_in);
      break;
    case OpKind::Exit:
      op(group_of(o.se), {OpKind::Exit, o.se});
      group_.erase(o.se);
      break;
    case OpKind::Enqueue:
      enqueue(o.se);
      break;
    case OpKind::Dequeue:
      dequeue(o.se, o.flags & kDequeueSleep);
      break;
    case OpKind::Pick:
      out.picked = pick();
      break;
    case OpKind::Run:
      run(o.a);
      break;
    case OpKind::Tick:
      tick();
      break;
    case OpKind::Reweight: {
      const GroupId g = group_of(o.se);
      op(g, {OpKind::Reweight, o.se, o.a});
      for (GroupId x = g; x != kRootGroup; x = parent(x)) update_shares(x);
      break;
    }
    case OpKind::SetSlice:
      op(group_of(o.se), {OpKind::SetSlice, o.se, o.a});
      break;
    case OpKind::Yield:
      if (!curr()) throw Error("yield: no task runs");
      op(running_path().back(), {OpKind::Yield});
      break;
    case OpKind::WakeupPreempt:
      out.preempt = wakeup_preempt(o.se);
      break;
    case OpKind::PutPrev:
    case OpKind::Detach:
    case OpKind::Attach:
      throw Error(std::string(op_name(o.kind)) + ": not a task-level operation of a hierarchy");
  }
  last_ = out;
  return out;
}

}  // namespace vlag::cfs
