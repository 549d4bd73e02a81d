// One runqueue as the trace describes it: each entity's weight, slice, vruntime, deadline,
// saved lag and status as last reported (or, for a trace without state fields, as the shadow
// reference computed them; checker/view_update.h keeps it). Layers 2 and 3 judge the trace's
// decisions and numbers on this view, with SPEC.md §2's derived quantities computed exactly over
// it, through ViewState: the read-only state the rules of rules/invariants.h read.
//
// The sums behind W and V (Σ w and Σ w·v over Q) are kept as the entities change, so that an
// event costs O(1) whatever the queue's length: every change goes through an Edit, which takes
// the entity's part out of the sums and puts it back. Integers that fit in 64 bits — all of a
// Linux-arithmetic trace's — are summed in 128 bits, other numbers exactly; audit() recomputes
// everything from the entities, and the runqueue's checker calls it every kAuditPeriod events
// or more (checker/runqueue_checker.h: more apart for a long queue).
#pragma once

#include <boost/container/flat_map.hpp>
#include <boost/container/flat_set.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/event.h"
#include "trace/small_exact.h"

namespace vlag::checker {

using trace::Exact;

// The fields the walks over the queue read at each pick (status, weight, slice, the s64
// readings) come first, in the entity's first cache line, the exact numbers after them.
struct ViewEntity {
  EntityId id = 0;
  Status status = Status::Sleeping;
  int64_t weight = 0;
  int64_t slice = 0;
  bool is_new = true;
  bool rel_deadline = false;  // dequeued without SLEEP under PLACE_REL_DEADLINE
  // Linux arithmetic (SPEC.md §7.3): the vdelta roundings d − v has summed since its request was
  // set (one, plus one per yield that extended it), and whether a reweight has rescaled it since,
  // which §7.3 bounds only from a common state, not for an error carried in.
  int deadline_roundings = 1;
  bool deadline_rescaled = false;
  // vruntime and deadline as s64 integers, where they are (every entity of a Linux-arithmetic
  // trace): set by the view each time the entity changes (View::Edit, View::insert), so that
  // its walks over the queue compare integers; stale only inside an Edit of the entity.
  // View::audit() checks them against the numbers.
  std::optional<int64_t> v64, d64;
  std::optional<TaskId> task;  // the task whose entity it is; none for a group entity
  Exact vruntime;
  Exact deadline;
  Exact vlag;                    // saved lag while sleeping
  std::optional<Exact> request;  // ρ (SPEC.md §2), ns; unknown after a reweight until refreshed
};

// Entities in id order, stored contiguously (the rules' walks and the witnesses list them in id
// order). Entities come and go only at `new`, `entity`, `attach`, `exit` and `detach`: a pointer
// from find() is valid until the view handles the next such event.
using ViewEntities = boost::container::flat_map<EntityId, ViewEntity>;

/// An exact number from a 128-bit integer (the view's sums).
Exact exact_of(__int128 x);
/// x as an s64, when it is an integer of 64 bits.
inline std::optional<int64_t> as_s64(const Exact& x) { return trace::s64_of(x); }
/// ⌊x⌋, when it is an s64.
std::optional<int64_t> floor_s64(const Exact& x);

class View {
 public:
  /// Events between two audits (audit()), at the least.
  static constexpr int64_t kAuditPeriod = 1 << 14;

  /// One entity being changed: while the Edit lives the entity is out of the sums, and its
  /// fields may change freely; its end puts it back with what they say then.
  class Edit {
   public:
    Edit(View& view, ViewEntity& e);
    ~Edit();
    Edit(const Edit&) = delete;
    Edit& operator=(const Edit&) = delete;
    ViewEntity& operator*() const { return e_; }
    ViewEntity* operator->() const { return &e_; }

   private:
    View& view_;
    ViewEntity& e_;
    int64_t slice_;  // before the edit
    bool queued_;    // … and whether it was in Q
  };

  const ViewEntities& entities() const { return entities_; }
  const ViewEntity* find(EntityId id) const;
  /// Changes entity `id`, which must be here.
  Edit edit(EntityId id) { return Edit(*this, *find_mutable(id)); }
  /// Adds `e`, or replaces the entity of its id.
  const ViewEntity& insert(const ViewEntity& e);
  void erase(EntityId id);

  std::optional<EntityId> curr;

