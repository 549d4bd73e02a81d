// Layer 3 of `vlag check` (SPEC.md §6, spec/TRACE.md §4): the state the events carry, judged on
// the view with the rules of rules/invariants.h — INV-LAG-SUM, INV-DEADLINE, INV-PLACE-LAG,
// INV-REWEIGHT, INV-LAG-CLAMP, the 64-bit margins of Linux's sums (INV-S64-MARGIN) and the
// kernel's own sums where the trace reports them (INV-KERNEL-SUMS) — within
// SPEC.md §7.3's bounds on a trace in Linux arithmetic (checker/rounding.h), and every field an
// event reports against the shadow reference (INV-STEP).
#pragma once

#include <optional>
#include <string>

#include "checker/deadline_range.h"
#include "checker/findings.h"
#include "checker/rounding.h"
#include "checker/shadow.h"
#include "checker/view.h"

namespace vlag::checker {

class StateRules {
 public:
  StateRules(const Params& params, Arith arith, Findings& findings)
      : params_(params), rounding_(params, arith), deadline_ranges_(rounding_), out_(findings) {}

  /// INV-STEP: the fields `e` reports (of its entity, V, W) against the shadow's. Returns what
  /// differs first ("field 'v'"), after which the shadow no longer stands for the trace.
  std::optional<std::string> step(const trace::Event& e, const Shadow& shadow);
  /// INV-LAG-SUM with the V and W the event reports.
  void lag_sum(const trace::Event& e, const View& view);
  /// INV-DEADLINE of a queued entity whose request is known.
  void deadline(const ViewEntity& v, const View& view);
  /// INV-PLACE-LAG after a wakeup from sleep, with the V the event reports.
  void place(const ViewEntity& before, const ViewEntity& after, const Exact& V_after,
             int64_t W_before, const View& view);
  /// INV-REWEIGHT of a queued entity.
  void reweight(const ViewEntity& before, const ViewEntity& after, const Exact& V_before,
                const Exact& V_after, const View& view);
  /// INV-LAG-CLAMP of a lag just saved; from_delayed: by a completed delayed dequeue.
  void saved_lag(const ViewEntity& v, bool from_delayed, const View& view);
  /// INV-S64-MARGIN at a pick.
  void s64_margins(const View& view);
  /// INV-KERNEL-SUMS with the sums (and V) the event reports, where the view knows every
  /// queued entity: the event reports no `nr`, or the view's count.
  void kernel_sums(const trace::Event& e, const View& view);
  /// The note on the events whose sums were not judged.
  void finish();
  /// The O(1) forms of INV-LAG-SUM's and INV-KERNEL-SUMS's sums against the rules' walks over
  /// the view (rules/invariants.h); throws CheckerBug when they differ.
  void audit(const View& view) const;

 private:
  bool s64_margins_hold(const View& view);

  const Params& params_;
  Rounding rounding_;
  DeadlineRanges deadline_ranges_;
  int64_t deadlines_by_range_ = 0;  // INV-DEADLINE checks its integer form decided
  Findings& out_;
  int64_t sums_unjudged_ = 0;  // INV-KERNEL-SUMS: events whose queued set was not known
  int64_t sums_unjudged_line_ = 0;
};

}  // namespace vlag::checker
