// One CPU's hierarchy of runqueues (SPEC.md §10.2): the root runqueue, and for every task group
// with entities on this CPU a group runqueue and a group entity in its parent's runqueue. Each
// runqueue is a flat runqueue of SPEC.md §4 (Rq: reference::Runqueue exact, LinuxRunqueue, or
// optimized::Runqueue, one tree per group runqueue), applied only through its Ops; this class
// adds the rules of §10.2 that connect the levels — enqueue and dequeue walk up, pick descends
// from the root, update_curr charges every level of the running path, the shares rule (§10.3,
// through TaskGroups) and the group entity's slice (§10.4). Runqueue ids are group ids (the root
// runqueue is 0); a group entity's id is kGroupEntityBase + its group's id.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reference/entity.h"
#include "reference/task_groups.h"
#include "spec/error.h"
#include "spec/features.h"
#include "spec/migrant.h"
#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::reference {

inline constexpr EntityId kGroupEntityBase = EntityId{1} << 40;
inline bool is_group_entity(EntityId id) { return id >= kGroupEntityBase; }
inline EntityId group_entity_id(GroupId g) { return kGroupEntityBase + g; }
inline GroupId group_of_entity(EntityId id) { return id - kGroupEntityBase; }

/// A group runqueue as it first appears on a CPU (spec/TRACE.md §7's `runqueue` line).
struct RunqueueDeclaration {
  int64_t t = 0;  // the CPU's clock when it appears
  RunqueueId rq = 0;
  int cpu = 0;
  std::string group;  // its task group's path
  RunqueueId parent = 0;
  EntityId se = 0;  // its group entity, an entity of `parent`
};

/// What a hierarchy reports: every step of each of its runqueues (a group entity's reported
/// with no task), and each group runqueue before its first step.
template <class Num>
class HierarchyObserver : public Observer<Num> {
 public:
  using Declaration = RunqueueDeclaration;
  virtual void on_runqueue(const RunqueueDeclaration& d) = 0;
};

template <class Rq>
class BasicHierarchy {
 public:
  using Num = typename Rq::Num;
  /// Called around every operation of a runqueue when set (tests: §6's step rules per level).
  using StepHook = std::function<void(const Rq& before, const Op& op, const Rq& after)>;

  BasicHierarchy(Params params, TaskGroups& groups, int cpu = 0)
      : params_(std::move(params)), groups_(groups), cpu_(cpu) {
    min_slice_rule_ = params_.preset.wakeup == WakeupRule::ShortV1 ||
                      params_.preset.wakeup == WakeupRule::ShortV2;  // §10.4: 6.12+
    rqs_.push_back(std::make_unique<Rq>(params_, 0));
    rqs_[0]->set_observer(&forward_);
  }
  BasicHierarchy(const BasicHierarchy&) = delete;
  BasicHierarchy& operator=(const BasicHierarchy&) = delete;

  // Tasks (§10.2).
  void create(TaskId t, int64_t weight, int64_t slice, GroupId g) {
    if (group_.count(t)) throw Error("task " + std::to_string(t) + " exists already");
    if (is_group_entity(t)) throw Error("task id " + std::to_string(t) + " is a group entity's");
    ensure_runqueue(g);
    op(g, {OpKind::Create, t, weight, slice});
    group_[t] = g;
  }
  void exit(TaskId t) {
    op(group_at(t), {OpKind::Exit, t});
    group_.erase(t);
  }
  void enqueue(TaskId t) {
    const GroupId g = group_at(t);
    op(g, {OpKind::Enqueue, t});
    walk_up_after_enqueue(g);
  }
  void dequeue(TaskId t, bool sleep) {
    const GroupId g = group_at(t);
    op(g, {OpKind::Dequeue, t, 0, 0, sleep ? kDequeueSleep : 0u});
    walk_up_after_dequeue(g, sleep);
  }
  void reweight(TaskId t, int64_t weight) {
    const GroupId g = group_at(t);
    op(g, {OpKind::Reweight, t, weight});
    refresh_up(g);
  }
  void set_slice(TaskId t, int64_t slice) {
    const GroupId g = group_at(t);
    op(g, {OpKind::SetSlice, t, slice});
    refresh_up(g);
  }
  /// §4.11 on the running task's own runqueue.
  void yield() {
    if (!curr()) throw Error("yield: no task runs");
    op(running_path().back(), {OpKind::Yield});
  }
  /// §10.2: the wakee against curr on their first common runqueue (find_matching_se).
  bool wakeup_preempt(TaskId t) {
    if (status(t) != Status::Queued)
      throw Error("wakeup_preempt: task " + std::to_string(t) + " is not queued");
    const std::optional<TaskId> c = curr();
    auto wakee = chain(t);
    if (!c) {
      // A group runs with no task picked inside it: the CPU reschedules anyway (need_resched).
      if (rq(kRootGroup).curr()) return true;
      return op(kRootGroup, {OpKind::WakeupPreempt, wakee.back().second}).preempt;
    }
    auto running = chain(*c);
    while (wakee.size() > running.size()) wakee.erase(wakee.begin());
    while (running.size() > wakee.size()) running.erase(running.begin());
    while (wakee.front().first != running.front().first) {
      wakee.erase(wakee.begin());
      running.erase(running.begin());
    }
    return op(wakee.front().first, {OpKind::WakeupPreempt, wakee.front().second}).preempt;
  }

