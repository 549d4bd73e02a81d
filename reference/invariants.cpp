#include "reference/invariants.h"

#include "rules/buddy.h"
#include "rules/invariants.h"
#include "rules/protection.h"
#include "spec/properties.h"

namespace vlag::reference {
namespace {

std::string str(const Num& x) { return x.get_str(); }

// The reference's exact state as the rules read it (rules/state.h), V and W computed once.
class RuleState {
 public:
  using Entity = reference::Entity;

  explicit RuleState(const Runqueue& rq) : rq_(rq), V_(rq.avg_vruntime()), W_(rq.total_weight()) {}

  const Params& params() const { return rq_.params(); }
  const Num& V() const { return V_; }
  int64_t W() const { return W_; }
  std::optional<EntityId> curr() const { return rq_.curr(); }
  bool eligible(const Entity& e) const { return rq_.entity_eligible(e); }
  template <class F>
  bool for_each_queued(F&& f) const {
    for (const Entity& e : rq_.entities())
      if (e.status != Status::Sleeping && !f(e)) return false;
    return true;
  }

 private:
  const Runqueue& rq_;
  Num V_;
  int64_t W_;
};
static_assert(rules::QueueState<RuleState>);

void add(std::vector<Violation>& out, const char* id, std::string detail, bool promised = true) {
  out.push_back({id, std::move(detail), promised});
}

rules::CurrState curr_state(const Entity& c) { return {c.vruntime, c.deadline, c.slice, c.weight}; }

// curr's protection as §4.5's predicate reads the runqueue's bound (INV-PROT-EXTENT judges that
// predicate against the runqueue's own, INV-PROT-* the bound), not the runqueue's protect_slice().
bool protected_by_rule(const Runqueue& rq) {
  if (!rq.curr()) return false;
  const Entity& c = rq.entity(*rq.curr());
  return rules::protects(rq.params().preset, rq.protection(), c.vruntime, c.deadline);
}

// INV-PICK-ELIGIBLE, INV-PICK-EDF.
void check_pick(const Runqueue& before, const Runqueue& after, std::vector<Violation>& out) {
  const RuleState s(after);
  const auto picked = after.curr();
  if (!picked) {
    if (rules::idle_with_queue(s))
      add(out, ids::kInvPickEligible, "pick returned nothing with a non-empty queue");
    return;
  }
  const Entity& p = after.entity(*picked);
  if (p.status == Status::Sleeping) {
    add(out, ids::kInvPickEligible, "picked " + std::to_string(p.id) + ", which is not queued");
    return;
  }
  if (!s.eligible(p)) {
    add(out, ids::kInvPickEligible,
        "picked " + std::to_string(p.id) + " with v=" + str(p.vruntime) + " > V=" + str(s.V()));
    return;
  }
  if (rules::pick_exempt(before.params().preset, p.id, before.curr(), protected_by_rule(before),
                         before.next_buddy()))
    return;
  rules::for_each_earlier_eligible(s, p, [&](const Entity& e) {
    add(out, ids::kInvPickEdf,
        "picked " + std::to_string(p.id) + " (d=" + str(p.deadline) + ") but eligible " +
            std::to_string(e.id) + " has d=" + str(e.deadline));
  });
}

// INV-PROT-START, INV-PROT-EXTENT, INV-PROT-END: the runqueue's protection after the step
// against the window the rules of rules/protection.h derive from the state before it (the window
// before was judged at the step that led to it) and the step itself.
void check_protection(const Runqueue& before, const Op& op, const Runqueue& after,
                      std::vector<Violation>& out) {
  const Params& params = after.params();
  const Preset& p = params.preset;
  if (p.protection == Protection::None) return;
  const auto vdelta = [](int64_t ns, int64_t w) { return rules::exact_vdelta(ns, w); };
  const std::optional<EntityId> c_id = after.curr();
  const bool promised = vlag::promised(ids::kInvProtStart, p);
  const bool arming = op.kind == OpKind::Pick && c_id && c_id != before.curr();
  rules::ProtectionBound want;
  if (arming) {
    want = rules::armed_bound(params, curr_state(after.entity(*c_id)),
                              rules::queued_min_slice(RuleState(after)), vdelta);
  } else if (c_id && c_id == before.curr()) {
    want = before.protection();
    if (op.kind == OpKind::Reweight && op.se == *c_id)
      want = rules::after_reweight(
          p, want, curr_state(before.entity(*c_id)), before.avg_vruntime(),
          [&](const mpq_class& x) { return mpq_class(x * before.entity(*c_id).weight / op.a); });
    if (op.kind == OpKind::WakeupPreempt && op.se != *c_id) {
      const Entity& c = before.entity(*c_id);
      const Entity& w = before.entity(op.se);
      const rules::WakeupEffect effect = rules::wakeup_effect(
          p, after.last_outcome().preempt, {w.slice, w.deadline, before.entity_eligible(w)},
          curr_state(c), before.entity_eligible(c), protected_by_rule(before));
      want = rules::after_wakeup(p, want, effect, curr_state(c),
                                 rules::queued_min_slice(RuleState(before)), vdelta);
    }
  }
  const Entity* c = c_id ? &after.entity(*c_id) : nullptr;
  const bool want_protected = c && rules::protects(p, want, c->vruntime, c->deadline);
  const bool got_protected = after.protect_slice();
  const auto bound = [](const std::optional<Num>& b) { return b ? str(*b) : std::string("none"); };
  const std::string what = "protection " + bound(after.protection()) +
                           (got_protected ? " (protecting)" : " (not protecting)") +
                           ", §4.5 gives " + bound(want) +
                           (want_protected ? " (protecting)" : " (not protecting)");
  const bool vprot_bounds_differ = p.protection == Protection::Vprot && got_protected &&
                                   want_protected && after.protection() != want;
  if (arming) {
    if (got_protected != want_protected)
      add(out, ids::kInvProtStart, "pick of " + std::to_string(*c_id) + ": " + what, promised);
    else if (vprot_bounds_differ)
      add(out, ids::kInvProtExtent, "pick of " + std::to_string(*c_id) + ": " + what, promised);
    return;
  }
  if (got_protected && !want_protected)
    add(out, protected_by_rule(before) ? ids::kInvProtEnd : ids::kInvProtStart, what, promised);
  else if (got_protected != want_protected || vprot_bounds_differ)
    add(out, ids::kInvProtEnd, what, promised);
  // The runqueue's own predicate against §4.5's on its bound: protected exactly while within it.
  if (c && got_protected != rules::protects(p, after.protection(), c->vruntime, c->deadline))
    add(out, ids::kInvProtExtent,
        std::string("protect_slice() is ") + (got_protected ? "true" : "false") + " on bound " +
            bound(after.protection()) + " with v=" + str(c->vruntime) + " d=" + str(c->deadline),
        promised);
}

// INV-PROT-START at a pick: an eligible curr that its window protects is kept (§4.4 step 4),
// unless an eligible next buddy goes first.
void check_pick_keeps_protected(const Runqueue& before, const Runqueue& after,
                                std::vector<Violation>& out) {
  const std::optional<EntityId> c = before.curr();
  if (!c || after.curr() == c || !protected_by_rule(before)) return;
  if (!before.entity_eligible(before.entity(*c)) || before.nr_queued() < 2) return;
  const auto next = before.next_buddy();
  if (before.params().preset.has(Feature::PICK_BUDDY) && next &&
      before.entity_eligible(before.entity(*next)))
    return;
  add(out, ids::kInvProtStart,
      "pick left " + std::to_string(*c) + ", eligible and protected (bound " +
          str(*before.protection()) + "), for " +
          (after.curr() ? std::to_string(*after.curr()) : std::string("idle")),
      promised(ids::kInvProtStart, before.params().preset));
}

// INV-NEXT-BUDDY: the runqueue's next buddy after the step against the one rules/buddy.h derives
// from the buddy before it (judged at the step that led to it), whether the last enqueue was a
// new task's first taken from the judge's own History, not the runqueue's flag; a buddy is a
// queued entity other than curr; under PICK_BUDDY an eligible buddy is the pick.
void check_buddy(const Runqueue& before, const Op& op, const Runqueue& after,
                 const History* history, std::vector<Violation>& out) {
  const Preset& p = after.params().preset;
  const rules::Buddy was = before.next_buddy(), got = after.next_buddy();
  const auto name = [](const rules::Buddy& b) { return b ? std::to_string(*b) : "none"; };
  if (got &&
      (!after.has(*got) || after.entity(*got).status != Status::Queued || after.curr() == got))
    add(out, ids::kInvNextBuddy,
        "next buddy " + name(got) + " is not a queued entity other than curr");
  rules::Buddy want = was, or_else = was;  // without a history, a wakeup may leave it
  switch (op.kind) {
    case OpKind::WakeupPreempt:
      want = rules::buddy_after_wakeup(p, was, op.se, before.curr(),
                                       history && history->last_enqueue_initial());
      if (history) or_else = want;
      break;
    case OpKind::Pick:
      want = or_else = rules::buddy_after_leaving(was, after.curr());
      break;
    case OpKind::Dequeue:
      want = or_else = rules::buddy_after_leaving(was, op.se);
      break;
    default:
      break;
  }
  if (got != want && got != or_else)
    add(out, ids::kInvNextBuddy,
        "after " + to_string(op) + ": next buddy " + name(got) + ", §4.4/§4.6/§4.7 give " +
            name(want));
  if (op.kind == OpKind::Pick && was && before.has(*was) &&
      rules::buddy_goes_first(p, was, before.entity_eligible(before.entity(*was)),
                              before.nr_queued()) &&
      after.curr() != was)
    add(out, ids::kInvNextBuddy,
        "pick of " + name(after.curr()) + " passed over the eligible next buddy " + name(was));
}

// INV-PLACE-LAG: after a wakeup placement the measured lag is the saved lag (TR join: shared).
void check_place(const Runqueue& before, const Op& op, const Runqueue& after,
                 std::vector<Violation>& out) {
  const Entity& b = before.entity(op.se);
  if (b.status != Status::Sleeping) return;
  const Entity& a = after.entity(op.se);
  const Num expect =
      rules::expected_place_lag(before.params().preset, b.vlag, before.total_weight(), a.weight);
  const Num got = after.avg_vruntime() - a.vruntime;
  if (!rules::within(got, expect, 0))
    add(out, ids::kInvPlaceLag,
        "task " + std::to_string(op.se) + " saved vlag " + str(b.vlag) +
            ": expected V-v=" + str(expect) + ", got " + str(got));
}

// INV-REWEIGHT: V unchanged and w·vlag preserved, unless the clamp cut the lag.
void check_reweight(const Runqueue& before, const Op& op, const Runqueue& after,
                    std::vector<Violation>& out) {
  const Entity& b = before.entity(op.se);
  const Entity& a = after.entity(op.se);
  const Num Vb = before.avg_vruntime(), Va = after.avg_vruntime();
  const bool queued = b.status != Status::Sleeping;
  Num lag_b = queued ? Num(Vb - b.vruntime) : b.vlag;
  Num lag_a = queued ? Num(Va - a.vruntime) : a.vlag;
  if (queued && rules::clamp_cuts(before.params(), b.slice,
                                  rules::max_queued_slice(RuleState(before)), b.weight, lag_b))
    return;
  const bool promised = vlag::promised(ids::kInvReweight, before.params().preset,
                                       {.entity_is_curr = before.curr() == op.se});
  const Num wlag_b = lag_b * static_cast<long>(b.weight),
            wlag_a = lag_a * static_cast<long>(a.weight);
  const rules::ReweightCheck c = rules::check_reweight(queued, Vb, Va, wlag_b, wlag_a, 0, 0);
  if (c.V_moved)
    add(out, ids::kInvReweight,
        "reweight of " + std::to_string(op.se) + " moved V from " + str(Vb) + " to " + str(Va),
        promised);
  if (c.wlag_changed)
    add(out, ids::kInvReweight,
        "reweight of " + std::to_string(op.se) + ": w*vlag " + str(wlag_b) + " became " +
            str(wlag_a),
        promised);
}

// INV-LAG-CLAMP and the DELAY_ZERO half of it, for every entity that left Q in this step. A
// preset without the clamp (paper) is judged too, as not promised: a saved lag beyond the limit
// is its documented behaviour, and `vlag prove` shows one.
void check_saved_lags(const Runqueue& before, const Runqueue& after, std::vector<Violation>& out) {
  const Preset& p = before.params().preset;
  // The MaxSlice clamp spans the largest slice queued when the lag was taken: before the step.
  const int64_t max_slice = rules::max_queued_slice(RuleState(before));
  for (const Entity& b : before.entities()) {
    if (b.status == Status::Sleeping || !after.has(b.id)) continue;
    const Entity& a = after.entity(b.id);
    if (a.status != Status::Sleeping) continue;
    const rules::SavedLagCheck c = rules::check_saved_lag(
        after.params(), a.slice, max_slice, a.weight, a.vlag, b.status == Status::Delayed, 0);
    if (!c.within_limit)
      add(out, ids::kInvLagClamp,
          "task " + std::to_string(a.id) + " saved vlag " + str(a.vlag) + " beyond " + str(c.limit),
          promised(ids::kInvLagClamp, p));
    if (c.positive_after_delay)
      add(out, ids::kInvLagClamp,
          "task " + std::to_string(a.id) + " left a delayed dequeue with vlag " + str(a.vlag) +
              " > 0 under DELAY_ZERO",
          promised(ids::kInvLagClamp, p, {.only_delay_zero = true}));
  }
}

// INV-DELAY: only an ineligible sleeper becomes delayed.
void check_delay(const Runqueue& before, const Op& op, const Runqueue& after,
                 std::vector<Violation>& out) {
  const Entity& a = after.entity(op.se);
  if (rules::delayed_while_eligible(a.status, before.entity_eligible(before.entity(op.se))))
    add(out, ids::kInvDelay, "eligible task " + std::to_string(op.se) + " was delayed",
        promised(ids::kInvDelay, before.params().preset));
}

// A lag bound at a decision point: `outside` gives the range a queued entity's lag (ns) left,
// empty while it is inside.
template <class Outside>
std::vector<Violation> lag_bound(const Runqueue& rq, const char* id, Outside outside) {
  std::vector<Violation> out;
  for (const Entity* e : rq.queued()) {
    const Num lag = rq.lag(*e);
    const std::string range = outside(lag, e->slice);
    if (!range.empty())
      add(out, id, "task " + std::to_string(e->id) + " lag " + str(lag) + " ns outside " + range);
  }
  return out;
}

}  // namespace

std::vector<Violation> check_state(const Runqueue& rq) {
  std::vector<Violation> out;
  const RuleState s(rq);
  if (s.W() == 0) return out;
  const Preset& p = rq.params().preset;
  // The ghost V_f (§3) is the reference clock: Σ w_i·(V_f − v_i) = 0 exactly when V_f = V.
  if (rules::lag_sum(s, rq.fluid_clock()) != 0)
    add(out, ids::kInvLagSum,
        "fluid clock " + str(rq.fluid_clock()) + " != weighted average " + str(s.V()));
  if (!rules::some_eligible(s)) add(out, ids::kInvEligibleExists, "no queued entity is eligible");
  if (rq.curr() && rules::runs_while_delayed(rq.entity(*rq.curr()).status))
    add(out, ids::kInvDelay, "running task " + std::to_string(*rq.curr()) + " is not queued",
        promised(ids::kInvDelay, p));
  s.for_each_queued([&](const Entity& e) {
    const Num remaining = rules::remaining_request(e);
    if (!rules::deadline_holds(remaining, e.request, 0))
      add(out, ids::kInvDeadline,
          "task " + std::to_string(e.id) + " remaining request " + str(remaining) +
              " ns not in (0, " + str(e.request) + "]",
          promised(ids::kInvDeadline, p, {.request_rescaled = e.request_cut}));
    return true;
  });
  return out;
}

void History::saw(const Op& op) {
  switch (op.kind) {
    case OpKind::Create:
      never_enqueued_.insert(op.se);
      break;
    case OpKind::Enqueue:
      last_enqueue_initial_ = never_enqueued_.erase(op.se) > 0;
      break;
    case OpKind::Exit:
    case OpKind::Detach:
    case OpKind::Attach:  // a migrant arrives placed before (§4.13), never new
      never_enqueued_.erase(op.se);
      break;
    default:
      break;
  }
}

std::vector<Violation> check_step(const Runqueue& before, const Op& op, const Runqueue& after,
                                  const History* history) {
  std::vector<Violation> out = check_state(after);
  switch (op.kind) {
    case OpKind::Pick:
      check_pick(before, after, out);
      check_pick_keeps_protected(before, after, out);
      break;
    case OpKind::Enqueue:
      check_place(before, op, after, out);
      break;
    case OpKind::Reweight:
      check_reweight(before, op, after, out);
      break;
    case OpKind::Dequeue:
      check_delay(before, op, after, out);
      break;
    default:
      break;
  }
  check_saved_lags(before, after, out);
  check_protection(before, op, after, out);
  check_buddy(before, op, after, history, out);
  return out;
}

std::vector<Violation> promised_only(std::vector<Violation> all) {
  std::erase_if(all, [](const Violation& v) { return !v.promised; });
  return all;
}

std::vector<Violation> check_paper_lag_bound(const Runqueue& rq) {
  const int64_t q = rq.params().tick_ns();
  return lag_bound(rq, ids::kThmLagBound, [&](const Num& lag, int64_t r) {
    return rules::paper_lag_bound_holds(lag, r, q)
               ? std::string()
               : "(-" + std::to_string(r) + ", " + std::to_string(rules::paper_lag_upper(r, q)) +
                     ")";
  });
}

std::vector<Violation> check_linux_lag_bound(const Runqueue& rq) {
  const int64_t tick = rq.params().tick_ns();
  return lag_bound(rq, ids::kThmLagBoundLinux, [&](const Num& lag, int64_t r) {
    const std::string b = std::to_string(rules::linux_lag_bound(r, tick));
    return rules::linux_lag_bound_holds(lag, r, tick) ? std::string() : "[-" + b + ", " + b + "]";
  });
}

}  // namespace vlag::reference