  int64_t W() const { return W_; }            // Σ w over queued (and delayed) entities
  int64_t queued() const { return queued_; }  // |Q|
  /// The delayed entities (SPEC.md §4.9), in id order.
  const boost::container::flat_set<EntityId>& delayed() const { return delayed_; }
  Exact V() const;                   // Σ w·v / W; 0 for an empty queue
  Exact weighted_vruntimes() const;  // Σ w·v over Q
  /// Σ w·v over Q in 128 bits, when every queued vruntime is an s64 integer.
  std::optional<__int128> small_weighted_vruntimes() const {
    return big_ == 0 ? std::optional(small_sum_) : std::nullopt;
  }
  bool integer_vruntimes() const { return fractional_ == 0; }  // every queued v an integer
  int64_t max_slice() const;  // the longest slice of any entity, 0 without entities
  /// The longest slice over Q, 0 when empty: the span of the MaxSlice lag clamp (SPEC.md §4.7).
  int64_t max_queued_slice() const;

  bool eligible(const ViewEntity& e, const Exact& V) const { return e.vruntime <= V; }
  /// a before b in the order of pick_eevdf as the view knows it: the earlier deadline, curr
  /// losing ties (the view has no insertion order; see spec/TRACE.md §4).
  bool precedes(const ViewEntity& a, const ViewEntity& b) const {
    return a.deadline < b.deadline || (a.deadline == b.deadline && curr == b.id && curr != a.id);
  }
  /// The eligible entity that precedes every other one, ties otherwise going to the least id.
  const ViewEntity* earliest_eligible_deadline(const Exact& V) const;
  /// The state at time `now` as `entity` lines of runqueue `rq`: the start of a replayable window.
  std::vector<trace::Event> snapshot(int64_t now, RunqueueId rq) const;

  /// Recomputes the sums from the entities; throws CheckerBug when they differ from those kept.
  void audit() const;

 private:
  friend struct ViewTestAccess;  // tests corrupt a sum to see audit() fail

  ViewEntity* find_mutable(EntityId id);
  // e's s64 readings (ViewEntity::v64, d64) from its numbers.
  static void read_s64(ViewEntity& e);
  // Adds (sign 1) or removes (sign −1) e's part of W, |Q| and the sums, and with `slices` its
  // count in queued_slices_; slices_ apart. e's readings are up to date.
  void account(const ViewEntity& e, int sign, bool slices = true);
  static void count_slice(boost::container::flat_map<int64_t, int64_t>& slices, int64_t slice,
                          int64_t n);

  ViewEntities entities_;
  mutable size_t last_found_ = 0;  // find()'s last hit, by position
  int64_t W_ = 0;
  int64_t queued_ = 0;
  __int128 small_sum_ = 0;  // Σ w·v over the queued entities whose v is an s64 integer
  Exact big_sum_;           // … over the others
  int64_t big_ = 0;         // how many the others are
  int64_t fractional_ = 0;  // queued entities whose v is not an integer
  boost::container::flat_set<EntityId> delayed_;
  boost::container::flat_map<int64_t, int64_t> slices_;         // slice → entities with it
  boost::container::flat_map<int64_t, int64_t> queued_slices_;  // … → queued entities with it
};

inline bool in_queue(const ViewEntity& e) { return e.status != Status::Sleeping; }

/// How messages name an entity: "task 3" for a task's own entity, "entity 17" otherwise.
std::string entity_label(const ViewEntity& e);

/// The view as rules/state.h reads it, with its V given (computed once for the event, or the V
/// the trace reports).
class ViewState {
 public:
  using Entity = ViewEntity;

  ViewState(const View& view, const Params& params, const Exact& V)
      : view_(view), params_(params), V_(V), floor_V_(floor_s64(V)) {}

  const Params& params() const { return params_; }
  const Exact& V() const { return V_; }
  int64_t W() const { return view_.W(); }
  std::optional<EntityId> curr() const { return view_.curr; }
  /// v ≤ V; for an integer v, v ≤ ⌊V⌋, compared in integers where both are s64.
  bool eligible(const ViewEntity& e) const {
    return floor_V_ && e.v64 ? *e.v64 <= *floor_V_ : view_.eligible(e, V_);
  }
  /// a's deadline before b's, in integers where both are s64 (rules/invariants.h asks).
  bool earlier_deadline(const ViewEntity& a, const ViewEntity& b) const {
    return a.d64 && b.d64 ? *a.d64 < *b.d64 : a.deadline < b.deadline;
  }
  template <class F>
  bool for_each_queued(F&& f) const {
    for (const auto& [id, e] : view_.entities())
      if (in_queue(e) && !f(e)) return false;
    return true;
  }

 private:
  const View& view_;
  const Params& params_;
  const Exact& V_;
  std::optional<int64_t> floor_V_;  // ⌊V⌋, where it is an s64
};

}  // namespace vlag::checker
