#include "checker/protection.h"

#include <fmt/format.h>

#include "reference/arith.h"
#include "rules/invariants.h"
#include "spec/properties.h"

namespace vlag::checker {

Exact ProtectionTracker::vdelta(int64_t ns, int64_t weight) const {
  if (arith_ == Arith::Linux64)
    return Exact(static_cast<long>(reference::LinuxArith::vdelta(ns, weight).value()));
  return rules::exact_vdelta(ns, weight);
}

rules::CurrState ProtectionTracker::curr_state(const ViewEntity& c) const {
  return {c.vruntime, c.deadline, c.slice, c.weight};
}

bool ProtectionTracker::protects(const View& view) const {
  if (!view.curr) return false;
  if (unknown_) return true;
  const ViewEntity* c = view.find(*view.curr);
  return c && owner_ == c->id && rules::protects(params_.preset, bound_, c->vruntime, c->deadline);
}

const char* ProtectionTracker::kept_past_id(const View& view) const {
  if (!rules::arms_protection(params_.preset)) return nullptr;
  const ViewEntity* c = view.curr ? view.find(*view.curr) : nullptr;
  if (moved_by_ == rules::WakeupEffect::Cancel ||
      (moved_by_ == rules::WakeupEffect::Shrink && c &&
       rules::protects(params_.preset, bound_before_move_, c->vruntime, c->deadline)))
    return ids::kInvProtEnd;
  return ids::kInvProtExtent;
}

std::string ProtectionTracker::describe() const {
  const auto text = [](const rules::ProtectionBound& b) { return b ? b->get_str() : "none"; };
  const bool moved = moved_by_ != rules::WakeupEffect::None;
  std::string s = fmt::format("{} armed at line {} to {}", stash() ? "stash" : "vprot", armed_line_,
                              text(moved ? bound_before_move_ : bound_));
  if (moved)
    s += fmt::format(", {} at line {} to {}",
                     moved_by_ == rules::WakeupEffect::Cancel ? "cancelled" : "shrunk", moved_line_,
                     text(bound_));
  return s;
}

void ProtectionTracker::picked(const View& view, std::optional<EntityId> picked,
                               std::optional<EntityId> curr_before, int64_t line) {
  if (picked && picked == curr_before) return;  // no set_next_entity: nothing re-armed
  owner_ = picked;
  bound_.reset();
  unknown_ = false;
  moved_by_ = rules::WakeupEffect::None;
  bound_before_move_.reset();
  armed_line_ = line;
  if (!picked) return;
  const ViewEntity* c = view.find(*picked);
  if (!c) return;
  bound_ = rules::armed_bound(params_, curr_state(*c),
                              rules::queued_min_slice(ViewState(view, params_, Exact(0))),
                              [this](int64_t ns, int64_t w) { return vdelta(ns, w); });
}

void ProtectionTracker::wakeup_decision(const View& view, EntityId wakee, bool preempt,
                                        int64_t line) {
  follow(view);
  if (unknown_ || !owner_ || *owner_ == wakee) return;
  const ViewEntity* c = view.find(*owner_);
  const ViewEntity* p = view.find(wakee);
  if (!c || !p) return;
  const Exact V = view.V();
  const rules::CurrState cs = curr_state(*c);
  const rules::WakeupEffect effect = rules::wakeup_effect(
      params_.preset, preempt, {p->slice, p->deadline, view.eligible(*p, V)}, cs,
      view.eligible(*c, V), rules::protects(params_.preset, bound_, c->vruntime, c->deadline));
  const rules::ProtectionBound after = rules::after_wakeup(
      params_.preset, bound_, effect, cs, rules::queued_min_slice(ViewState(view, params_, V)),
      [this](int64_t ns, int64_t w) { return vdelta(ns, w); });
  if (after == bound_) return;
  moved_by_ = effect;
  moved_line_ = line;
  bound_before_move_ = bound_;
  bound_ = after;
}

void ProtectionTracker::reweighted(const View& view, const ViewEntity& before, int64_t weight,
                                   const Exact& V_before) {
  follow(view);
  if (unknown_ || owner_ != before.id) return;
  if (arith_ != Arith::Linux64) {
    bound_ =
        rules::after_reweight(params_.preset, bound_, curr_state(before), V_before,
                              [&](const Exact& x) { return Exact(x * before.weight / weight); });
    return;
  }
  // The kernel's V is avg_vruntime, floored; div_s64 truncates toward zero.
  mpz_class V;
  mpz_fdiv_q(V.get_mpz_t(), V_before.get_num_mpz_t(), V_before.get_den_mpz_t());
  bound_ = rules::after_reweight(
      params_.preset, bound_, curr_state(before), Exact(V), [&](const Exact& x) {
        mpz_class q = x.get_num() * static_cast<long>(before.weight);
        mpz_tdiv_q_ui(q.get_mpz_t(), q.get_mpz_t(), static_cast<unsigned long>(weight));
        return Exact(q);
      });
}

void ProtectionTracker::follow(const View& view) {
  if (view.curr == owner_) return;
  owner_ = view.curr;
  bound_.reset();
  unknown_ = view.curr.has_value();
  moved_by_ = rules::WakeupEffect::None;
}

}  // namespace vlag::checker
