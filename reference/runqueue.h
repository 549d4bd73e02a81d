// The executable spec: one EEVDF runqueue in exact rational arithmetic (GMP), entities in a flat
// vector, every quantity recomputed by an O(n) scan. Each public operation is the function of the
// same name in SPEC.md §4; preconditions are checked and a violated one throws vlag::Error with
// the state unchanged. Obviously correct beats fast: nothing here is cached.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "spec/features.h"
#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::reference {

using Num = mpq_class;

/// SPEC.md §2: one entity.
struct Entity {
  TaskId id = 0;
  int64_t weight = 0;         // w_i
  int64_t slice = 0;          // r_i, ns
  bool custom_slice = false;  // c_i
  Num vruntime;               // v_i
  Num deadline;               // d_i (relative to v_i while rel_deadline)
  Num request;                // ρ_i, ns: the size of the current request (ghost, INV-DEADLINE)
  Num vlag;                   // vl_i, saved at dequeue
  bool rel_deadline = false;
  bool request_cut = false;  // a clamped reweight moved d_i around V since d_i was set (§4.8)
  Status status = Status::Sleeping;
  bool is_new = true;
  uint64_t seq = 0;  // tree insertion stamp: ties in pick go to the smaller seq
};

/// What the last operation did, for drivers and invariant checks.
struct Outcome {
  std::optional<TaskId> picked;  // Pick
  bool preempt = false;          // WakeupPreempt
  bool by_protection = false;    // Pick: curr kept by slice protection
  bool by_buddy = false;         // Pick: next buddy taken
};

class Runqueue {
 public:
  explicit Runqueue(Params params);

  // SPEC.md §4 operations.
  void create(TaskId id, int64_t weight, int64_t slice);  // §4.12
  void exit(TaskId id);                                   // §4.12
  void enqueue_entity(TaskId id);                         // §4.3, §4.9
  void dequeue_entity(TaskId id, bool sleep);             // §4.7, §4.9
  std::optional<TaskId> pick_next_entity();               // §4.4
  void update_curr(int64_t delta_ns);                     // §4.1
  void entity_tick();                                     // §4.2
  void reweight_entity(TaskId id, int64_t weight);        // §4.8
  void set_slice(TaskId id, int64_t slice);               // §4.10
  void yield_task();                                      // §4.11
  bool wakeup_preempt(TaskId id);                         // §4.6

  /// One step from data: dispatches to the operation named by op.kind.
  Outcome apply(const Op& op);

  // Derived quantities (SPEC.md §2).
  Num avg_vruntime() const;      // V
  int64_t total_weight() const;  // W
  bool entity_eligible(const Entity& e) const;
  Num lag(const Entity& e) const;  // lag_i = w_i·(V − v_i)/N, ns
  int64_t min_slice() const;       // minslice over Q (0 when Q is empty)
  /// ⌈(d_i − v_i)·w_i/N⌉: real time left in i's current request, ns (the paper quantum rule).
  int64_t remaining_request(const Entity& e) const;
  bool protect_slice() const;  // is curr protected (§4.5)?

  // State.
  const Params& params() const { return params_; }
  const std::vector<Entity>& entities() const { return entities_; }
  const Entity& entity(TaskId id) const;
  bool has(TaskId id) const { return find(id) != nullptr; }
  std::vector<const Entity*> queued() const;
  std::optional<TaskId> curr() const { return curr_; }
  std::optional<TaskId> next_buddy() const { return next_; }
  bool need_resched() const { return need_resched_; }
  int64_t now() const { return now_; }
  const Num& fluid_clock() const { return fluid_; }
  const Outcome& last_outcome() const { return outcome_; }
  /// The eligible entity with the least (deadline, seq), curr losing ties (§4.4 steps 5–6).
  std::optional<TaskId> earliest_eligible_deadline() const;

  void set_observer(Observer<Num>* observer) { observer_ = observer; }

 private:
  friend struct RunqueueTestAccess;  // tests corrupt a state on purpose to test the checks

  struct Choice {
    std::optional<TaskId> id;
    bool by_protection = false;
    bool by_buddy = false;
  };

  Entity* find(TaskId id);
  const Entity* find(TaskId id) const;
  Entity& get(TaskId id, const char* op);
  Entity* curr_entity();
  const Entity* curr_entity() const;
  Num vdelta(int64_t delta_ns, int64_t weight) const;
  Num vdelta(const Num& delta_ns, int64_t weight) const;
  Num vslice(const Entity& e) const { return vdelta(e.slice, e.weight); }

  Num entity_lag(const Entity& e, const Num& V) const;
  Num saved_lag(const Entity& e, const Num& V) const;
  void place_entity(Entity& e, bool initial);
  void insert(Entity& e);
  void leave(Entity& e);
  void join(Entity& e);
  void update_deadline(Entity& e);
  void set_next_entity(Entity& e);
  void put_prev_entity();
  void finish_delayed_dequeue(Entity& e);
  void requeue_delayed_entity(Entity& e);
  Choice pick_eevdf(bool protect) const;
  void set_protect_slice(Entity& e);
  void cancel_protect_slice();
  void update_protect_slice();
  void emit(const Op& op);

  Params params_;
  std::vector<Entity> entities_;
  std::optional<TaskId> curr_;
  std::optional<TaskId> next_;
  std::optional<Num> prot_;  // §4.5: stash (a deadline) or vprot (a vruntime) of curr
  int64_t now_ = 0;
  Num v_empty_;  // V_∅
  Num fluid_;    // V_f (§3), meaningful while Q ≠ ∅
  uint64_t seq_ = 0;
  bool need_resched_ = false;
  bool last_enqueue_initial_ = false;  // the last enqueue was a new task's first (WF_FORK)
  Outcome outcome_;
  Observer<Num>* observer_ = nullptr;
};

}  // namespace vlag::reference
