// The operations of SPEC.md §4 on one EEVDF runqueue, written once. Two parameters make the
// runqueues vlag has:
//   - the arithmetic, Queue::Arith (reference/arith.h): exact rationals or Linux integers;
//   - the queue structure, Queue: an O(n) scan (reference/scan_queue.h) or the augmented
//     red-black tree of optimized/tree_queue.h.
// Each public operation is the function of the same name in SPEC.md §4; preconditions are checked
// first and a violated one throws vlag::Error with the state unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reference/entity.h"
#include "spec/features.h"
#include "spec/migrant.h"
#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::reference {

template <class Queue>
class BasicRunqueue {
 public:
  using Arith = typename Queue::Arith;
  using Num = typename Arith::Num;
  using Entity = typename Queue::Entity;

  /// `id`: the runqueue this is (Op::rq); apply() rejects operations meant for another.
  explicit BasicRunqueue(Params params, RunqueueId id = 0);
  /// The same state in another arithmetic: a Linux-integer runqueue read exactly (SPEC.md §7:
  /// the per-operation rounding bounds are measured from such a common state).
  template <class OtherQueue>
  static BasicRunqueue exact_copy_of(const BasicRunqueue<OtherQueue>& other);

  /// A state taken from elsewhere to run the operations from — the kernel's own numbers at a
  /// record of a BPF capture (SPEC.md §6.4, the replay): the entities with their status (a
  /// queued or delayed entity other than curr is in the tree, stamped in the order given), the
  /// current entity, the next buddy, curr's protection and the reference point of the sums.
  struct Seed {
    std::vector<Entity> entities;
    std::optional<EntityId> curr;
    std::optional<EntityId> next;
    std::optional<Num> protection;
    Num v0{};
  };
  /// Takes `seed` as the state of this runqueue, which must be new (no entity yet). Throws
  /// vlag::Error when it is not, or when curr or the buddy is not a queued entity.
  void seed(const Seed& seed);

  // SPEC.md §4 operations.
  void create(EntityId id, int64_t weight, int64_t slice);  // §4.12
  void exit(EntityId id);                                   // §4.12
  void enqueue_entity(EntityId id);                         // §4.3, §4.9
  void dequeue_entity(EntityId id, bool sleep);             // §4.7, §4.9
  std::optional<EntityId> pick_next_entity();               // §4.4
  void update_curr(int64_t delta_ns);                       // §4.1
  void entity_tick();                                       // §4.2
  void reweight_entity(EntityId id, int64_t weight);        // §4.8
  void set_slice(EntityId id, int64_t slice);               // §4.10
  void yield_task();                                        // §4.11
  bool wakeup_preempt(EntityId id);                         // §4.6
  std::optional<Migrant<Num>> detach(EntityId id);          // §4.13: nullopt if not detachable
  bool attach(const Migrant<Num>& m);                       // §4.13: false if the id exists
  void put_prev(EntityId id);                               // §10.2: id must be curr

  /// One step from data: dispatches to the operation named by op.kind. Detach and Attach carry
  /// an entity (a Migrant), not just an id: apply() rejects them; call detach() and attach().
  Outcome apply(const Op& op);

  // Derived quantities (SPEC.md §2).
  Num avg_vruntime() const;      // V
  int64_t total_weight() const;  // W
  bool entity_eligible(const Entity& e) const;
  Num lag(const Entity& e) const;  // lag_i = w_i·(V − v_i)/N, ns
  int64_t min_slice() const;       // minslice over Q (0 when Q is empty)
  int64_t max_slice() const;       // the largest r_i over Q (0 when Q is empty), §4.7 MaxSlice
  /// ⌈(d_i − v_i)·w_i/N⌉: real time left in i's current request, ns (the paper quantum rule).
  int64_t remaining_request(const Entity& e) const;
  bool protect_slice() const;  // is curr protected (§4.5)?

