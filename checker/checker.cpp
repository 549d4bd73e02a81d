#include "checker/checker.h"

#include <fmt/format.h>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::checker {
namespace {

using trace::EventKind;
using trace::Fault;

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

std::string name_of(const char* prefix, TaskId id) {
  return fmt::format("{}_{}{}", prefix, id < 0 ? "m" : "", id < 0 ? -id : id);
}

std::string str(const Exact& x) { return x.get_str(); }

bool about_running(EventKind k) {
  return k == EventKind::Run || k == EventKind::Tick || k == EventKind::Yield;
}

// SPEC.md §4.7: the clamp limit vdelta(max(2·r, TICK), w) of a saved lag.
Exact lag_limit(const Params& p, const ViewEntity& e) {
  Exact l = ex(std::max(2 * e.slice, p.tick_ns()) * kNice0Weight) / ex(e.weight);
  l.canonicalize();
  return l;
}

const int64_t kS64Max = INT64_MAX;

// SPEC.md §7.3's lemma: vdelta of up to R ns is off the exact δ·N/w by less than 1 + R/2^20.
Exact vdelta_error(int64_t R) {
  Exact e = 1 + Exact(static_cast<long>(R), 1L << 20);
  e.canonicalize();
  return e;
}

}  // namespace

Checker::Checker(const trace::Header& header, std::string file, Report& report)
    : params_(header.params),
      window_(header.window),
      arith_(header.arith),
      file_(std::move(file)),
      report_(report),
      service_(header.params, report, file_) {
  // One CPU's stream of a multi-CPU run is one runqueue's history: judged as such.
  if (params_.ncpus != 1 && !header.cpu)
    throw trace::InputError(Fault::Malformed, file_, 1, "cpus",
                            "checking multi-CPU traces is not implemented (this trace has " +
                                std::to_string(params_.ncpus) +
                                " CPUs and no \"cpu\" naming the one it holds)");
  if (arith_ == trace::Arith::Linux64)
    report_.notes.push_back(
        file_ +
        ": Linux integer arithmetic (\"arith\":\"linux64\"): the shadow reference is "
        "reference::LinuxRunqueue, and INV-PLACE-LAG, INV-REWEIGHT, INV-DEADLINE and INV-LAG-CLAMP "
        "are judged within the rounding bounds of SPEC.md §7.3 (INV-DEADLINE of a deadline a "
        "reweight "
        "rescaled: not promised, §7.3 bounds no error carried into the rescaling)");
  if (!window_) {
    try {
      shadow_.emplace(params_, arith_);
    } catch (const Error& err) {
      report_.notes.push_back(file_ + ": no shadow reference: " + err.what());
    }
  } else
    report_.notes.push_back(file_ +
                            ": a window (starts mid-run): no shadow reference, decisions and "
                            "state are judged on the trace's own numbers");
}

void Checker::fault(Fault f, const std::string& field, const std::string& what) const {
  throw trace::InputError(f, file_, line_, field, what);
}

void Checker::violate(const char* id, std::string detail, Witness w, bool promised) {
  if (!promised) {
    ++report_.stats[id].not_promised;
    return;
  }
  record(report_, violation_at(id, file_, line_, index_, std::move(detail), std::move(w)));
}

// ---------------------------------------------------------------------------------------------
// Preconditions the trace itself must satisfy (spec/TRACE.md §5): a fault, not a violation.

