// SPEC.md §7: the optimized runqueue and the reference in Linux integer arithmetic make identical
// picks and reach bit-identical state after every operation, for every Linux preset (rejected
// operations included: both must reject). Case counts from RC_PARAMS, as for all properties.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "op_gen.h"
#include "optimized/differential.h"

namespace vlag::optimized {
namespace {

void optimized_matches_linux_reference(const std::string& preset) {
  const auto setup = *testing::gen_setup({preset}, 12);
  const Params params = make_params(preset_by_name(setup.preset));
  reference::LinuxRunqueue ref(params);
  Runqueue opt(params);
  testing::create_tasks(ref, setup);
  testing::create_tasks(opt, setup);
  const auto ops = *testing::gen_busy_ops(static_cast<int>(setup.tasks.size()));
  int picks = 0;
  for (const Op& op : ops) {
    if (const auto diff = differential_step(ref, opt, op)) RC_FAIL(setup.preset + ": " + *diff);
    picks += op.kind == OpKind::Pick;
  }
  RC_CLASSIFY(ref.nr_queued() >= 6, "6+ queued at the end");
  RC_CLASSIFY(picks >= 10, "10+ picks");
}

// One property per Linux preset, so that RC_PARAMS="max_success=N" means N cases per preset.
RC_GTEST_PROP(DifferentialProperties, OptimizedMatchesLinuxReferenceBitForBit_6_18, ()) {
  optimized_matches_linux_reference("linux-6.18");
}
RC_GTEST_PROP(DifferentialProperties, OptimizedMatchesLinuxReferenceBitForBit_6_12, ()) {
  optimized_matches_linux_reference("linux-6.12");
}
RC_GTEST_PROP(DifferentialProperties, OptimizedMatchesLinuxReferenceBitForBit_6_6, ()) {
  optimized_matches_linux_reference("linux-6.6");
}

}  // namespace
}  // namespace vlag::optimized
