// The read-only state the rules of SPEC.md §6 read (rules/invariants.h): the queued entities
// with w, r, v, d, vlag and status, V, W, curr and the run's parameters, in exact arithmetic.
// The reference runqueue (reference/invariants.cpp) and the checker's view of a trace
// (checker/view.h) both provide it, so each invariant is stated once for both.
#pragma once

#include <gmpxx.h>

#include <concepts>
#include <cstdint>
#include <optional>

#include "spec/features.h"
#include "spec/observer.h"

namespace vlag::rules {

using Exact = mpq_class;

/// An entity (SPEC.md §2): its fields under the names the reference and the view both use.
template <class E>
concept EntityState = requires(const E& e) {
  { e.id } -> std::convertible_to<EntityId>;
  { e.weight } -> std::convertible_to<int64_t>;
  { e.slice } -> std::convertible_to<int64_t>;
  { e.vruntime } -> std::convertible_to<const Exact&>;
  { e.deadline } -> std::convertible_to<const Exact&>;
  { e.vlag } -> std::convertible_to<const Exact&>;  // the saved lag while sleeping
  { e.status } -> std::convertible_to<Status>;
};

/// A runqueue state: V and W over Q, curr, eligibility (v ≤ V), and a walk over Q in a fixed
/// order that stops when the visitor returns false (it returns whether it went through).
template <class S>
concept QueueState = EntityState<typename S::Entity> &&
    requires(const S& s, const typename S::Entity& e) {
  { s.params() } -> std::same_as<const Params&>;
  { s.V() } -> std::convertible_to<const Exact&>;
  { s.W() } -> std::convertible_to<int64_t>;
  { s.curr() } -> std::convertible_to<std::optional<EntityId>>;
  { s.eligible(e) } -> std::same_as<bool>;
  {
    s.for_each_queued([](const typename S::Entity&) { return true; })
    } -> std::same_as<bool>;
};

}  // namespace vlag::rules
