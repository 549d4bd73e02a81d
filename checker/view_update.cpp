#include "checker/view_update.h"

#include "rules/invariants.h"
#include "rules/saved_lag.h"
#include "trace/small_exact.h"

namespace vlag::checker {
namespace {

using trace::EventKind;

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

// A sleeping entity's reported vlag is its saved lag; a queued one's is V − v, not kept.
bool reports_saved_lag(const trace::EntityFields& s) {
  return s.vlag && s.status == Status::Sleeping;
}

void apply_reported(ViewEntity& v, const trace::EntityFields& s) {
  if (s.weight) v.weight = *s.weight;
  if (s.slice) v.slice = *s.slice;
  if (s.vruntime) trace::assign_exact(v.vruntime, *s.vruntime);
  if (s.deadline) trace::assign_exact(v.deadline, *s.deadline);
  if (reports_saved_lag(s)) trace::assign_exact(v.vlag, *s.vlag);
  if (s.status) v.status = *s.status;
}

// refresh_from_shadow, then apply_reported: the shadow's numbers only for the fields the event
// does not report (the others it would overwrite at once).
void refresh_unreported(ViewEntity& v, const Shadow* shadow, const trace::EntityFields& s) {
  if (shadow && shadow->has(v.id)) {
    const ShadowEntity& r = shadow->entity(v.id);
    if (!s.weight) v.weight = r.weight;
    if (!s.slice) v.slice = r.slice;
    if (!s.vruntime) trace::assign_exact(v.vruntime, r.vruntime);
    if (!s.deadline) trace::assign_exact(v.deadline, r.deadline);
    if (!reports_saved_lag(s)) trace::assign_exact(v.vlag, r.vlag);
    if (!s.status) v.status = r.status;
  }
  apply_reported(v, s);
}

// A new request ρ: its deadline is one vdelta from v, not rescaled.
void new_request(ViewEntity& v, const Exact& request) {
  v.request = request;
  v.deadline_roundings = 1;
  v.deadline_rescaled = false;
}

}  // namespace

void ViewUpdate::refresh_from_shadow(ViewEntity& v, const Shadow* shadow) {
  if (!shadow || !shadow->has(v.id)) return;
  const ShadowEntity& s = shadow->entity(v.id);
  v.weight = s.weight;
  v.slice = s.slice;
  trace::assign_exact(v.vruntime, s.vruntime);
  trace::assign_exact(v.deadline, s.deadline);
  trace::assign_exact(v.vlag, s.vlag);
  v.status = s.status;
}

// §4.4/§4.9: a delayed entity that pick_eevdf selects leaves the queue before the pick goes on.
// `W_after` is the W the pick event reports, if any.
void ViewUpdate::complete_delayed_dequeues(View& view, std::optional<EntityId> picked,
                                           std::optional<int64_t> W_after, const Shadow* shadow,
                                           const SavedLag& saved) const {
  if (shadow) {
    std::vector<EntityId> completed;
    for (const EntityId id : view.delayed())
      if (shadow->has(id) && shadow->entity(id).status == Status::Sleeping) completed.push_back(id);
    for (const EntityId id : completed) {
      {
        View::Edit v = view.edit(id);
        v->status = Status::Sleeping;
        v->vlag = shadow->entity(id).vlag;
      }
      saved(*view.find(id), true);
    }
    return;
  }
  // A re-pick of curr is protection or curr's earliest deadline; protection is not in the trace,
  // but a reported W below the queue's shows that pick_eevdf searched and met delayed entities.
  const bool completed = W_after && *W_after < view.W();
  if (picked && picked == view.curr && !completed) return;
  const ViewEntity* p = picked ? view.find(*picked) : nullptr;
  // pick_eevdf breaks a deadline tie by insertion order, which the view does not have (it breaks
  // them by id): when a delayed entity ties with the picked one, the reported W says whether
  // pick_eevdf met it first (and completed its dequeue) or not.
  const auto ties_pick = [&](const ViewEntity& d) { return p && d.deadline == p->deadline; };
  for (;;) {
    const Exact V = view.V();
    const ViewEntity* best = view.earliest_eligible_deadline(V);
    const ViewEntity* next = nullptr;
    if (best && best->status == Status::Delayed && best->id != picked) {
      if (!(ties_pick(*best) && W_after && view.W() <= *W_after)) next = best;
    } else if (W_after && view.W() > *W_after) {
      for (const auto& [id, d] : view.entities())
        if (d.status == Status::Delayed && view.eligible(d, V) && ties_pick(d)) {
          next = &d;
          break;
        }
    }
    if (!next) return;
    const EntityId id = next->id;
    {
      View::Edit d = view.edit(id);
      d->vlag = rules::delayed_dequeue_lag(params_.preset, Exact(V - d->vruntime), d->vlag, [&] {
        return rules::lag_limit(params_, d->slice, view.max_queued_slice(), d->weight);
      });
      d->status = Status::Sleeping;
    }
    saved(*view.find(id), true);
  }
}

void ViewUpdate::apply(View& view, const trace::Event& e, Status status_before,
                       const Shadow* shadow, const SavedLag& saved) const {
  const Preset& p = params_.preset;
  const std::optional<EntityId> se = e.entity();
  const auto refresh = [&](ViewEntity& x) { refresh_unreported(x, shadow, e.state); };
  switch (e.kind) {
    case EventKind::New: {
      ViewEntity n;
      n.id = *se;
      n.task = e.task;
      n.weight = e.weight;
      n.slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
      refresh(n);
      view.insert(n);
      return;
    }
    case EventKind::Entity: {
      ViewEntity n;
      n.id = *se;
      n.task = e.task;
      n.weight = *e.state.weight;
      n.slice = *e.state.slice;
      n.vruntime = *e.state.vruntime;
      n.deadline = *e.state.deadline;
      n.vlag = e.state.vlag.value_or(0);
      n.request = e.state.request;
      n.status = *e.state.status;
      n.is_new = false;
      view.insert(n);
      if (e.state.running.value_or(false)) view.curr = n.id;
      return;
    }
    case EventKind::Exit:
    case EventKind::Detach:
      view.erase(*se);
      return;
    case EventKind::Attach: {
      // A known entity, not a new one: its first wakeup here places it with the lag it brings.
      ViewEntity n;
      n.id = *se;
      n.task = e.task;
      n.weight = e.weight;
      n.slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
      n.vlag = *e.state.vlag;
      n.is_new = false;
      refresh(n);
      view.insert(n);
      return;
    }
    case EventKind::Wakeup: {
      View::Edit v = view.edit(*se);
      const bool was_new = v->is_new;
      Exact& d_before = deadline_before_;
      trace::assign_exact(d_before, v->deadline);
      v->status = Status::Queued;
      v->is_new = false;
      refresh(*v);
      if (status_before == Status::Sleeping) {
        if (!v->rel_deadline) {
          const bool half = was_new && p.has(Feature::PLACE_DEADLINE_INITIAL);
          new_request(*v, half ? Exact(static_cast<long>(v->slice), 2) : ex(v->slice));
        }
      } else if (!trace::equal_exact(v->deadline, d_before)) {
        new_request(*v, ex(v->slice));
      }
      v->rel_deadline = false;
      return;
    }
    case EventKind::Sleep: {
      const Exact V = view.V();
      bool sleeping;
      {
        View::Edit v = view.edit(*se);
        v->status = (p.has(Feature::DELAY_DEQUEUE) && !view.eligible(*v, V)) ? Status::Delayed
                                                                             : Status::Sleeping;
        if (view.curr == v->id) view.curr.reset();
        if (v->status == Status::Delayed && p.delayed_lag == DelayedLag::NoDecrease)
          v->vlag = rules::entity_lag(p, Exact(V - v->vruntime), [&] {
            return rules::lag_limit(params_, v->slice, view.max_queued_slice(), v->weight);
          });
        refresh(*v);
        sleeping = v->status == Status::Sleeping;
      }
      if (sleeping) saved(*view.find(*se), false);
      return;
    }
    case EventKind::Dequeue: {
      {
        View::Edit v = view.edit(*se);
        v->status = Status::Sleeping;
        v->rel_deadline = p.has(Feature::PLACE_REL_DEADLINE);
        if (view.curr == v->id) view.curr.reset();
        refresh(*v);
      }
      saved(*view.find(*se), false);
      return;
    }
    case EventKind::Pick:
      complete_delayed_dequeues(view, se, e.W, shadow, saved);
      view.curr = se;
      if (se && view.find(*se)) refresh(*view.edit(*se));
      return;
    case EventKind::Run:
    case EventKind::Tick:
    case EventKind::Yield: {
      if (!view.curr || !view.find(*view.curr)) return;
      View::Edit c = view.edit(*view.curr);
      Exact& d_before = deadline_before_;
      trace::assign_exact(d_before, c->deadline);
      refresh(*c);
      if (trace::equal_exact(c->deadline, d_before)) return;
      if (e.kind == EventKind::Yield && p.yield == YieldRule::Forfeit) {
        new_request(*c, ex(c->slice));  // the rest forfeited, a new request from v = d (§4.11)
      } else if (e.kind == EventKind::Yield && c->request) {
        *c->request += ex(c->slice);
        ++c->deadline_roundings;
      } else if (e.kind != EventKind::Yield) {
        new_request(*c, ex(c->slice));
      }
      return;
    }
    case EventKind::Reweight: {
      // A lag the clamp cut moves d around V: the request is then no longer known (§4.8).
      const ViewEntity& before = *view.find(*se);
      const bool cut = in_queue(before) && p.reweight != ReweightRule::KeepV &&
                       rules::clamp_cuts(params_, before.slice, view.max_queued_slice(),
                                         before.weight, view.V() - before.vruntime);
      {
        View::Edit v = view.edit(*se);
        refresh(*v);
        if (cut) v->request.reset();
        v->deadline_rescaled = arith_ == Arith::Linux64;
      }
      // 7.1's rescale_entity leaves the rescaled lag in se->vlag: a delayed entity's new floor,
      // taken on the V the reweighted entity is back in.
      const ViewEntity& after = *view.find(*se);
      if (after.status == Status::Delayed && p.delayed_lag == DelayedLag::NoDecrease && !shadow) {
        const Exact V = view.V();
        view.edit(*se)->vlag = V - after.vruntime;
      }
      return;
    }
    case EventKind::Slice: {
      View::Edit v = view.edit(*se);
      v->slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
      refresh(*v);
      return;
    }
    case EventKind::Preempt:
      refresh(*view.edit(*se));
      return;
    case EventKind::Put:  // §10.2: back to the tree; this runqueue runs nothing until a pick
      view.curr.reset();
      if (se && view.find(*se)) refresh(*view.edit(*se));
      return;
    case EventKind::Migrate:
    case EventKind::Runqueue:  // a declaration, handled by checker/checker.h before any runqueue
      return;
  }
}

}  // namespace vlag::checker
