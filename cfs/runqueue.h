// One CPU's runqueue of Linux v6.5's fair class, CFS as it was right before EEVDF (SPEC.md §8),
// and with CfsOptions::latency_nice the v9 latency-nice series on top of it (seed 000). It takes
// the same Ops as the EEVDF runqueues (spec/ops.h) and reports to the same observers, so the
// simulator can run either; virtual times are Linux's u64 vruntimes (LinuxTime) and are reported
// as their s64 reading.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>

#include "cfs/tunables.h"
#include "spec/features.h"
#include "spec/linux_time.h"
#include "spec/migrant.h"
#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::cfs {

struct CfsOptions {
  bool latency_nice = false;  // the v9 latency-nice series (policy cfs-latency-nice)
  /// A level of a hierarchy (cfs/hierarchy.h): a pick that chooses the running entity again
  /// leaves it running as it was, its slice and buddies untouched, as pick_next_task_fair's
  /// FAIR_GROUP_SCHED path calls set_next_entity only where the picked path changes.
  bool in_hierarchy = false;
};

/// Create's flags: the entity is a task group's (SPEC.md §8.6). v6.5 enqueues a group entity
/// with ENQUEUE_WAKEUP, also the first time, so it is placed by the sleeper rule and never by
/// START_DEBIT; it never becomes a last buddy.
inline constexpr uint32_t kCreateGroupEntity = 1;

enum class Buddy : uint8_t { Next, Last, Skip };

/// What one runqueue of a hierarchy reaches above itself (cfs/hierarchy.h). sched_slice's period
/// counts the CPU's tasks (ALT_PERIOD's rq->cfs.h_nr_running) and scales the slice by every
/// ancestor group entity's share of its parent; a buddy set or cleared here is set or cleared
/// on this runqueue's group entity up the hierarchy, as set_next_buddy and __clear_buddies_next
/// walk for_each_sched_entity.
class UpperLevels {
 public:
  virtual ~UpperLevels() = default;
  virtual int64_t cpu_nr_queued() const = 0;
  virtual int64_t scale_to_root(int64_t slice) const = 0;
  virtual void buddy_set(Buddy b) = 0;
  virtual void buddy_cleared(Buddy b) = 0;
};

/// One sched_entity. While `relative`, vruntime holds vruntime − min_vruntime, as Linux keeps a
/// task that left its runqueue without sleeping or that is migrating.
struct Entity {
  EntityId id = 0;
  int64_t weight = 0;
  LinuxTime vruntime;
  bool relative = false;
  bool migrated = false;  // arrived by attach: its next enqueue is ENQUEUE_WAKEUP|ENQUEUE_MIGRATED
  bool is_new = true;     // never enqueued: the next enqueue is wake_up_new_task's
  Status status = Status::Sleeping;
  bool running = false;
  int64_t sum_exec_runtime = 0;
  int64_t prev_sum_exec_runtime = 0;  // sum_exec_runtime when it was last picked
  int64_t exec_start = 0;             // 0: never ran here (a new or migrated entity)
  int latency_nice = 0;
  int64_t latency_offset = 0;  // ns; negative: latency sensitive (v9 series)
  bool on_latency_tree = false;
  bool group = false;  // a task group's entity (kCreateGroupEntity)
  uint64_t seq = 0;    // tree insertion stamp: equal keys keep insertion order, as rb_add does
};
using EntityView = Entity;

class Runqueue {
 public:
  /// `id`: the runqueue its own migrations report (a level of a hierarchy: its group's id).
  explicit Runqueue(const Params& params, CfsOptions options = {}, RunqueueId id = 0);

  /// One step. Create's slice (b) and SetSlice are validated like the EEVDF runqueue's and then
  /// have no effect: v6.5 has no per-task slice for SCHED_OTHER (sched_attr.sched_runtime only
  /// means something to SCHED_DEADLINE), so a sched_setattr that sets it succeeds and changes
  /// nothing. Rejected steps throw vlag::Error and leave the state unchanged.
  void apply(const Op& op);

  int64_t now() const { return now_; }
  std::optional<EntityId> curr() const { return curr_; }
  int64_t nr_queued() const { return nr_queued_; }  // cfs_rq->nr_running: curr included
  bool need_resched() const { return need_resched_; }
  struct Outcome {
    bool preempt = false;
  };
  const Outcome& last_outcome() const { return outcome_; }
  const EntityView& entity(EntityId id) const;
  bool has(EntityId id) const { return entities_.count(id) != 0; }