void Checker::validate(const trace::Event& e) const {
  const TaskId id = e.task.value_or(0);
  const ViewEntity* v = e.task ? view_.find(id) : nullptr;
  const std::string who = "task " + std::to_string(id);
  switch (e.kind) {
    case EventKind::Attach:
      if (v) fault(Fault::TraceFault, "task", who + " migrates in while it is here already");
      if (!e.state.vlag)
        fault(Fault::Malformed, "vlag",
              "missing (required by \"attach\": the saved lag it brings)");
      return;
    case EventKind::New:
      if (v) fault(Fault::TraceFault, "task", who + " is created twice");
      if (e.weight == 0)
        fault(Fault::Malformed, "weight",
              "unknown (null): only parameter inference (vlag check --infer) takes such traces");
      return;
    case EventKind::Entity:
      if (!window_ || index_ != static_cast<int64_t>(view_.entities().size()))
        fault(Fault::TraceFault, "ev",
              "entity lines belong at the start of a window (header \"window\":true)");
      for (const auto& [field, present] :
           {std::pair{"w", e.state.weight.has_value()}, std::pair{"r", e.state.slice.has_value()},
            std::pair{"v", e.state.vruntime.has_value()},
            std::pair{"d", e.state.deadline.has_value()},
            std::pair{"status", e.state.status.has_value()}})
        if (!present) fault(Fault::Malformed, field, "missing (required by \"entity\")");
      return;
    case EventKind::Migrate:
      fault(Fault::TraceFault, "to", "a migration in a one-CPU trace");
    case EventKind::Run:
    case EventKind::Tick:
    case EventKind::Yield:
      if (e.kind == EventKind::Yield && !view_.curr)
        fault(Fault::TraceFault, "ev", "yield while no task runs");
      if (e.task && e.task != view_.curr)
        fault(Fault::TraceFault, "task",
              who + " is named as running, but the last pick chose " +
                  (view_.curr ? "task " + std::to_string(*view_.curr) : "idle") +
                  " (a pick is missing or wrong)");
      return;
    case EventKind::Pick:
      if (!e.task) return;
      if (!v || v->status == Status::Sleeping)
        fault(Fault::NotRunnable, "task",
              "pick of " + who + ", which is not runnable" +
                  (v ? " (it sleeps: a wakeup is missing?)" : " (no such task)"));
      return;
    default:
      break;
  }
  if (!v)
    fault(Fault::TraceFault, "task",
          who + " appears without its \"new\" event (a truncated start or a lost event)");
  switch (e.kind) {
    case EventKind::Wakeup:
      if (v->status == Status::Queued)
        fault(Fault::TraceFault, "task", who + " wakes up while queued (a sleep is missing?)");
      return;
    case EventKind::Sleep:
    case EventKind::Dequeue:
      if (v->status != Status::Queued)
        fault(Fault::TraceFault, "task", who + " is dequeued while not queued");
      return;
    case EventKind::Exit:
      if (v->status != Status::Sleeping)
        fault(Fault::TraceFault, "task", who + " exits while still queued");
      return;
    case EventKind::Detach:
      if (v->status != Status::Sleeping)
        fault(Fault::TraceFault, "task", who + " migrates out while still queued");
      return;
    case EventKind::Preempt:
      if (v->status != Status::Queued || view_.curr == id)
        fault(Fault::TraceFault, "task",
              "wakeup preemption by " + who + ", which is not a queued wakee");
      return;
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Time and the shadow

void Checker::run(int64_t delta) {
  service_.on_run(delta);
  now_ += delta;
  if (shadow_) {
    try {
      shadow_->apply(Op{OpKind::Run, 0, delta});
    } catch (const Error& err) {
      report_.notes.push_back(
          fmt::format("{}:{}: shadow reference stopped: {}", file_, line_, err.what()));
      shadow_.reset();
    }
  }
  if (view_.curr && shadow_)
    if (ViewEntity* c = view_.find(*view_.curr)) refresh_from_shadow(*c);
}

void Checker::advance_to(int64_t t) {
  if (t > now_) run(t - now_);
}

void Checker::apply_shadow(const trace::Event& e) {
  if (!shadow_) return;
  const auto op = trace::to_op(e);
  if (!op) return;
  try {
    if (op->kind == OpKind::Detach) {
      if (!shadow_->detach(op->id)) throw Error("the task is not a sleeping entity of the queue");
      return;
    }
    if (op->kind == OpKind::Attach) {
      // The migrant as the trace reports it: validate() made sure the saved lag is there.
      if (!shadow_->attach(op->id, op->a, op->b != 0 ? op->b : params_.base_slice_ns(), op->b != 0,
                           *e.state.vlag))
        throw Error("the task is here already");
      return;
    }
    shadow_->apply(*op);
  } catch (const Error& err) {
    report_.notes.push_back(fmt::format("{}:{}: shadow reference stopped: it rejects {}: {}", file_,
                                        line_, to_string(*op), err.what()));
    shadow_.reset();
  }
}

void Checker::refresh_from_shadow(ViewEntity& v) const {
  if (!shadow_ || !shadow_->has(v.id)) return;
  const ShadowEntity s = shadow_->entity(v.id);
  v.weight = s.weight;
  v.slice = s.slice;
  v.vruntime = s.vruntime;
  v.deadline = s.deadline;
  v.vlag = s.vlag;
  v.status = s.status;
}

void Checker::apply_reported(ViewEntity& v, const trace::EntityFields& s) const {
  if (s.weight) v.weight = *s.weight;
  if (s.slice) v.slice = *s.slice;
  if (s.vruntime) v.vruntime = *s.vruntime;
  if (s.deadline) v.deadline = *s.deadline;
  if (s.vlag && s.status == Status::Sleeping) v.vlag = *s.vlag;
  if (s.status) v.status = *s.status;
}

// §4.4/§4.9: a delayed entity that pick_eevdf selects leaves the queue before the pick goes on.
// `W_after` is the W the pick event reports, if any.
void Checker::complete_delayed_dequeues(std::optional<TaskId> picked,
                                        std::optional<int64_t> W_after) {
  if (shadow_) {
    for (auto& [id, v] : view_.entities()) {
      if (v.status != Status::Delayed || !shadow_->has(id)) continue;
      if (shadow_->entity(id).status != Status::Sleeping) continue;
      v.status = Status::Sleeping;
      v.vlag = shadow_->entity(id).vlag;
      check_saved_lag(v, true);
    }
    return;
  }
  // A re-pick of curr is protection or curr's earliest deadline; protection is not in the trace,
  // but a reported W below the queue's shows that pick_eevdf searched and met delayed entities.
  const bool completed = W_after && *W_after < view_.W();
  if (picked && picked == view_.curr && !completed) return;
  const ViewEntity* p = picked ? view_.find(*picked) : nullptr;
  // pick_eevdf breaks a deadline tie by insertion order, which the view does not have (it breaks
  // them by id): when a delayed entity ties with the picked one, the reported W says whether
  // pick_eevdf met it first (and completed its dequeue) or not.
  const auto ties_pick = [&](const ViewEntity& d) { return p && d.deadline == p->deadline; };
  for (;;) {
    const Exact V = view_.V();
    const ViewEntity* best = view_.earliest_eligible_deadline(V);
    ViewEntity* next = nullptr;
    if (best && best->status == Status::Delayed && best->id != picked) {
      if (!(ties_pick(*best) && W_after && view_.W() <= *W_after)) next = view_.find(best->id);
    } else if (W_after && view_.W() > *W_after) {
      for (auto& [id, d] : view_.entities())
        if (d.status == Status::Delayed && view_.eligible(d, V) && ties_pick(d)) {
          next = &d;
          break;
        }
    }
    if (!next) return;
    ViewEntity& d = *next;
    Exact l = V - d.vruntime;
    if (params_.preset.clamp == LagClamp::TwiceSlice)
      l = std::clamp(l, Exact(-lag_limit(params_, d)), lag_limit(params_, d));
    if (params_.preset.has(Feature::DELAY_ZERO) && l > 0) l = 0;
    d.status = Status::Sleeping;
    d.vlag = l;
    check_saved_lag(d, true);
  }
}

// ---------------------------------------------------------------------------------------------
// One event

void Checker::consume(const trace::Event& e, int64_t line) {
  line_ = line;
  validate(e);
  if (e.kind == EventKind::Run) {
    if (e.t - e.delta < now_)
      fault(Fault::TimeBackwards, "delta",
            fmt::format("a run of {} ns ending at t={} starts before the previous event (t={})",
                        e.delta, e.t, now_));
    advance_to(e.t - e.delta);
  } else {
    advance_to(e.t);
  }

  const ViewEntity* named = e.task ? view_.find(*e.task) : nullptr;
  const std::optional<ViewEntity> before = named ? std::optional(*named) : std::nullopt;
  // V before the event, for the rules that relate it to the state after (exact: O(n)).
  const bool needs_V_before =
      e.kind == EventKind::Sleep || e.kind == EventKind::Dequeue || e.kind == EventKind::Reweight;
  const Exact V_before = needs_V_before ? view_.V() : Exact(0);
  const int64_t W_before = view_.W();
  const std::optional<TaskId> curr_before = view_.curr;
  const bool curr_protected =
      shadow_ ? shadow_->protect_slice() : params_.preset.protection != Protection::None;
  const std::optional<TaskId> next_before = shadow_ ? shadow_->next_buddy() : std::nullopt;

  if (e.kind == EventKind::Run) {
    service_.on_run(e.delta);
    now_ += e.delta;
  }
  apply_shadow(e);
  update_view(e, before ? before->status : Status::Sleeping);

  switch (e.kind) {
    case EventKind::New:
      service_.on_new(*e.task, e.weight, e.slice);
      break;
    case EventKind::Entity: {
      const ViewEntity& v = *view_.find(*e.task);
      service_.on_new(v.id, v.weight, v.slice);
      if (in_queue(v)) service_.on_wakeup(v.id, now_, false, line);
      if (view_.curr == v.id) service_.on_pick(v.id, now_, line);
      break;
    }
    case EventKind::Exit:
    case EventKind::Detach:
      service_.on_exit(*e.task);
      break;
    case EventKind::Attach:
      service_.on_new(*e.task, e.weight, e.slice);
      break;
    case EventKind::Wakeup: {
      const ViewEntity& v = *view_.find(*e.task);
      const bool steady = before->is_new || (e.state.vlag && *e.state.vlag == 0);
      if (before->status == Status::Sleeping) service_.on_wakeup(v.id, now_, steady, line);
      break;
    }
    case EventKind::Sleep:
    case EventKind::Dequeue: {
      // INV-DELAY: only an entity that is not eligible may stay queued as delayed.
      const ViewEntity& v = *view_.find(*e.task);
      if (v.status == Status::Delayed) {
        checked("INV-DELAY");
        if (view_.eligible(*before, V_before)) {
          Witness w;
          w.statement = "INV-DELAY: an entity becomes delayed only while v > V";
          w.add("v", Sort::Real, before->vruntime);
          w.add("V", Sort::Real, V_before);
          w.claim = "(<= v V)";
          violate("INV-DELAY",
                  fmt::format("eligible task {} (v={} <= V={}) was delayed", v.id,
                              str(before->vruntime), str(V_before)),
                  std::move(w));
        }
      }
      service_.on_sleep(*e.task, now_, line);
      break;
    }
    case EventKind::Pick:
      check_pick(e, curr_protected, curr_before, next_before);
      service_.on_pick(e.task, now_, line);
      break;
    case EventKind::Reweight:
      service_.on_reweight(*e.task, e.weight);
      break;
    case EventKind::Slice:
      service_.on_slice(*e.task, e.slice);
      break;
    default:
      break;
  }

  if (!e.state.empty() || e.V) {
    check_step(e);
    check_lag_sum(e);
    const ViewEntity* after =
        e.task ? view_.find(*e.task) : (view_.curr ? view_.find(*view_.curr) : nullptr);
    if (after) check_deadline(*after);
    if (after && before && e.kind == EventKind::Wakeup && before->status == Status::Sleeping && e.V)
      check_place(*before, *after, *e.V, W_before);
    if (after && before && e.kind == EventKind::Reweight && in_queue(*before))
      check_reweight(*before, *after, V_before, e.V ? *e.V : view_.V());
  }
  if (e.kind == EventKind::Pick) check_s64_margins();
  ++index_;
}

void Checker::update_view(const trace::Event& e, Status status_before) {
  const Preset& p = params_.preset;
  auto& all = view_.entities();
  ViewEntity* v = e.task ? view_.find(*e.task) : nullptr;
  const auto refresh = [&](ViewEntity& x) {
    refresh_from_shadow(x);
    apply_reported(x, e.state);
  };
  switch (e.kind) {
    case EventKind::New: {
      ViewEntity n;
      n.id = *e.task;
      n.weight = e.weight;
      n.slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
      all[n.id] = n;
      refresh(all[n.id]);
      return;
    }
    case EventKind::Entity: {
      ViewEntity n;
      n.id = *e.task;
      n.weight = *e.state.weight;
      n.slice = *e.state.slice;
      n.vruntime = *e.state.vruntime;
      n.deadline = *e.state.deadline;
      n.vlag = e.state.vlag.value_or(0);
      n.request = e.state.request;
      n.status = *e.state.status;
      n.is_new = false;
      all[n.id] = n;
      if (e.state.running.value_or(false)) view_.curr = n.id;
      return;
    }
    case EventKind::Exit:
    case EventKind::Detach:
      all.erase(*e.task);
      return;
    case EventKind::Attach: {
      // A known entity, not a new one: its first wakeup here places it with the lag it brings.
      ViewEntity n;
      n.id = *e.task;
      n.weight = e.weight;
      n.slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
      n.vlag = *e.state.vlag;
      n.is_new = false;
      all[n.id] = n;
      refresh(all[n.id]);
      return;
    }
    case EventKind::Wakeup: {
      const bool was_new = v->is_new;
      const Exact d_before = v->deadline;
      v->status = Status::Queued;
      v->is_new = false;
      refresh(*v);
      if (status_before == Status::Sleeping) {
        if (!v->rel_deadline) {
          const bool half = was_new && p.has(Feature::PLACE_DEADLINE_INITIAL);
          new_request(*v, half ? Exact(static_cast<long>(v->slice), 2) : ex(v->slice));
        }
      } else if (v->deadline != d_before) {
        new_request(*v, ex(v->slice));
      }
      v->rel_deadline = false;
      return;
    }
    case EventKind::Sleep: {
      const Exact V = view_.V();
      v->status = (p.has(Feature::DELAY_DEQUEUE) && !view_.eligible(*v, V)) ? Status::Delayed
                                                                            : Status::Sleeping;
      if (view_.curr == v->id) view_.curr.reset();
      refresh(*v);
      if (v->status == Status::Sleeping) check_saved_lag(*v, false);
      return;
    }
    case EventKind::Dequeue:
      v->status = Status::Sleeping;
      v->rel_deadline = p.has(Feature::PLACE_REL_DEADLINE);
      if (view_.curr == v->id) view_.curr.reset();
      refresh(*v);
      check_saved_lag(*v, false);
      return;
    case EventKind::Pick:
      complete_delayed_dequeues(e.task, e.W);
      view_.curr = e.task;
      if (v) refresh(*v);
      return;
    case EventKind::Run:
    case EventKind::Tick:
    case EventKind::Yield: {
      ViewEntity* c = view_.curr ? view_.find(*view_.curr) : nullptr;
      if (!c) return;
      const Exact d_before = c->deadline;
      refresh(*c);
      if (c->deadline == d_before) return;
      if (e.kind == EventKind::Yield && c->request) {
        *c->request += ex(c->slice);
        ++c->deadline_roundings;
      } else if (e.kind != EventKind::Yield) {
        new_request(*c, ex(c->slice));
      }
      return;
    }
    case EventKind::Reweight: {
      // A lag the clamp cut moves d around V: the request is then no longer known (§4.8).
      const bool cut = in_queue(*v) && p.clamp == LagClamp::TwiceSlice &&
                       p.reweight != ReweightRule::KeepV &&
                       abs(view_.V() - v->vruntime) > lag_limit(params_, *v);
      refresh(*v);
      if (cut) v->request.reset();
      v->deadline_rescaled = arith_ == trace::Arith::Linux64;
      return;
    }
    case EventKind::Slice:
      v->slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
      refresh(*v);
      return;
    case EventKind::Preempt:
      refresh(*v);
      return;
    case EventKind::Migrate:
      return;
  }
}

void Checker::new_request(ViewEntity& v, const Exact& request) const {
  v.request = request;
  v.deadline_roundings = 1;
  v.deadline_rescaled = false;
}

void Checker::finish() {
  service_.finish();
  if (!shadow_ && !window_)
    report_.notes.push_back(file_ + ": INV-STEP was checked up to the point the shadow stopped");
}

// ---------------------------------------------------------------------------------------------
// Witnesses

// Every queued entity's weight, vruntime and deadline, with W and V defined from them
// (SPEC.md §2). V_reported, when given, is the V the trace claims.
Witness Checker::queue_witness(const Exact* V_reported) const {
  Witness w;
  std::string sum_w = "(+ 0", sum_wv = "(+ 0.0";
  for (const auto& [id, e] : view_.entities()) {
    if (!in_queue(e)) continue;
    const std::string wn = name_of("w", id), vn = name_of("v", id), dn = name_of("d", id);
    w.add(wn, Sort::Int, ex(e.weight));
    w.add(vn, Sort::Real, e.vruntime);
    w.add(dn, Sort::Real, e.deadline);
    sum_w += " " + wn;
    sum_wv += fmt::format(" (* {} {})", wn, vn);
  }
  w.derived.push_back({"W", Sort::Int});
  w.definitions.push_back("(= W " + sum_w + "))");
  if (V_reported) {
    w.add("V_reported", Sort::Real, *V_reported);
  } else {
    w.derived.push_back({"V", Sort::Real});
    w.definitions.push_back("(= (* V W) " + sum_wv + "))");
  }
  return w;
}

// SPEC.md §7.3's B_v = 2·E(R) for the operation just applied, R the largest amount it can hand to
// vdelta: max(2·r_max, TICK, 2·b) over the view (runs reach vdelta only through these checks'
// deadlines and lags, whose amounts are slices). Zero for an exact trace: no rounding.
Exact Checker::vruntime_bound() const {
  if (arith_ != trace::Arith::Linux64) return 0;
  int64_t R = std::max(params_.tick_ns(), 2 * params_.base_slice_ns());
  for (const auto& [id, v] : view_.entities()) R = std::max(R, 2 * v.slice);
  return 2 * vdelta_error(R);
}

// ---------------------------------------------------------------------------------------------
// Layer 2: decisions

void Checker::check_pick(const trace::Event& e, bool curr_protected,
                         std::optional<TaskId> curr_before, std::optional<TaskId> next_before) {
  checked("INV-PICK-ELIGIBLE");
  checked("INV-PICK-EDF");
  const Exact V = view_.V();
  const int64_t count = report_.violation_count;
  if (!e.task) {
    if (view_.W() != 0) {
      Witness w = queue_witness(nullptr);
      w.statement = "INV-PICK-ELIGIBLE: pick_next_entity returns an entity when Q is not empty";
      w.claim = "(> W 0)";
      violate("INV-PICK-ELIGIBLE", "the CPU went idle with a non-empty queue", std::move(w));
    }
  } else {
    const ViewEntity& p = *view_.find(*e.task);
    const std::string pn = name_of("v", p.id), pd = name_of("d", p.id);
    if (p.status == Status::Delayed) {
      checked("INV-DELAY");
      Witness w;
      w.statement = "INV-DELAY: a delayed entity never runs (status 2 = delayed)";
      w.add("status", Sort::Int, ex(2));
      w.claim = "(= status 2)";
      violate("INV-DELAY", fmt::format("picked task {}, which is delayed", p.id), std::move(w));
    } else if (!view_.eligible(p, V)) {
      Witness w = queue_witness(nullptr);
      w.statement = "INV-PICK-ELIGIBLE: the picked entity p has v_p <= V";
      w.claim = "(> " + pn + " V)";
      violate("INV-PICK-ELIGIBLE",
              fmt::format("picked task {} with v={} > V={}", p.id, str(p.vruntime), str(V)),
              std::move(w));
    } else {
      const bool exempt = (p.id == curr_before && curr_protected) ||
                          (params_.preset.has(Feature::PICK_BUDDY) && next_before == p.id);
      const ViewEntity* best = view_.earliest_eligible_deadline(V);
      if (!exempt && best && best->id != p.id && best->deadline < p.deadline) {
        Witness w = queue_witness(nullptr);
        const std::string bn = name_of("v", best->id), bd = name_of("d", best->id);
        w.statement =
            "INV-PICK-EDF: no eligible entity e has an earlier deadline than the picked p";
        w.claim = fmt::format("(and (<= {} V) (<= {} V) (< {} {}))", pn, bn, bd, pd);
        violate("INV-PICK-EDF",
                fmt::format("picked task {} (d={}) but eligible task {} has d={}", p.id,
                            str(p.deadline), best->id, str(best->deadline)),
                std::move(w));
      }
    }
  }
  if (!shadow_) return;
  checked("INV-STEP");
  const std::optional<TaskId> spec_pick = shadow_->curr();
  if (spec_pick == e.task) return;
  if (report_.violation_count == count) {
    Witness w;
    w.statement = "INV-STEP: the pick is the one SPEC.md 4.4 makes (ids; -1 = idle)";
    w.add("picked", Sort::Int, ex(e.task.value_or(-1)));
    w.add("spec_pick", Sort::Int, ex(spec_pick.value_or(-1)));
    w.claim = "(not (= picked spec_pick))";
    violate("INV-STEP",
            fmt::format("picked {} where SPEC.md §4.4 (protection, buddy, ties) picks {}",
                        e.task ? std::to_string(*e.task) : "idle",
                        spec_pick ? std::to_string(*spec_pick) : "idle"),
            std::move(w));
  }
  stop_shadow("pick");
}

// Once the trace leaves the spec's steps the shadow no longer stands for its state: kept alive,
// it would overwrite the view with its own numbers and complete delayed dequeues the trace never
// had. Later events are judged on the trace's own numbers.
void Checker::stop_shadow(std::string_view what) {
  report_.notes.push_back(
      fmt::format("{}:{}: the trace's {} differs from the shadow reference's; INV-STEP stops here "
                  "and later events are judged on the trace's own numbers",
                  file_, line_, what));
  shadow_.reset();
}

// ---------------------------------------------------------------------------------------------
// Layer 3: state

void Checker::check_step(const trace::Event& e) {
  if (!shadow_) return;
  checked("INV-STEP");
  const auto mismatch = [&](const char* field, const Exact& got, const Exact& want) {
    Witness w;
    w.statement = std::string("INV-STEP: field '") + field +
                  "' equals the value of the SPEC.md operation on the same state";
    w.add("reported", Sort::Real, got);
    w.add("spec", Sort::Real, want);
    w.claim = "(not (= reported spec))";
    violate(
        "INV-STEP",
        fmt::format("field '{}' is {} where the spec's step gives {}", field, str(got), str(want)),
        std::move(w));
    stop_shadow(fmt::format("field '{}'", field));
  };
  const TaskId id = e.task.value_or(0);
  const bool about =
      e.task && shadow_->has(id) && (!about_running(e.kind) || shadow_->curr() == e.task);
  const trace::EntityFields& s = e.state;
  if (about) {
    const ShadowEntity r = shadow_->entity(id);
    if (s.weight && *s.weight != r.weight) return mismatch("w", ex(*s.weight), ex(r.weight));
    if (s.slice && *s.slice != r.slice) return mismatch("r", ex(*s.slice), ex(r.slice));
    if (s.vruntime && *s.vruntime != r.vruntime) return mismatch("v", *s.vruntime, r.vruntime);
    if (s.deadline && *s.deadline != r.deadline) return mismatch("d", *s.deadline, r.deadline);
    if (s.vlag && *s.vlag != r.vlag) return mismatch("vlag", *s.vlag, r.vlag);
    if (s.status && *s.status != r.status)
      return mismatch("status", ex(static_cast<int>(*s.status)), ex(static_cast<int>(r.status)));
  }
  if (e.V && *e.V != shadow_->V()) return mismatch("V", *e.V, shadow_->V());
  if (e.W && *e.W != shadow_->W()) return mismatch("W", ex(*e.W), ex(shadow_->W()));
}

// INV-LAG-SUM on the trace's numbers: Σ w_i·(V − v_i) = 0 with the reported V and W = Σ w_i.
// Integer producers floor V (SPEC.md §7): then −W < Σ w_i·(V − v_i) ≤ 0.
// The integer form of INV-LAG-SUM, −W < Σ w_i·(V − v_i) ≤ 0, in 128-bit arithmetic: on a
// Linux-arithmetic trace every value is an s64, and a GMP product per queued entity per event
// made this check most of `vlag check`'s time. False when it does not hold or a value is not an
// s64 integer; the exact computation then decides and explains.
bool Checker::integer_lag_sum_holds(const Exact& V, int64_t W) const {
  if (V.get_den() != 1 || !V.get_num().fits_slong_p()) return false;
  const __int128 v_ref = V.get_num().get_si();
  __int128 sum = 0;
  for (const auto& [id, v] : view_.entities()) {
    if (!in_queue(v)) continue;
    if (v.vruntime.get_den() != 1 || !v.vruntime.get_num().fits_slong_p()) return false;
    sum += (v_ref - v.vruntime.get_num().get_si()) * v.weight;
  }
  return sum <= 0 && sum > -static_cast<__int128>(W);
}

void Checker::check_lag_sum(const trace::Event& e) {
  if (!e.V || !e.W) return;
  const int64_t W = view_.W();
  if (W == 0 && *e.W == 0) return;
  checked("INV-LAG-SUM");
  if (*e.W == W && integer_lag_sum_holds(*e.V, W)) return;
  Exact sum = 0;
  bool integers = e.V->get_den() == 1;
  for (const auto& [id, v] : view_.entities()) {
    if (!in_queue(v)) continue;
    sum += (*e.V - v.vruntime) * static_cast<long>(v.weight);
    integers = integers && v.vruntime.get_den() == 1;
  }
  const bool ok = *e.W == W && (integers ? (sum <= 0 && sum > -ex(W)) : sum == 0);
  if (ok) return;
  Witness w = queue_witness(&*e.V);
  w.add("W_reported", Sort::Int, ex(*e.W));
  std::string lag_sum = "(+ 0.0";
  for (const auto& [id, v] : view_.entities())
    if (in_queue(v))
      lag_sum += fmt::format(" (* {} (- V_reported {}))", name_of("w", id), name_of("v", id));
  lag_sum += ")";
  w.statement = integers
                    ? "INV-LAG-SUM (integer V, floored): -W < sum w_i*(V - v_i) <= 0, W = sum w_i"
                    : "INV-LAG-SUM: sum w_i*(V - v_i) = 0 and W = sum w_i";
  w.claim =
      integers
          ? fmt::format("(or (not (= W_reported W)) (> {0} 0.0) (<= {0} (- (to_real W))))", lag_sum)
          : fmt::format("(or (not (= W_reported W)) (not (= {} 0.0)))", lag_sum);
  violate("INV-LAG-SUM",
          fmt::format("reported V={} W={} but the queued entities give sum w(V-v)={} and W={}",
                      str(*e.V), *e.W, str(sum), W),
          std::move(w));
}

// INV-DEADLINE: 0 < (d − v)·w/N ≤ ρ for a queued entity.
void Checker::check_deadline(const ViewEntity& v) {
  if (v.status != Status::Queued || !v.request) return;
  checked("INV-DEADLINE");
  Exact rest = (v.deadline - v.vruntime) * static_cast<long>(v.weight) / ex(kNice0Weight);
  rest.canonicalize();
  // Linux arithmetic (§7.3): d − v is off by less than (1 + 2B_v) + (2 + 3B_v) virtual ns per
  // vdelta it sums; after a reweight rescaled it, §7.3 states no bound (not promised).
  Exact slack = (arith_ == trace::Arith::Linux64 ? (3 + 5 * vruntime_bound()) * v.deadline_roundings
                                                 : Exact(0)) *
                static_cast<long>(v.weight) / ex(kNice0Weight);
  slack.canonicalize();
  if (slack == 0 ? rest > 0 && rest <= *v.request : rest > -slack && rest < *v.request + slack)
    return;
  Witness w;
  w.add("v", Sort::Real, v.vruntime);
  w.add("d", Sort::Real, v.deadline);
  w.add("w", Sort::Int, ex(v.weight));
  w.add("rho", Sort::Real, *v.request);
  w.statement = "INV-DEADLINE: 0 < (d - v)*w/1024 <= rho";
  w.claim = "(or (<= (/ (* (- d v) w) 1024.0) 0.0) (> (/ (* (- d v) w) 1024.0) rho))";
  if (slack != 0) {
    w.add("slack", Sort::Real, slack);
    w.statement =
        "INV-DEADLINE (Linux arithmetic, SPEC.md 7.3): -slack < (d - v)*w/1024 < rho + slack";
    w.claim =
        "(or (<= (/ (* (- d v) w) 1024.0) (- slack)) (>= (/ (* (- d v) w) 1024.0) (+ rho slack)))";
  }
  violate("INV-DEADLINE",
          fmt::format("task {} remaining request {} ns not in (0, {}]{}", v.id, str(rest),
                      str(*v.request),
                      slack == 0 ? "" : " widened by the rounding bound " + str(slack) + " ns"),
          std::move(w), !v.deadline_rescaled);
}

// INV-PLACE-LAG: a wakeup places the entity so that V − v equals the saved lag (Linux), or the
// TR's share of it vl·W/(W + w) (paper); 0 without PLACE_LAG.
void Checker::check_place(const ViewEntity& before, const ViewEntity& after, const Exact& V_after,
                          int64_t W_before) {
  checked("INV-PLACE-LAG");
  const Preset& p = params_.preset;
  Exact expect = 0;
  if (p.has(Feature::PLACE_LAG) && W_before != 0) {
    expect = before.vlag;
    if (p.join == JoinRule::Paper) expect = expect * ex(W_before) / ex(W_before + after.weight);
  }
  expect.canonicalize();
  const Exact got = V_after - after.vruntime;
  // Linux arithmetic (§7.3): V − v of a queued entity is off by less than 1 + 2B_v.
  const Exact B = arith_ == trace::Arith::Linux64 ? 1 + 2 * vruntime_bound() : Exact(0);
  if (B == 0 ? got == expect : abs(got - expect) < B) return;
  Witness w;
  w.add("V", Sort::Real, V_after);
  w.add("v", Sort::Real, after.vruntime);
  w.add("expected", Sort::Real, expect);
  w.statement = "INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores";
  w.claim = "(not (= (- V v) expected))";
  if (B != 0) {
    w.add("bound", Sort::Real, B);
    w.statement = "INV-PLACE-LAG (Linux arithmetic, SPEC.md 7.3): |V - v - expected| < bound";
    w.claim = "(or (>= (- (- V v) expected) bound) (<= (- (- V v) expected) (- bound)))";
  }
  violate("INV-PLACE-LAG",
          fmt::format("task {} saved vlag {}: expected V-v={}, got {}{}", after.id,
                      str(before.vlag), str(expect), str(got),
                      B == 0 ? "" : " (beyond the rounding bound " + str(B) + ")"),
          std::move(w));
}

// INV-REWEIGHT: V unchanged by a reweight (and w·vlag kept), unless the clamp cut the lag.
void Checker::check_reweight(const ViewEntity& before, const ViewEntity& after,
                             const Exact& V_before, const Exact& V_after) {
  const Preset& p = params_.preset;
  if (p.clamp == LagClamp::TwiceSlice &&
      abs(V_before - before.vruntime) > lag_limit(params_, before))
    return;
  checked("INV-REWEIGHT");
  bool promised = p.reweight != ReweightRule::KeepV;
  if (p.reweight == ReweightRule::Place && view_.curr == after.id) promised = false;
  const Exact lag_b = (V_before - before.vruntime) * static_cast<long>(before.weight);
  const Exact lag_a = (V_after - after.vruntime) * static_cast<long>(after.weight);
  // Linux arithmetic (§7.3): B_v = 3 + φ(1 + ρ)E for a reweight, ρ = w/w', φ = 1 + 2w'/W_o;
  // V_before is exact (the view's average), so |ΔV| < 1 + B_v and |Δ(V − v)| < 1 + 2B_v. An
  // entity alone in the queue passes through an empty one, whose V is min_vruntime (§7.1): V
  // then moves by a translation of the timeline, and only its lag is compared.
  Exact B_V = 0, B_lag = 0;
  bool compare_V = true;
  if (arith_ == trace::Arith::Linux64) {
    const int64_t W_o = view_.W() - after.weight;
    const Exact rho = ex(before.weight) / ex(after.weight);
    const Exact phi = 1 + ex(2 * after.weight) / ex(std::max<int64_t>(W_o, 1));
    const Exact B_v = 3 + phi * (1 + rho) * (vruntime_bound() / 2);
    B_V = 1 + B_v;
    B_lag = (1 + 2 * B_v) * static_cast<long>(after.weight);
    compare_V = W_o != 0;
  }
  if (B_V == 0 ? V_before == V_after && lag_b == lag_a
               : (!compare_V || abs(V_after - V_before) < B_V) && abs(lag_a - lag_b) < B_lag)
    return;
  Witness w;
  w.add("V_before", Sort::Real, V_before);
  w.add("V_after", Sort::Real, V_after);
  w.add("wlag_before", Sort::Real, lag_b);
  w.add("wlag_after", Sort::Real, lag_a);
  w.statement = "INV-REWEIGHT: V and w*(V - v) are unchanged by a reweight";
  w.claim = "(or (not (= V_before V_after)) (not (= wlag_before wlag_after)))";
  if (B_V != 0) {
    w.add("bound_V", Sort::Real, B_V);
    w.add("bound_wlag", Sort::Real, B_lag);
    w.statement =
        "INV-REWEIGHT (Linux arithmetic, SPEC.md 7.3): V and w*(V - v) move by less "
        "than their bounds";
    w.claim = fmt::format(
        "(or {}(>= (- wlag_after wlag_before) bound_wlag) (<= (- wlag_after wlag_before) (- "
        "bound_wlag)))",
        compare_V ? "(>= (- V_after V_before) bound_V) (<= (- V_after V_before) (- bound_V)) "
                  : "");
  }
  violate("INV-REWEIGHT",
          fmt::format("reweight of task {} moved V from {} to {} (w*vlag {} -> {}){}", after.id,
                      str(V_before), str(V_after), str(lag_b), str(lag_a),
                      B_V == 0 ? ""
                               : fmt::format(" beyond the rounding bounds {} and {}", str(B_V),
                                             str(B_lag))),
          std::move(w), promised);
}

// INV-LAG-CLAMP: |vl| ≤ vdelta(max(2r, TICK), w) in Linux presets; ≤ 0 after a completed
// delayed dequeue under DELAY_ZERO. A preset without the clamp (paper) is judged as well, its
// lags beyond the limit counted as not promised (SPEC.md §6), as the reference counts them.
void Checker::check_saved_lag(const ViewEntity& v, bool from_delayed) {
  const Preset& p = params_.preset;
  checked("INV-LAG-CLAMP");
  const Exact limit = lag_limit(params_, v);
  const bool zero = from_delayed && p.has(Feature::DELAY_ZERO);
  // Linux arithmetic (§7.3): a saved lag is off by less than B_v (its clamp limit is vdelta's).
  // DELAY_ZERO's vl <= 0 is exact in both: Linux zeroes a positive lag of its own.
  const Exact B = vruntime_bound();
  const bool within = B == 0 ? abs(v.vlag) <= limit : abs(v.vlag) < limit + B;
  if (within && !(zero && v.vlag > 0)) return;
  Witness w;
  w.add("vl", Sort::Real, v.vlag);
  w.add("r", Sort::Int, ex(v.slice));
  w.add("w", Sort::Int, ex(v.weight));
  w.add("tick", Sort::Int, ex(params_.tick_ns()));
  w.derived.push_back({"limit", Sort::Real});
  w.definitions.push_back("(= limit (/ (* (ite (> (* 2 r) tick) (* 2 r) tick) 1024) (to_real w)))");
  w.statement = zero ? "INV-LAG-CLAMP: |vl| <= limit, and vl <= 0 after a delayed dequeue"
                     : "INV-LAG-CLAMP: |vl| <= vdelta(max(2r, TICK), w)";
  w.claim =
      zero ? "(or (> vl limit) (< vl (- limit)) (> vl 0.0))" : "(or (> vl limit) (< vl (- limit)))";
  if (B != 0) {
    w.add("bound", Sort::Real, B);
    w.statement += " (Linux arithmetic, SPEC.md 7.3: beyond limit + bound)";
    w.claim = fmt::format("(or (>= vl (+ limit bound)) (<= vl (- (+ limit bound))){})",
                          zero ? " (> vl 0.0)" : "");
  }
  violate("INV-LAG-CLAMP",
          fmt::format("task {} saved vlag {} beyond {}{}{}", v.id, str(v.vlag), str(limit),
                      B == 0 ? "" : " + the rounding bound " + str(B),
                      zero ? " or positive after a delayed dequeue" : ""),
          std::move(w), p.clamp == LagClamp::TwiceSlice || within);
}

// INV-S64-MARGIN: the products and sums Linux keeps in s64 (SPEC.md §7) — key_i·w_i, their sum,
// and key_i·W in the eligibility test, with key_i = ⌊v_i − v_min⌋ — fit in 64 bits.
void Checker::check_s64_margins() {
  const auto& all = view_.entities();
  std::optional<Exact> vmin;
  for (const auto& [id, v] : all)
    if (in_queue(v) && (!vmin || v.vruntime < *vmin)) vmin = v.vruntime;
  if (!vmin) return;
  checked("INV-S64-MARGIN");
  const mpz_class limit = mpz_class(kS64Max);
  const int64_t W = view_.W();
  mpz_class sum = 0;
  for (const auto& [id, v] : all) {
    if (!in_queue(v)) continue;
    const Exact diff = v.vruntime - *vmin;
    mpz_class key;
    mpz_fdiv_q(key.get_mpz_t(), diff.get_num_mpz_t(), diff.get_den_mpz_t());
    const mpz_class prod = key * v.weight, prod_W = key * W;
    sum += prod;
    const bool key_fits = key <= limit;
    if (key_fits && prod <= limit && prod_W <= limit) continue;
    Witness w;
    w.statement =
        "INV-S64-MARGIN: (v_i - v_min)*w_i and (v_i - v_min)*W fit in a signed 64-bit product";
    if (!key_fits) {
      w.add("key", Sort::Int, Exact(key));
      w.claim = "(> key 9223372036854775807)";
    } else {
      w.add("key", Sort::BitVec64, Exact(key));
      w.add("w", Sort::BitVec64, ex(prod > limit ? v.weight : W));
      w.claim = "(not (bvsmul_noovfl key w))";
    }
    violate("INV-S64-MARGIN",
            fmt::format("task {}: key {} times weight {} (or W {}) overflows s64", id,
                        key.get_str(), v.weight, W),
            std::move(w));
    return;
  }
  if (sum <= limit) return;
  Witness w;
  w.statement = "INV-S64-MARGIN: sum_i (v_i - v_min)*w_i fits in s64";
  w.add("sum", Sort::Int, Exact(sum));
  w.claim = "(> sum 9223372036854775807)";
  violate("INV-S64-MARGIN", "the weighted key sum " + sum.get_str() + " overflows s64",
          std::move(w));
}

std::vector<trace::Event> Checker::snapshot() const {
  std::vector<trace::Event> out;
  for (const auto& [id, v] : view_.entities()) {
    trace::Event e;
    e.kind = EventKind::Entity;
    e.t = now_;
    e.task = id;
    e.state.weight = v.weight;
    e.state.slice = v.slice;
    e.state.vruntime = v.vruntime;
    e.state.deadline = v.deadline;
    e.state.vlag = v.vlag;
    e.state.status = v.status;
    e.state.running = view_.curr == id;
    e.state.request = v.request;
    out.push_back(e);
  }
  return out;
}

}  // namespace vlag::checker