  // State.
  const Params& params() const { return params_; }
  RunqueueId id() const { return id_; }
  const Queue& queue() const { return queue_; }
  /// The reference's entities in creation order (ScanQueue only; a member template so that
  /// runqueues over other queues are instantiated without it).
  template <class Q = Queue>
  const auto& entities() const {
    return static_cast<const Q&>(queue_).entities();
  }
  const Entity& entity(EntityId id) const;
  bool has(EntityId id) const { return queue_.find(id) != nullptr; }
  std::vector<const Entity*> queued() const;
  int64_t nr_queued() const { return nr_queued_; }
  std::optional<EntityId> curr() const { return curr_; }
  std::optional<EntityId> next_buddy() const { return next_; }
  const std::optional<Num>& protection() const { return prot_; }
  /// The last enqueue was a new task's first (a wakeup after it sets no next buddy, §4.6).
  bool last_enqueue_initial() const { return last_enqueue_initial_; }
  bool need_resched() const { return need_resched_; }
  int64_t now() const { return now_; }
  uint64_t last_seq() const { return seq_; }
  /// v_0 in Linux arithmetic, the reference point of the sums (SPEC.md §7.1): min_vruntime or
  /// zero_vruntime by the preset; the origin in exact arithmetic, which needs none.
  const Num& reference_point() const { return queue_.v0(); }
  const Num& fluid_clock() const { return fluid_; }
  const Outcome& last_outcome() const { return outcome_; }
  /// The eligible entity with the least (deadline, seq), curr losing ties (§4.4 steps 5–6).
  std::optional<EntityId> earliest_eligible_deadline() const;

  void set_observer(Observer<Num>* observer) { observer_ = observer; }

 private:
  template <class>
  friend class BasicRunqueue;
  friend struct RunqueueTestAccess;  // tests corrupt a state on purpose to test the checks

  struct Choice {
    std::optional<EntityId> id;
    bool by_protection = false;
    bool by_buddy = false;
  };

  Entity& get(EntityId id, const char* op);
  Entity* curr_entity();
  const Entity* curr_entity() const;
  Sums<Arith> queue_sums() const;  // the tree's sums plus curr
  Num vslice(const Entity& e) const { return Arith::vdelta(e.slice, e.weight); }

  Num clamp_limit(const Entity& e) const;  // vdelta(max(2·r, TICK), w), §4.7
  Num entity_lag(const Entity& e, const Num& V) const;
  Num saved_lag(const Entity& e, const Num& V) const;
  void place_entity(Entity& e, bool initial);
  void tree_insert(Entity& e);
  void tree_reinsert(Entity& e);
  void tree_erase(Entity& e);
  void leave(Entity& e);
  void join(Entity& e);
  void update_min_vruntime();
  void update_zero_vruntime();
  void update_deadline(Entity& e);
  void set_next_entity(Entity& e);
  void put_prev_entity();
  void finish_delayed_dequeue(Entity& e);
  void requeue_delayed_entity(Entity& e);
  Choice pick_eevdf(bool protect) const;
  void set_protect_slice(Entity& e);
  void cancel_protect_slice();
  void update_protect_slice();
  void emit(const Op& op, const Migrant<Num>* gone = nullptr);

  Params params_;
  RunqueueId id_ = 0;
  Queue queue_;
  std::optional<EntityId> curr_;
  std::optional<EntityId> next_;
  std::optional<Num> prot_;  // §4.5: stash (a deadline) or vprot (a vruntime) of curr
  int64_t now_ = 0;
  int64_t nr_queued_ = 0;  // |Q|
  Num v_empty_;            // V_∅
  Num fluid_;              // V_f (§3), meaningful while Q ≠ ∅; exact arithmetic only
  uint64_t seq_ = 0;
  bool need_resched_ = false;
  bool last_enqueue_initial_ = false;  // the last enqueue was a new task's first (WF_FORK)
  Outcome outcome_;
  Observer<Num>* observer_ = nullptr;
};

}  // namespace vlag::reference
