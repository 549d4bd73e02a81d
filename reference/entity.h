// SPEC.md §2: one entity, and what an operation reports back. Num is the virtual-time type of the
// arithmetic (reference/arith.h).
#pragma once

#include <cstdint>
#include <optional>

#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::reference {

template <class Num>
struct BasicEntity {
  EntityId id = 0;
  int64_t weight = 0;         // w_i
  int64_t slice = 0;          // r_i, ns
  bool custom_slice = false;  // c_i
  Num vruntime{};             // v_i
  Num deadline{};             // d_i (relative to v_i while rel_deadline)
  Num request{};              // ρ_i, ns: the size of the current request (ghost, INV-DEADLINE)
  Num vlag{};                 // vl_i, saved at dequeue
  bool rel_deadline = false;
  bool request_cut = false;  // a clamped reweight moved d_i around V since d_i was set (§4.8)
  Status status = Status::Sleeping;
  bool is_new = true;
  bool on_tree = false;  // in the tree, Q \ {curr} (§2)
  uint64_t seq = 0;      // tree insertion stamp: ties in pick go to the smaller seq
};

/// What the last operation did, for drivers and invariant checks.
struct Outcome {
  std::optional<EntityId> picked;  // Pick
  bool preempt = false;            // WakeupPreempt
  bool by_protection = false;      // Pick: curr kept by slice protection
  bool by_buddy = false;           // Pick: next buddy taken
};

/// Σ w_i·(v_i − v_0) and Σ w_i over a set of entities (SPEC.md §2, relative to v_0).
template <class Arith>
struct Sums {
  typename Arith::Sum weighted_keys{};
  int64_t load = 0;
};

}  // namespace vlag::reference
