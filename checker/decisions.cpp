#include "checker/decisions.h"

#include <fmt/format.h>

#include "rules/invariants.h"
#include "spec/properties.h"

namespace vlag::checker {
namespace {

std::string str(const Exact& x) { return x.get_str(); }

}  // namespace

void Decisions::pick(const View& view, const PickContext& pick) {
  out_.checked(ids::kInvPickEligible);
  out_.checked(ids::kInvPickEdf);
  const Exact V = view.V();
  const ViewState s(view, params_, V);
  if (!pick.picked) {
    if (rules::idle_with_queue(s))
      out_.violate(ids::kInvPickEligible, "the CPU went idle with a non-empty queue",
                   idle_pick_witness(view));
    return;
  }
  const ViewEntity& p = *view.find(*pick.picked);
  if (rules::runs_while_delayed(p.status)) {
    out_.checked(ids::kInvDelay);
    out_.violate(ids::kInvDelay, fmt::format("picked {}, which is delayed", entity_label(p)),
                 delayed_pick_witness(), promised(ids::kInvDelay, params_.preset));
    return;
  }
  if (!s.eligible(p)) {
    out_.violate(
        ids::kInvPickEligible,
        fmt::format("picked {} with v={} > V={}", entity_label(p), str(p.vruntime), str(V)),
        ineligible_pick_witness(view, p.id));
    return;
  }
  if (rules::pick_exempt(params_.preset, p.id, pick.curr_before, pick.curr_protected,
                         pick.next_before))
    return;
  // The earliest of the entities that fail the rule is the one named.
  const ViewEntity* earliest = nullptr;
  rules::for_each_earlier_eligible(s, p, [&](const ViewEntity& e) {
    if (!earliest || view.precedes(e, *earliest)) earliest = &e;
  });
  if (earliest)
    out_.violate(ids::kInvPickEdf,
                 fmt::format("picked {} (d={}) but eligible {} has d={}", entity_label(p),
                             str(p.deadline), entity_label(*earliest), str(earliest->deadline)),
                 edf_witness(view, p.id, earliest->id));
}

bool Decisions::pick_step(std::optional<EntityId> picked, std::optional<EntityId> spec_pick,
                          int64_t judged_from) {
  out_.checked(ids::kInvStep);
  if (spec_pick == picked) return true;
  if (out_.violations() == judged_from)
    out_.violate(ids::kInvStep,
                 fmt::format("picked {} where SPEC.md §4.4 (protection, buddy, ties) picks {}",
                             picked ? std::to_string(*picked) : "idle",
                             spec_pick ? std::to_string(*spec_pick) : "idle"),
                 pick_step_witness(picked, spec_pick));
  return false;
}

void Decisions::became_delayed(const ViewEntity& before, const ViewEntity& after,
                               const Exact& V_before) {
  out_.checked(ids::kInvDelay);
  if (rules::delayed_while_eligible(after.status, before.vruntime <= V_before))
    out_.violate(ids::kInvDelay,
                 fmt::format("eligible {} (v={} <= V={}) was delayed", entity_label(after),
                             str(before.vruntime), str(V_before)),
                 became_delayed_witness(before.vruntime, V_before),
                 promised(ids::kInvDelay, params_.preset));
}

}  // namespace vlag::checker
