#include "checker/runqueue_checker.h"

#include <fmt/format.h>

#include <algorithm>

#include "checker/validation.h"
#include "spec/error.h"
#include "spec/properties.h"

namespace vlag::checker {

using trace::EventKind;
using trace::Fault;

RunqueueChecker::RunqueueChecker(const trace::Header& header, std::string file, RunqueueId rq,
                                 Report& report)
    : params_(header.params),
      rq_(rq),
      window_(header.window),
      file_(std::move(file)),
      report_(report),
      findings_(report, file_, header),
      view_update_(params_, header.arith),
      service_(header.params, report, file_),
      decisions_(params_, findings_),
      protection_(params_, header.arith),
      buddy_(params_.preset, header.window),
      lag_figures_(header.kernel_reconstruction
                       ? std::nullopt
                       : std::optional<LagFigures>(std::in_place, params_, report, file_)),
      state_rules_(params_, header.arith, findings_) {
  if (header.arith == Arith::Linux64)
    report_.notes.push_back(fmt::format(
        "{}: Linux integer arithmetic (\"arith\":\"linux64\"): the shadow reference is "
        "reference::LinuxRunqueue, and {}, {}, {} and {} are judged within the rounding bounds of "
        "SPEC.md §7.3 ({} of a deadline a reweight rescaled: not promised, §7.3 bounds no error "
        "carried into the rescaling)",
        file_, ids::kInvPlaceLag, ids::kInvReweight, ids::kInvDeadline, ids::kInvLagClamp,
        ids::kInvDeadline));
  if (header.linux_source)
    report_.notes.push_back(fmt::format(
        "{}: the kernel's own numbers from a capture of its state (\"source\":\"linux\"{}): "
        "what no record shows (an update_curr of a group entity, a remote wakeup, a gap) is not "
        "in it, so a decision or state check that fails is inconclusive (the verdicts on these "
        "numbers are vlag kernel check --state's)",
        file_, header.runqueue.empty() ? "" : ", " + header.runqueue));
  if (header.kernel_reconstruction)
    report_.notes.push_back(fmt::format(
        "{}: a reconstruction from kernel tracepoints: its vruntimes, deadlines and lags are the "
        "checker's rebuild from a zero-lag start, not the kernel's, so a decision or state check "
        "that fails is inconclusive and {} and {} are not given (the verdicts on the kernel's "
        "service are vlag kernel check's)",
        file_, ids::kThmLagBound, ids::kThmLagBoundLinux));
  if (!window_) {
    try {
      shadow_.emplace(params_, header.arith, rq_);
    } catch (const Error& err) {
      report_.notes.push_back(file_ + ": no shadow reference: " + err.what());
    }
  } else
    report_.notes.push_back(file_ +
                            ": a window (starts mid-run): no shadow reference, decisions and "
                            "state are judged on the trace's own numbers");
}

// ---------------------------------------------------------------------------------------------
// Time and the shadow

void RunqueueChecker::run(int64_t delta) {
  service_.on_run(delta);
  now_ += delta;
  if (shadow_) {
    try {
      shadow_->apply(Op{OpKind::Run, 0, delta, 0, 0, rq_});
    } catch (const Error& err) {
      report_.notes.push_back(
          fmt::format("{}:{}: shadow reference stopped: {}", file_, line_, err.what()));
      shadow_.reset();
    }
  }
  if (view_.curr && shadow_ && view_.find(*view_.curr))
    ViewUpdate::refresh_from_shadow(*view_.edit(*view_.curr), &*shadow_);
}

void RunqueueChecker::advance_to(int64_t t) {
  if (t > now_) run(t - now_);
}

void RunqueueChecker::apply_shadow(const trace::Event& e) {
  if (!shadow_) return;
  const auto op = trace::to_op(e);
  if (!op) return;
  try {
    if (op->kind == OpKind::Detach) {
      if (!shadow_->detach(op->se)) throw Error("the task is not a sleeping entity of the queue");
      return;
    }
    if (op->kind == OpKind::Attach) {
      // The migrant as the trace reports it: validate() made sure the saved lag is there.
      if (!shadow_->attach(op->se, op->a, op->b != 0 ? op->b : params_.base_slice_ns(), op->b != 0,
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

// Once the trace leaves the spec's steps the shadow no longer stands for its state: kept alive,
// it would overwrite the view with its own numbers and complete delayed dequeues the trace never
// had. Later events are judged on the trace's own numbers.
void RunqueueChecker::stop_shadow(std::string_view what) {
  report_.notes.push_back(
      fmt::format("{}:{}: the trace's {} differs from the shadow reference's; {} stops here "
                  "and later events are judged on the trace's own numbers",
                  file_, line_, what, ids::kInvStep));
  shadow_.reset();
}

// ---------------------------------------------------------------------------------------------
// One event

void RunqueueChecker::consume(const trace::Event& e, int64_t line, int64_t index) {
  line_ = line;
  findings_.at(line, index, index_);
  validate(e, view_, {file_, line_, index_, now_, window_});
  advance_to(e.kind == EventKind::Run ? e.t - e.delta : e.t);

  const std::optional<EntityId> se = e.entity();
  // The named entity before the event, copied into storage kept from event to event for the
  // events whose rules compare it with the entity after (of the others only its status counts).
  const ViewEntity* named = se ? view_.find(*se) : nullptr;
  const Status status_before = named ? named->status : Status::Sleeping;
  const bool needs_before = e.kind == EventKind::Wakeup || e.kind == EventKind::Sleep ||
                            e.kind == EventKind::Dequeue || e.kind == EventKind::Reweight;
  if (named && needs_before) before_ = *named;
  const ViewEntity* before = named && needs_before ? &before_ : nullptr;
  // V before the event, for the rules that relate it to the state after.
  const bool needs_V_before =
      e.kind == EventKind::Sleep || e.kind == EventKind::Dequeue || e.kind == EventKind::Reweight;
  if (needs_V_before) V_before_ = view_.V();
  const Exact& V_before = V_before_;
  const int64_t W_before = view_.W();
  const std::optional<EntityId> curr_before = view_.curr;
  const std::optional<PickContext> pick =
      e.kind == EventKind::Pick ? std::optional(pick_context(e, curr_before)) : std::nullopt;

  if (e.kind == EventKind::Run) {
    service_.on_run(e.delta);
    now_ += e.delta;
  }
  apply_shadow(e);
  view_update_.apply(view_, e, status_before, shadow_ ? &*shadow_ : nullptr,
                     [this](const ViewEntity& v, bool from_delayed) {
                       state_rules_.saved_lag(v, from_delayed, view_);
                     });
  if (e.kind == EventKind::Pick)
    protection_.picked(view_, se, curr_before, line);
  else if (e.kind == EventKind::Preempt)
    protection_.wakeup_decision(view_, *se, e.preempt, line);
  else if (e.kind == EventKind::Reweight && before)
    protection_.reweighted(view_, *before, e.weight, V_before);
  else
    protection_.follow(view_);
  if (e.kind == EventKind::Wakeup) buddy_.woke(before->is_new);
  if (e.kind == EventKind::Preempt) buddy_.decided(*se, curr_before);
  if (e.kind == EventKind::Pick || e.kind == EventKind::Sleep || e.kind == EventKind::Dequeue)
    buddy_.left(se);

  switch (e.kind) {
    case EventKind::New:
      service_.on_new(*se, e.weight, e.slice, e.task == se);
      break;
    case EventKind::Entity: {
      const ViewEntity& v = *view_.find(*se);
      service_.on_new(v.id, v.weight, v.slice, v.task == v.id);
      if (in_queue(v)) service_.on_wakeup(v.id, now_, false, line);
      if (view_.curr == v.id) service_.on_pick(v.id, now_, line);
      break;
    }
    case EventKind::Exit:
    case EventKind::Detach:
      service_.on_exit(*se);
      break;
    case EventKind::Attach:
      service_.on_new(*se, e.weight, e.slice, e.task == se);
      break;
    case EventKind::Wakeup: {
      const ViewEntity& v = *view_.find(*se);
      const bool steady = before->is_new || (e.state.vlag && *e.state.vlag == 0);
      if (before->status == Status::Sleeping) service_.on_wakeup(v.id, now_, steady, line);
      break;
    }
    case EventKind::Sleep:
    case EventKind::Dequeue: {
      const ViewEntity& v = *view_.find(*se);
      if (v.status == Status::Delayed) decisions_.became_delayed(*before, v, V_before);
      service_.on_sleep(*se, now_);
      break;
    }
    case EventKind::Pick: {
      // The view's vruntimes are the trace's, or the shadow's up to this pick (a pick moves none).
      const bool vruntimes_known = e.V || shadow_;
      const int64_t judged_from = findings_.violations();
      decisions_.pick(view_, *pick);
      if (shadow_ && !decisions_.pick_step(se, shadow_->curr(), judged_from)) stop_shadow("pick");
      service_.on_pick(se, now_, line);
      if (lag_figures_ && vruntimes_known)
        lag_figures_->at_decision(view_, e.V ? *e.V : view_.V(), service_.steady(),
                                  service_.cpu_bound(), line);
      else if (lag_figures_)
        lag_figures_->unmeasurable(line);
      break;
    }
    case EventKind::Put:  // the runqueue stops running: its curr waits like a preempted one
      service_.on_pick(std::nullopt, now_, line);
      break;
    case EventKind::Reweight:
      service_.on_reweight(*se, e.weight);
      break;
    case EventKind::Slice:
      service_.on_slice(*se, e.slice);
      break;
    default:
      break;
  }

  if (!e.state.empty() || e.V || !e.kernel.empty()) judge_state(e, before, V_before, W_before);
  if (e.kind == EventKind::Pick) state_rules_.s64_margins(view_);
  ++index_;
  if (--until_audit_ == 0) audit();
}

// The incremental sums against their definitions, from scratch, in exact numbers: O(n), so at
// least kAuditEventsPerEntity events apart for n entities (and kAuditPeriod), which keeps their
// cost per event bounded however long the queue.
void RunqueueChecker::audit() {
  view_.audit();
  state_rules_.audit(view_);
  until_audit_ = std::max(View::kAuditPeriod,
                          kAuditEventsPerEntity * static_cast<int64_t>(view_.entities().size()));
}

// What the state before a pick says about it: the next buddy and curr's protection, both by the
// checker's own rules (checker/buddy.h, checker/protection.h), never the shadow's.
PickContext RunqueueChecker::pick_context(const trace::Event& e,
                                          std::optional<EntityId> curr_before) const {
  PickContext c;
  c.picked = e.entity();
  c.curr_before = curr_before;
  // An unknown buddy (a window under NEXT_BUDDY) may be the picked entity.
  c.next_before = buddy_.known() ? buddy_.next() : c.picked;
  c.curr_protected = protection_.protects(view_);
  const Exact V = view_.V();
  const ViewEntity* next = buddy_.next() ? view_.find(*buddy_.next()) : nullptr;
  const bool next_eligible = next && in_queue(*next) && view_.eligible(*next, V);
  const int64_t queued = view_.queued();
  if (rules::buddy_goes_first(params_.preset, buddy_.next(), next_eligible, queued)) {
    c.buddy_first = buddy_.next();
    c.buddy_v = next->vruntime;
    c.V_before = V;
    return c;  // the buddy goes before curr's protection (§4.4 step 2)
  }
  if (!protection_.known() || !curr_before) return c;
  c.kept_past = protection_.kept_past_id(view_);
  c.window = protection_.describe();
  c.bound = protection_.bound();
  c.stash = protection_.stash();
  const ViewEntity* curr = view_.find(*curr_before);
  if (!c.curr_protected || !curr || queued < 2) return c;
  // An unknown buddy under PICK_BUDDY might go first.
  if (!buddy_.known() && params_.preset.has(Feature::PICK_BUDDY)) return c;
  c.must_keep_curr = view_.eligible(*curr, V);
  c.curr_v = curr->vruntime;
  c.curr_d = curr->deadline;
  c.V_before = V;
  return c;
}

// Layer 3 on the event's entity (or curr's, for the events about the running one).
void RunqueueChecker::judge_state(const trace::Event& e, const ViewEntity* before,
                                  const Exact& V_before, int64_t W_before) {
  if (shadow_)
    if (const auto differs = state_rules_.step(e, *shadow_)) stop_shadow(*differs);
  state_rules_.lag_sum(e, view_);
  state_rules_.kernel_sums(e, view_);
  const std::optional<EntityId> se = e.entity();
  const ViewEntity* after = se ? view_.find(*se) : (view_.curr ? view_.find(*view_.curr) : nullptr);
  if (!after) return;
  state_rules_.deadline(*after, view_);
  if (before && e.kind == EventKind::Wakeup && before->status == Status::Sleeping && e.V)
    state_rules_.place(*before, *after, *e.V, W_before, view_);
  if (before && e.kind == EventKind::Reweight && in_queue(*before))
    state_rules_.reweight(*before, *after, V_before, e.V ? *e.V : view_.V(), view_);
}

void RunqueueChecker::finish() {
  audit();
  service_.finish();
  if (lag_figures_) lag_figures_->finish();
  state_rules_.finish();
  if (!shadow_ && !window_)
    report_.notes.push_back(
        fmt::format("{}: {} was checked up to the point the shadow stopped", file_, ids::kInvStep));
}

}  // namespace vlag::checker
