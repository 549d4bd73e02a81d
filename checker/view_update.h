// How one event changes the checker's view (spec/TRACE.md §4): each field the event reports, else
// the shadow reference's value, else what the SPEC.md operation leaves — the entity's status
// (delayed when an ineligible one sleeps under DELAY_DEQUEUE, §4.9), its request ρ for
// INV-DEADLINE (§2), curr, and the delayed dequeues a pick completes (§4.4, §4.9), their lags
// saved by rules/saved_lag.h. Every lag an event saves is handed on for INV-LAG-CLAMP.
#pragma once

#include <functional>
#include <optional>

#include "checker/shadow.h"
#include "checker/view.h"
#include "trace/event.h"

namespace vlag::checker {

class ViewUpdate {
 public:
  /// Receives each entity whose lag the event saved; from_delayed: a completed delayed dequeue.
  using SavedLag = std::function<void(const ViewEntity&, bool from_delayed)>;

  ViewUpdate(const Params& params, Arith arith) : params_(params), arith_(arith) {}

  /// Applies `e` (validated) to `view`. `status_before`: the named entity's status before the
  /// event; `shadow`: the shadow reference after it, or nullptr once it stopped.
  void apply(View& view, const trace::Event& e, Status status_before, const Shadow* shadow,
             const SavedLag& saved) const;

  /// The entity's fields as the shadow computed them (nothing without a shadow or the entity).
  static void refresh_from_shadow(ViewEntity& v, const Shadow* shadow);

 private:
  void complete_delayed_dequeues(View& view, std::optional<EntityId> picked,
                                 std::optional<int64_t> W_after, const Shadow* shadow,
                                 const SavedLag& saved) const;

  const Params& params_;
  Arith arith_;
  mutable Exact deadline_before_;  // apply()'s copy of a deadline, kept from event to event
};

}  // namespace vlag::checker