  /// A sleeping entity leaves (migrate_task_rq_fair of a waking task): its vruntime becomes
  /// relative to this runqueue's min_vruntime, and Migrant::vlag = min_vruntime − vruntime, in
  /// the lag sign convention (positive: behind the queue, owed service); 0 for a task never
  /// enqueued. Migrant has no room for "new", so such a task arrives as a waking one: create
  /// tasks on their first CPU instead. nullopt, state unchanged, when the entity is queued;
  /// vlag::Error for an unknown id.
  std::optional<Migrant<int64_t>> detach(EntityId id);
  /// The entity arrives sleeping with vruntime = −m.vlag relative to this runqueue; its next
  /// enqueue adds the min_vruntime of that moment and places it as a waking migrated task.
  /// false, state unchanged, when the id exists here; vlag::Error for a bad weight.
  bool attach(const Migrant<int64_t>& m);

  void set_observer(Observer<int64_t>* o) { observer_ = o; }
  /// Links this runqueue to the levels above it (o must outlive its use); none: a flat runqueue.
  void set_upper_levels(UpperLevels* u) { upper_ = u; }
  /// The hierarchy's walk of a buddy: marks `id` as this runqueue's b buddy, or clears the b
  /// buddy if it is `id` (returning whether it was), without walking further.
  void mark_buddy(Buddy b, EntityId id);
  bool unmark_buddy(Buddy b, EntityId id);
  /// cfs-latency-nice: sched_setattr(SCHED_FLAG_LATENCY_NICE). Throws vlag::Error outside
  /// −20..19, for an unknown id, and under plain cfs (v6.5 has no latency_nice: its
  /// sched_setattr rejects the flag).
  void set_latency_nice(EntityId id, int latency_nice);

  // State for tests, the checker's shadow and the adapter.
  LinuxTime min_vruntime() const { return min_vruntime_; }
  int64_t load() const { return load_; }  // cfs_rq->load.weight, curr included
  const Tunables& tunables() const { return tun_; }
  const CfsOptions& options() const { return options_; }
  std::optional<EntityId> next_buddy() const { return next_; }
  std::optional<EntityId> last_buddy() const { return last_; }
  std::optional<EntityId> skip_buddy() const { return skip_; }
  /// sched_slice(cfs_rq, se): the entity's ideal runtime in the current period, ns, over the
  /// hierarchy when the runqueue is a level of one.
  int64_t sched_slice(const Entity& e) const;
  /// The vruntime as an absolute time, also for a relative entity (against min_vruntime now).
  LinuxTime absolute_vruntime(const Entity& e) const;
  /// wakeup_preempt_entity(curr, se): −1, 0 or 1 (with the v9 latency offsets when enabled).
  int wakeup_preempt_entity(const Entity& curr, const Entity& se) const;
  /// The leftmost entity of the tree (curr excluded), and of the latency tree.
  const Entity* leftmost() const;
  const Entity* latency_leftmost() const;

 private:
  struct ByVruntime {
    bool operator()(const Entity* a, const Entity* b) const;
  };
  struct ByLatencyKey {
    bool operator()(const Entity* a, const Entity* b) const;
  };

  Entity& get(EntityId id, const char* op);
  Entity* curr_entity();
  void create(EntityId id, int64_t weight, int64_t slice, bool group);
  void exit(EntityId id);
  void enqueue_entity(EntityId id);
  void dequeue_entity(EntityId id, bool sleep);
  std::optional<EntityId> pick_next_entity();
  void update_curr(int64_t delta_ns);
  void entity_tick();
  void reweight_entity(EntityId id, int64_t weight);
  void set_slice(EntityId id, int64_t slice);
  void yield_task();
  bool check_preempt_wakeup(EntityId id);

  void place_entity(Entity& e, bool initial);
  bool is_long_sleeper(const Entity& e) const;
  void update_min_vruntime();
  void check_preempt_tick(Entity& c);
  void tree_insert(Entity& e);
  void tree_erase(Entity& e);
  void latency_insert(Entity& e, bool wakeup);
  void latency_erase(Entity& e);
  void set_next_entity(Entity& e);
  void put_prev_entity();
  void clear_buddies(EntityId id);
  std::optional<EntityId>& buddy(Buddy b);
  void set_buddy(Buddy b, EntityId id);
  bool save(Entity& e);
  void restore(Entity& e, bool waiting);
  void emit(const Op& op);

  Params params_;
  CfsOptions options_;
  RunqueueId rq_id_ = 0;
  Tunables tun_;
  std::unordered_map<EntityId, Entity> entities_;
  std::set<Entity*, ByVruntime> tree_;
  std::set<Entity*, ByLatencyKey> latency_tree_;
  LinuxTime min_vruntime_;
  std::optional<EntityId> curr_, next_, last_, skip_;
  int64_t now_ = 0;
  int64_t nr_queued_ = 0;
  int64_t load_ = 0;
  uint64_t seq_ = 0;
  bool need_resched_ = false;
  Outcome outcome_;
  Observer<int64_t>* observer_ = nullptr;
  UpperLevels* upper_ = nullptr;
};

}  // namespace vlag::cfs
