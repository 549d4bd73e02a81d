// SPEC.md §7: the optimized runqueue and the reference in Linux integer arithmetic make identical
// picks and reach bit-identical state after every operation, for every Linux preset (rejected
// operations included: both must reject). Case counts from RC_PARAMS, as for all properties.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "op_gen.h"
#include "optimized/differential.h"

namespace vlag::optimized {
namespace {

RC_GTEST_PROP(DifferentialProperties, OptimizedMatchesLinuxReferenceBitForBit, ()) {
  const auto setup = *testing::gen_setup(testing::linux_presets(), 12);
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

}  // namespace
}  // namespace vlag::optimized
