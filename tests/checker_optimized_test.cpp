// Traces the optimized runqueue writes in Linux integer arithmetic (SPEC.md §7) pass the checker:
// random operation sequences for every Linux preset, judged on the trace's own integers.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "op_gen.h"
#include "optimized/runqueue.h"
#include "trace_helpers.h"

namespace vlag::checker {
namespace {

// SPEC.md §7.3: §6's invariants hold in Linux arithmetic within rounding bounds, and the checker
// states five of them as exact equalities or exact limits, so they cannot hold for integer traces
// and are left out here (the checker itself stays exact):
// - INV-STEP compares every field with a shadow reference in exact arithmetic, whose times start
//   at 0 where Linux's start at −2^20 (§7.1), and whose vruntimes are never rounded;
// - INV-PLACE-LAG: place_entity inflates vl by (W + w)/W with div_s64 (truncation) and V is
//   floored, so V − v after a wakeup misses the saved lag by a few units;
// - INV-REWEIGHT: reweight_entity rescales with div_s64 and V is floored, so V and w·(V − v)
//   move by rounding;
// - INV-DEADLINE: d − v = calc_delta_fair(r, w), which can exceed r·N/w by up to 1 + r/2^20
//   (the vdelta lemma), so (d − v)·w/N can exceed the request ρ = r;
// - INV-LAG-CLAMP: Linux clamps to its own calc_delta_fair(max(2r, TICK), w), which can exceed
//   the exact limit the checker uses by the same margin.
// INV-LAG-SUM is judged in its integer form (−W < Σ w_i·(V − v_i) ≤ 0, §7.1), and the pick rules,
// INV-DELAY and INV-S64-MARGIN compare integers exactly.
bool judged(const std::string& id) {
  static const std::set<std::string> excluded = {"INV-STEP", "INV-PLACE-LAG", "INV-REWEIGHT",
                                                 "INV-DEADLINE", "INV-LAG-CLAMP"};
  return id.rfind("INV-", 0) == 0 && !excluded.contains(id);
}

void optimized_traces_hold(const std::string& preset) {
  const auto setup = *testing::gen_setup({preset}, 6);
  const auto ops = *testing::gen_busy_ops(static_cast<int>(setup.tasks.size()));
  const std::string text = testing::runqueue_trace<optimized::Runqueue>(
      make_params(preset_by_name(preset)), setup.tasks, ops);
  const Report r = testing::check_text(text);
  RC_ASSERT(r.problem_count == 0);
  for (const auto& [id, st] : r.stats)
    if (judged(id) && st.violated > 0) RC_FAIL(id + ": " + st.worst + "\n" + text);
  RC_CLASSIFY(r.events > 200, "200+ events");
  const auto edf = r.stats.find("INV-PICK-EDF");
  RC_CLASSIFY(edf != r.stats.end() && edf->second.checked >= 10, "10+ picks judged");
}

// One property per Linux preset, so that RC_PARAMS="max_success=N" means N cases per preset.
RC_GTEST_PROP(CheckerOnOptimized, LinuxTracesHoldEveryPromisedInvariant_6_18, ()) {
  optimized_traces_hold("linux-6.18");
}
RC_GTEST_PROP(CheckerOnOptimized, LinuxTracesHoldEveryPromisedInvariant_6_12, ()) {
  optimized_traces_hold("linux-6.12");
}
RC_GTEST_PROP(CheckerOnOptimized, LinuxTracesHoldEveryPromisedInvariant_6_6, ()) {
  optimized_traces_hold("linux-6.6");
}

}  // namespace
}  // namespace vlag::checker
