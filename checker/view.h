// One runqueue as the trace describes it: each entity's weight, slice, vruntime, deadline,
// saved lag and status as last reported (or, for a trace without state fields, as the shadow
// reference computed them; checker/view_update.h keeps it). Layers 2 and 3 judge the trace's
// decisions and numbers on this view, with SPEC.md §2's derived quantities computed exactly over
// it, through ViewState: the read-only state the rules of rules/invariants.h read.
#pragma once

#include <boost/container/flat_map.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trace/event.h"

namespace vlag::checker {

using trace::Exact;

struct ViewEntity {
  EntityId id = 0;
  std::optional<TaskId> task;  // the task whose entity it is; none for a group entity
  int64_t weight = 0;
  int64_t slice = 0;
  Exact vruntime;
  Exact deadline;
  Exact vlag;  // saved lag while sleeping; while delayed under NoDecrease, the lag's floor (§4.9)
  std::optional<Exact> request;  // ρ (SPEC.md §2), ns; unknown after a reweight until refreshed
  Status status = Status::Sleeping;
  bool is_new = true;
  bool rel_deadline = false;  // dequeued without SLEEP under PLACE_REL_DEADLINE
  // Linux arithmetic (SPEC.md §7.3): the vdelta roundings d − v has summed since its request was
  // set (one, plus one per yield that extended it), and whether a reweight has rescaled it since,
  // which §7.3 bounds only from a common state, not for an error carried in.
  int deadline_roundings = 1;
  bool deadline_rescaled = false;
};

// Entities in id order, stored contiguously: every event walks all of them (W, V, the lag sum),
// and a node-based map made that walk most of a check's time. Entities come and go only at
// `new`, `entity`, `attach`, `exit` and `detach`: a pointer from find() is valid until the view
// handles the next such event.
using ViewEntities = boost::container::flat_map<EntityId, ViewEntity>;

class View {
 public:
  ViewEntities& entities() { return entities_; }
  const ViewEntities& entities() const { return entities_; }
  ViewEntity* find(EntityId id);
  const ViewEntity* find(EntityId id) const;

  std::optional<EntityId> curr;

  int64_t W() const;          // Σ w over queued (and delayed) entities
  int64_t max_slice() const;  // the largest r over them, 0 when none (the MaxSlice clamp, §4.7)
  Exact V() const;            // Σ w·v / W; 0 for an empty queue
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

 private:
  ViewEntities entities_;
};

inline bool in_queue(const ViewEntity& e) { return e.status != Status::Sleeping; }

/// How messages name an entity: "task 3" for a task's own entity, "entity 17" otherwise.
std::string entity_label(const ViewEntity& e);

/// The view as rules/state.h reads it, with its V given (computed once for the event, or the V
/// the trace reports). W() is a walk over the view: ask once.
class ViewState {
 public:
  using Entity = ViewEntity;

  ViewState(const View& view, const Params& params, const Exact& V)
      : view_(view), params_(params), V_(V) {}

  const Params& params() const { return params_; }
  const Exact& V() const { return V_; }
  int64_t W() const { return view_.W(); }
  std::optional<EntityId> curr() const { return view_.curr; }
  bool eligible(const ViewEntity& e) const { return view_.eligible(e, V_); }
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
};

}  // namespace vlag::checker
