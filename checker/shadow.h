// The shadow reference of `vlag check`: the SPEC.md §4 runqueue that executes the trace's
// operations, in the arithmetic the trace's header names (spec/TRACE.md §2) — exact rationals
// (reference::Runqueue, O(n) scans) or Linux's 64-bit integers (optimized::Runqueue, O(log n)
// per operation and bit-identical to reference::LinuxRunqueue, so to `vlag sim`). Either way it
// answers in the checker's exact numbers: a Linux time as its s64 reading, as the trace writes
// it. The tree's running sums are recomputed from scratch every kAuditPeriod operations
// (audit()): a difference is a bug of the checker, not of the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "optimized/runqueue.h"
#include "reference/runqueue.h"
#include "trace/event.h"

namespace vlag::checker {

using Exact = trace::Exact;

/// One entity of the shadow as the trace would report it.
struct ShadowEntity {
  int64_t weight = 0;
  int64_t slice = 0;
  Exact vruntime;
  Exact deadline;
  Exact vlag;  // "vlag": V − v while queued, the saved lag while sleeping
  Status status = Status::Sleeping;
};

class Shadow {
 public:
  /// The shadow of runqueue `rq`. Throws vlag::Error when the arithmetic cannot run the preset
  /// (Linux: Linux presets only).
  Shadow(const Params& params, Arith arith, RunqueueId rq);

  /// One operation; throws vlag::Error (state unchanged) when the spec rejects it.
  void apply(const Op& op);
  /// §4.13; false when the task is not a sleeping entity here.
  bool detach(EntityId id);
  /// §4.13; false when the task is here already. Throws vlag::Error when the saved lag is not a
  /// number of the arithmetic (a Linux lag is an s64 integer).
  bool attach(EntityId id, int64_t weight, int64_t slice, bool custom_slice, const Exact& vlag);

  bool has(EntityId id) const;
  /// Entity `id` as the trace would report it. The numbers are read into storage the shadow
  /// keeps (no allocation per event): valid until the next call.
  const ShadowEntity& entity(EntityId id) const;
  /// V, likewise valid until the next call.
  const Exact& V() const;
  int64_t W() const;
  std::optional<EntityId> curr() const;
  std::optional<EntityId> next_buddy() const;
  bool protect_slice() const;

  /// Operations between two audits of the tree's sums.
  static constexpr int64_t kAuditPeriod = 1 << 14;
  /// Recomputes the tree's order, sums and augmented values from scratch; throws CheckerBug
  /// when they differ from those kept. apply() calls it every kAuditPeriod operations.
  void audit() const;

 private:
  std::variant<reference::Runqueue, optimized::Runqueue> rq_;
  // entity()'s and V()'s answers, each kept until the runqueue changes: an event asks for them
  // several times. changes_ counts the changes; an answer is for the count it was read at.
  mutable ShadowEntity entity_;
  mutable std::optional<EntityId> entity_id_;
  mutable int64_t entity_at_ = -1;
  mutable Exact V_;
  mutable int64_t V_at_ = -1;
  int64_t changes_ = 0;
  int64_t until_audit_ = kAuditPeriod;
};

}  // namespace vlag::checker
