// `vlag check` on one runqueue's history, layer by layer (SPEC.md §6, spec/TRACE.md §4); the
// trace's checker (checker/checker.h) runs one per runqueue. This class orchestrates one event:
// its preconditions (checker/validation.h), the shadow
// reference that executes the same operations in the trace's arithmetic (checker/shadow.h), the
// view it rebuilds (checker/view_update.h), then the layers that judge it:
//   1. service (checker/service.h): wakeup latency, starvation, whether the system is steady;
//      and the lag theorems at each pick on EEVDF's lag (checker/lag_figures.h);
//   2. decisions (checker/decisions.h): every pick on the trace's own numbers and against the
//      shadow;
//   3. state (checker/state_rules.h), when events carry it: V and W against the entities,
//      deadlines, placements, reweights, saved lags, the 64-bit margins, and every reported field
//      against the shadow — within SPEC.md §7.3's bounds on a Linux-arithmetic trace.
// Memory is proportional to the live tasks. Violations carry an SMT-LIB witness
// (checker/witness.h) for the Z3 arbiter; windows and Z3 work happen after the pass
// (checker/run.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "checker/buddy.h"
#include "checker/decisions.h"
#include "checker/findings.h"
#include "checker/lag_figures.h"
#include "checker/level_facts.h"
#include "checker/protection.h"
#include "checker/report.h"
#include "checker/service.h"
#include "checker/shadow.h"
#include "checker/state_rules.h"
#include "checker/view.h"
#include "checker/view_update.h"
#include "trace/event.h"

namespace vlag::checker {

class RunqueueChecker {
 public:
  /// Checks runqueue `rq` of the trace into `report`.
  RunqueueChecker(const trace::Header& header, std::string file, RunqueueId rq, Report& report);
  RunqueueChecker(const RunqueueChecker&) = delete;  // the layers hold references to its members
  RunqueueChecker& operator=(const RunqueueChecker&) = delete;

  /// Checks one event of this runqueue and applies it; `index` is its 0-based position among
  /// the trace's events. Throws trace::InputError for a trace fault (the event is then not
  /// applied; the caller may skip it under --keep-going).
  void consume(const trace::Event& e, int64_t line, int64_t index);
  void finish();

  /// The state at this point as `entity` lines: the start of a replayable window.
  std::vector<trace::Event> snapshot() const { return view_.snapshot(now_, rq_); }
  /// The events of this runqueue applied so far.
  int64_t events() const { return index_; }
  /// The runqueue as the events so far describe it.
  const View& view() const { return view_; }
  /// What the hierarchy's rules read of it: |Q| and W, and one entity's status and weight.
  LevelFacts level() const { return {view_.queued(), view_.W()}; }
  std::optional<MemberFacts> member(EntityId se) const {
    const ViewEntity* e = view_.find(se);
    return e ? std::optional<MemberFacts>(MemberFacts{e->status, e->weight}) : std::nullopt;
  }

 private:
  void advance_to(int64_t t);
  void run(int64_t delta);
  void apply_shadow(const trace::Event& e);
  void stop_shadow(std::string_view what);
  PickContext pick_context(const trace::Event& e, std::optional<EntityId> curr_before) const;
  // Events between two audits per entity of the view: an audit costs some microseconds an
  // entity in exact numbers, so 64 events an entity keep it near 1 % of the check.
  static constexpr int64_t kAuditEventsPerEntity = 64;
  void audit();
  void judge_state(const trace::Event& e, const ViewEntity* before, const Exact& V_before,
                   int64_t W_before);

  Params params_;
  RunqueueId rq_;
  bool window_;
  std::string file_;
  Report& report_;
  Findings findings_;
  View view_;
  ViewUpdate view_update_;
  ServiceLayer service_;
  Decisions decisions_;
  ProtectionTracker protection_;           // curr's protection window, from the events alone
  BuddyTracker buddy_;                     // the next buddy, from the events alone
  std::optional<LagFigures> lag_figures_;  // none on a kernel reconstruction: its lags are ours
  StateRules state_rules_;
  std::optional<Shadow> shadow_;  // alive while the trace follows the spec's steps
  ViewEntity before_;             // consume(): the named entity before the event
  Exact V_before_;                // consume(): V before a sleep, dequeue or reweight
  int64_t now_ = 0;
  int64_t index_ = 0;
  int64_t line_ = 0;
  int64_t until_audit_ = View::kAuditPeriod;  // events before the next audit()
};

}  // namespace vlag::checker