  /// §10.2: pick descends from the root; the old path is put back where it changes.
  std::optional<TaskId> pick() {
    for (;;) {  // each round that starts again has dequeued a group entity, so this ends
      GroupId g = kRootGroup;
      for (;;) {
        const std::optional<EntityId> prev = rq(g).curr();
        const int64_t load_before = rq(g).total_weight();
        const std::optional<EntityId> picked = op(g, {OpKind::Pick}).picked;
        if (prev && prev != picked && is_group_entity(*prev)) put_subtree(group_of_entity(*prev));
        if (g != kRootGroup && rq(g).total_weight() != load_before) refresh_up(g);
        if (!picked) {
          if (g == kRootGroup) return std::nullopt;
          // Its last entities were delayed and are gone: the group entity leaves, pick again.
          const GroupId parent = groups_.group(g).parent;
          op(parent, {OpKind::Dequeue, group_entity_id(g), 0, 0, kDequeueSleep});
          walk_up_after_dequeue(parent, true);
          break;
        }
        if (!is_group_entity(*picked)) return *picked;
        g = group_of_entity(*picked);
      }
    }
  }
  /// §10.2: update_curr on every runqueue of the running path.
  void run(int64_t delta) {
    if (delta < 0) throw Error("run: negative time");
    // The running path's runqueues are at now_ already (op() syncs only the ones behind it).
    for (GroupId g : running_path()) op(g, {OpKind::Run, 0, delta});
    now_ += delta;
  }
  /// §10.2: entity_tick on every level of the running path, then the shares rule above curr.
  void tick() {
    const std::vector<GroupId> path = running_path();
    for (GroupId g : path) op(g, {OpKind::Tick});
    for (GroupId g : path)
      if (g != kRootGroup) update_shares(g);
  }
  /// §4.13 for a sleeping task of this CPU; nullopt if it is not detachable.
  std::optional<Migrant<Num>> detach(TaskId t) {
    const GroupId g = group_at(t);
    sync(g);
    auto m = rq(g).detach(t);
    if (m) group_.erase(t);
    after_op(g);
    return m;
  }
  bool attach(const Migrant<Num>& m, GroupId g) {
    if (group_.count(m.se)) return false;
    ensure_runqueue(g);
    sync(g);
    if (!rq(g).attach(m)) return false;
    after_op(g);
    group_[m.se] = g;
    return true;
  }
  /// Moves a task to another group of this CPU (sched_move_task): a queued task is dequeued,
  /// carried with its saved lag, and enqueued again. A delayed task is refused.
  void move(TaskId t, GroupId to) {
    const GroupId from = group_at(t);
    if (from == to) return;
    const Status s = status(t);
    if (s == Status::Delayed) throw Error("move: task " + std::to_string(t) + " is delayed");
    if (s == Status::Queued) dequeue(t, false);
    auto m = detach(t);
    if (!m) throw Error("move: task " + std::to_string(t) + " cannot leave its runqueue");
    attach(*m, to);
    if (s == Status::Queued) enqueue(t);
  }
  /// The group's shares changed (a cpu.weight write): its entity here follows the rule now,
  /// unless its runqueue is empty (§10.3).
  void shares_changed(GroupId g) {
    if (has_runqueue(g)) update_shares(g);
  }
  /// Drops an empty group runqueue of this CPU and exits its group entity (which must sleep).
  void destroy_runqueue(GroupId g) {
    if (!has_runqueue(g)) return;
    for (size_t h = 1; h < rqs_.size(); ++h)
      if (rqs_[h] && groups_.group(static_cast<GroupId>(h)).parent == g)
        throw Error("destroy: group " + groups_.group(g).path + " has a child runqueue");
    for (const auto& [t, tg] : group_)
      if (tg == g) throw Error("destroy: group " + groups_.group(g).path + " has tasks");
    const GroupId parent = groups_.group(g).parent;
    op(parent, {OpKind::Exit, group_entity_id(g)});
    rqs_[static_cast<size_t>(g)].reset();
    groups_.set_load(g, cpu_, 0);
  }

