// One CPU's hierarchy of CFS runqueues as Linux v6.5 builds it under CONFIG_FAIR_GROUP_SCHED
// (SPEC.md §8.6): a root runqueue, and for every task group with entities on the CPU a group
// runqueue and a group entity in its parent's runqueue, each a cfs::Runqueue applied through its
// Ops. It keeps the generic hierarchy's layout (reference/hierarchy.h: group ids as runqueue ids,
// group entities at kGroupEntityBase + the group's id, the shares rule through TaskGroups, the
// same observer) and v6.5's rules between the levels where they differ from EEVDF's: group
// entities always enqueued as wakeups and dequeued as sleeps, sched_slice over the hierarchy,
// buddies set and cleared up the hierarchy, the dequeue's next-buddy bias, pick touching only
// the levels whose entity changes, and entity_tick from the task up with the shares rule
// before each level's check.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cfs/runqueue.h"
#include "reference/hierarchy.h"
#include "reference/task_groups.h"
#include "spec/features.h"
#include "spec/migrant.h"
#include "spec/ops.h"

namespace vlag::cfs {

using reference::GroupId;

class Hierarchy {
 public:
  using Num = int64_t;
  /// The latency_nice of a group's entity (cfs-latency-nice, series 6/9), none for the default.
  using GroupLatencyNice = std::function<std::optional<int>(GroupId)>;
  struct Outcome {
    std::optional<EntityId> picked;
    bool preempt = false;
  };

  Hierarchy(const Params& params, reference::TaskGroups& groups, int cpu, CfsOptions options,
            GroupLatencyNice group_latency_nice = {});
  Hierarchy(const Hierarchy&) = delete;
  Hierarchy& operator=(const Hierarchy&) = delete;

  /// A task-level Op (its se a task; rq ignored): Create puts the task in group `create_in`;
  /// PutPrev, Detach and Attach are refused (use detach() and attach()).
  Outcome apply(const Op& o, GroupId create_in = reference::kRootGroup);
  std::optional<Migrant<int64_t>> detach(TaskId t);
  bool attach(const Migrant<int64_t>& m, GroupId g);
  void set_latency_nice(TaskId t, int latency_nice);

  int64_t now() const { return now_; }
  /// The running task (the leaf of the running path), if any.
  std::optional<TaskId> curr() const;
  /// The CPU's queued tasks, curr included: rq->cfs.h_nr_running.
  int64_t nr_queued() const;
  /// resched_curr from any level of the running path, or a group running with no task in it.
  bool need_resched() const;
  Status status(TaskId t) const { return rq(group_of(t)).entity(t).status; }
  const Outcome& last_outcome() const { return last_; }
  GroupId group_of(TaskId t) const;
  bool has_runqueue(GroupId g) const;
  const Runqueue& runqueue(GroupId g) const { return rq(g); }
  void set_observer(reference::HierarchyObserver<int64_t>* o) { forward_.to = o; }

 private:
  // The links of one runqueue to the levels above it (cfs::UpperLevels).
  struct Level final : UpperLevels {
    Hierarchy* h = nullptr;
    GroupId g = reference::kRootGroup;
    int64_t cpu_nr_queued() const override { return h->nr_queued(); }
    int64_t scale_to_root(int64_t slice) const override;
    void buddy_set(Buddy b) override;
    void buddy_cleared(Buddy b) override;
  };
  // A runqueue's steps, a group entity's reported with no task; a run of a runqueue off the
  // running path (its clock only) is not reported.
  struct Forward final : Observer<int64_t> {
    reference::HierarchyObserver<int64_t>* to = nullptr;
    void on_step(const StepReport<int64_t>& r) override;
  };

  void sync(GroupId g);
  Runqueue& rq(GroupId g);
  const Runqueue& rq(GroupId g) const;
  GroupId parent(GroupId g) const { return groups_.group(g).parent; }
  const Entity& group_entity(GroupId g) const;
  Outcome op(GroupId g, Op o);
  void ensure_runqueue(GroupId g);
  std::vector<GroupId> running_path() const;
  std::vector<std::pair<GroupId, EntityId>> chain(TaskId t) const;
  void put_subtree(GroupId g);
  void update_shares(GroupId g);
  void mark_up(GroupId g, Buddy b);

  void create(TaskId t, int64_t weight, int64_t slice, GroupId g);
  void enqueue(TaskId t);
  void dequeue(TaskId t, bool sleep);
  std::optional<TaskId> pick();
  void run(int64_t delta);
  void tick();
  bool wakeup_preempt(TaskId t);

  Params params_;
  reference::TaskGroups& groups_;
  int cpu_ = 0;
  CfsOptions options_;
  GroupLatencyNice group_latency_nice_;
  int64_t now_ = 0;
  std::vector<std::unique_ptr<Runqueue>> rqs_;  // by group id; null: no runqueue here
  std::vector<std::unique_ptr<Level>> levels_;
  std::unordered_map<TaskId, GroupId> group_;
  Outcome last_;
  Forward forward_;
};

}  // namespace vlag::cfs
