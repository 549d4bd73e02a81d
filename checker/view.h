// The runqueue as the trace describes it: each entity's weight, slice, vruntime, deadline,
// saved lag and status as last reported (or, for a trace without state fields, as the shadow
// reference computed them). Layers 2 and 3 judge the trace's decisions and numbers on this
// view, with SPEC.md §2's derived quantities computed exactly over it.
#pragma once

#include <boost/container/flat_map.hpp>
#include <optional>

#include "checker/witness.h"

namespace vlag::checker {

struct ViewEntity {
  TaskId id = 0;
  int64_t weight = 0;
  int64_t slice = 0;
  Exact vruntime;
  Exact deadline;
  Exact vlag;                    // saved lag while sleeping
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
using ViewEntities = boost::container::flat_map<TaskId, ViewEntity>;

class View {
 public:
  ViewEntities& entities() { return entities_; }
  const ViewEntities& entities() const { return entities_; }
  ViewEntity* find(TaskId id);
  const ViewEntity* find(TaskId id) const;

  std::optional<TaskId> curr;

  int64_t W() const;  // Σ w over queued (and delayed) entities
  Exact V() const;    // Σ w·v / W; 0 for an empty queue
  bool eligible(const ViewEntity& e, const Exact& V) const { return e.vruntime <= V; }
  /// The eligible entity with the least deadline, curr losing ties, ties otherwise broken by id
  /// (the view has no insertion order; see spec/TRACE.md §4).
  const ViewEntity* earliest_eligible_deadline(const Exact& V) const;

 private:
  ViewEntities entities_;
};

inline bool in_queue(const ViewEntity& e) { return e.status != Status::Sleeping; }

}  // namespace vlag::checker