  /// Applies a task-level Op (its se a task; rq ignored), for drivers: Create puts the task in
  /// group `create_in`; Detach and Attach are refused (use detach() and attach()).
  Outcome apply(const Op& o, GroupId create_in = kRootGroup) {
    Outcome out;
    switch (o.kind) {
      case OpKind::Create:
        create(o.se, o.a, o.b, create_in);
        break;
      case OpKind::Exit:
        exit(o.se);
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
      case OpKind::Reweight:
        reweight(o.se, o.a);
        break;
      case OpKind::SetSlice:
        set_slice(o.se, o.a);
        break;
      case OpKind::Yield:
        yield();
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

  // State.
  const Params& params() const { return params_; }
  int cpu() const { return cpu_; }
  int64_t now() const { return now_; }
  const TaskGroups& groups() const { return groups_; }
  bool has_runqueue(GroupId g) const {
    return g >= 0 && static_cast<size_t>(g) < rqs_.size() && rqs_[static_cast<size_t>(g)];
  }
  const Rq& runqueue(GroupId g) const { return rq(g); }
  /// The groups with a runqueue on this CPU, the root first, each after its parent.
  std::vector<GroupId> runqueues() const {
    std::vector<GroupId> out;
    for (size_t g = 0; g < rqs_.size(); ++g)
      if (rqs_[g]) out.push_back(static_cast<GroupId>(g));
    return out;
  }
  bool has_task(TaskId t) const { return group_.count(t) != 0; }
  GroupId group_of(TaskId t) const { return group_at(t); }
  const auto& task_groups() const { return group_; }
  /// The running task (the leaf of the running path), if any.
  std::optional<TaskId> curr() const {
    const std::vector<GroupId> path = running_path();
    if (path.empty()) return std::nullopt;
    const std::optional<EntityId> c = rq(path.back()).curr();
    if (c && is_group_entity(*c)) return std::nullopt;
    return c;
  }
  /// Tasks queued (or delayed) on this CPU: Linux's h_nr_queued.
  int64_t nr_queued() const {
    int64_t n = 0;
    for (size_t g = 0; g < rqs_.size(); ++g) {
      if (!rqs_[g]) continue;
      n += rqs_[g]->nr_queued();
      if (g != 0) {
        const Status s = rq(groups_.group(static_cast<GroupId>(g)).parent)
                             .entity(group_entity_id(static_cast<GroupId>(g)))
                             .status;
        if (s != Status::Sleeping) --n;
      }
    }
    return n;
  }
  /// Set by any runqueue of the running path, and whenever a group runs with no task picked
  /// inside it (its running task left: the CPU must pick).
  bool need_resched() const {
    const std::vector<GroupId> path = running_path();
    for (GroupId g : path)
      if (rq(g).need_resched()) return true;
    if (!path.empty() && !curr()) return true;
    return rq(kRootGroup).need_resched();
  }
  Status status(TaskId t) const { return rq(group_at(t)).entity(t).status; }
  const Outcome& last_outcome() const { return last_; }
  /// The group entities whose weight the last operation set by the shares rule (§10.3),
  /// for INV-GROUP-SHARES.
  const std::vector<GroupId>& shares_updated() const { return shares_updated_; }
  void clear_shares_updated() { shares_updated_.clear(); }

  void set_observer(HierarchyObserver<Num>* o) { forward_.to = o; }
  void set_step_hook(StepHook hook) { hook_ = std::move(hook); }

 private:
  // Reports a runqueue's steps with a group entity's task cleared; a run of a runqueue that
  // runs nothing (off the running path: only its clock moves) is not reported.
  struct Forward final : Observer<Num> {
    HierarchyObserver<Num>* to = nullptr;
    void on_step(const StepReport<Num>& r) override {
      if (!to) return;
      if (r.op.kind == OpKind::Run && !r.entity) return;
      if (r.entity && is_group_entity(r.entity->se)) {
        StepReport<Num> copy = r;
        copy.entity->task.reset();
        to->on_step(copy);
        return;
      }
      to->on_step(r);
    }
  };

  Rq& rq(GroupId g) {
    if (!has_runqueue(g)) throw Error("no runqueue of group " + std::to_string(g) + " here");
    return *rqs_[static_cast<size_t>(g)];
  }
  const Rq& rq(GroupId g) const {
    if (!has_runqueue(g)) throw Error("no runqueue of group " + std::to_string(g) + " here");
    return *rqs_[static_cast<size_t>(g)];
  }
  GroupId group_at(TaskId t) const {
    const auto it = group_.find(t);
    if (it == group_.end()) throw Error("no task " + std::to_string(t) + " on this CPU");
    return it->second;
  }

  // A runqueue off the running path only sees time pass (its curr is ⊥: nothing is charged).
  void sync(GroupId g) {
    Rq& r = rq(g);
    if (r.now() < now_) r.apply({OpKind::Run, 0, now_ - r.now(), 0, 0, g});
  }
  void after_op(GroupId g) {
    if (g != kRootGroup) groups_.set_load(g, cpu_, rq(g).total_weight());
  }
  Outcome op(GroupId g, Op o) {
    sync(g);
    o.rq = g;
    Rq& r = rq(g);
    Outcome out;
    if constexpr (std::is_copy_constructible_v<Rq>) {
      if (hook_) {
        const Rq before = r;
        out = r.apply(o);
        after_op(g);
        hook_(before, o, r);
        return out;
      }
    }
    out = r.apply(o);
    after_op(g);
    return out;
  }

  void ensure_runqueue(GroupId g) {
    if (has_runqueue(g)) return;
    const TaskGroup& tg = groups_.group(g);
    ensure_runqueue(tg.parent);
    if (rqs_.size() <= static_cast<size_t>(g)) rqs_.resize(static_cast<size_t>(g) + 1);
    rqs_[static_cast<size_t>(g)] = std::make_unique<Rq>(params_, g);
    rqs_[static_cast<size_t>(g)]->set_observer(&forward_);
    if (forward_.to)
      forward_.to->on_runqueue({now_, g, cpu_, tg.path, tg.parent, group_entity_id(g)});
    op(tg.parent, {OpKind::Create, group_entity_id(g), tg.shares, 0});
  }

  // (runqueue, entity) from the task up to its entity on the root runqueue.
  std::vector<std::pair<GroupId, EntityId>> chain(TaskId t) const {
    std::vector<std::pair<GroupId, EntityId>> c;
    GroupId g = group_at(t);
    c.emplace_back(g, t);
    for (; g != kRootGroup; g = groups_.group(g).parent)
      c.emplace_back(groups_.group(g).parent, group_entity_id(g));
    return c;
  }
  // The runqueues whose curr leads to the running task, the root first (empty: idle CPU).
  std::vector<GroupId> running_path() const {
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
  void put_subtree(GroupId g) {
    const std::optional<EntityId> c = rq(g).curr();
    if (!c) return;
    op(g, {OpKind::PutPrev, *c});
    if (is_group_entity(*c)) put_subtree(group_of_entity(*c));
  }

  // §10.3: only a non-empty group runqueue moves its entity's weight.
  void update_shares(GroupId g) {
    if (rq(g).nr_queued() == 0) return;
    const GroupId parent = groups_.group(g).parent;
    const int64_t w = groups_.shares_on(g, cpu_);
    if (rq(parent).entity(group_entity_id(g)).weight != w)
      op(parent, {OpKind::Reweight, group_entity_id(g), w});
    shares_updated_.push_back(g);
  }
  // §10.4: the group entity takes its runqueue's least slice as a custom slice (6.12+).
  void update_slice(GroupId g) {
    if (!min_slice_rule_ || rq(g).nr_queued() == 0) return;
    const GroupId parent = groups_.group(g).parent;
    const int64_t s = rq(g).min_slice();
    const auto& ge = rq(parent).entity(group_entity_id(g));
    if (!ge.custom_slice || ge.slice != s) op(parent, {OpKind::SetSlice, group_entity_id(g), s});
  }
  void refresh_up(GroupId g) {
    for (; g != kRootGroup; g = groups_.group(g).parent) {
      update_shares(g);
      update_slice(g);
    }
  }
  void walk_up_after_enqueue(GroupId g) {
    for (; g != kRootGroup; g = groups_.group(g).parent) {
      update_shares(g);
      update_slice(g);
      const GroupId parent = groups_.group(g).parent;
      if (rq(parent).entity(group_entity_id(g)).status != Status::Queued)
        op(parent, {OpKind::Enqueue, group_entity_id(g)});
    }
  }
  void walk_up_after_dequeue(GroupId g, bool sleep) {
    bool leaving = true;
    for (; g != kRootGroup; g = groups_.group(g).parent) {
      const GroupId parent = groups_.group(g).parent;
      if (leaving && rq(g).nr_queued() == 0) {
        op(parent, {OpKind::Dequeue, group_entity_id(g), 0, 0, sleep ? kDequeueSleep : 0u});
        continue;
      }
      leaving = false;
      update_shares(g);
      update_slice(g);
    }
  }

  Params params_;
  TaskGroups& groups_;
  int cpu_ = 0;
  bool min_slice_rule_ = false;
  int64_t now_ = 0;
  std::vector<std::unique_ptr<Rq>> rqs_;  // by group id; null: no runqueue here
  std::unordered_map<TaskId, GroupId> group_;
  std::vector<GroupId> shares_updated_;
  Outcome last_;
  Forward forward_;
  StepHook hook_;
};

}  // namespace vlag::reference
