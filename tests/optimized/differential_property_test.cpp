// SPEC.md §7: the optimized runqueue and the reference in Linux integer arithmetic make identical
// picks and reach bit-identical state after every operation, for every Linux preset (rejected
// operations included: both must reject). Case counts from RC_PARAMS, as for all properties.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "optimized/differential.h"
#include "tests/support/op_gen.h"
#include "tests/support/preset_properties.h"

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
  int picks = 0, migrations = 0;
  for (const Op& op : ops) {
    const bool sleeping =
        op.kind == OpKind::Detach && ref.has(op.se) && ref.entity(op.se).status == Status::Sleeping;
    if (const auto diff = differential_step(ref, opt, op)) RC_FAIL(setup.preset + ": " + *diff);
    picks += op.kind == OpKind::Pick;
    migrations += sleeping;
  }
  RC_CLASSIFY(ref.nr_queued() >= 6, "6+ queued at the end");
  RC_CLASSIFY(picks >= 10, "10+ picks");
  RC_CLASSIFY(migrations > 0, "a detach-attach round trip");
}

// Migration between two CPUs (SPEC.md §4.13): tasks start on two runqueue pairs, operations go to
// the pair holding the task they name (or to a random pair), and a Detach of a sleeping task
// moves it to the other pair. The migrants must agree bit for bit, and so must both pairs after
// the attach and every later step.
void migration_matches_linux_reference(const std::string& preset) {
  const auto setup = *testing::gen_setup({preset}, 12);
  const Params params = make_params(preset_by_name(setup.preset));
  reference::LinuxRunqueue ref[2] = {reference::LinuxRunqueue(params),
                                     reference::LinuxRunqueue(params)};
  Runqueue opt[2] = {Runqueue(params), Runqueue(params)};
  const int n = static_cast<int>(setup.tasks.size());
  for (int i = 0; i < n; ++i) {
    const auto [w, r] = setup.tasks[static_cast<size_t>(i)];
    ref[i % 2].create(i + 1, w, r);
    opt[i % 2].create(i + 1, w, r);
  }
  const auto ops = *testing::gen_busy_ops(n);
  int moved = 0;
  for (const Op& op : ops) {
    const bool named = op.kind != OpKind::Pick && op.kind != OpKind::Run &&
                       op.kind != OpKind::Tick && op.kind != OpKind::Yield;
    const int cpu = named ? (ref[1].has(op.se) ? 1 : 0) : *rc::gen::inRange(0, 2);
    if (op.kind == OpKind::Detach) {
      const auto mr = ref[cpu].detach(op.se);
      const auto mo = opt[cpu].detach(op.se);
      RC_ASSERT(mr.has_value() == mo.has_value());
      if (!mr) continue;
      RC_ASSERT(mr->se == mo->se && mr->weight == mo->weight && mr->slice == mo->slice &&
                mr->custom_slice == mo->custom_slice && mr->vlag == mo->vlag);
      RC_ASSERT(ref[1 - cpu].attach(*mr));
      RC_ASSERT(opt[1 - cpu].attach(*mo));
      ++moved;
      for (int k = 0; k < 2; ++k)
        if (const auto diff = state_difference(ref[k], opt[k]))
          RC_FAIL(setup.preset + ": after moving task " + std::to_string(op.se) + ": " + *diff);
      continue;
    }
    if (const auto diff = differential_step(ref[cpu], opt[cpu], op))
      RC_FAIL(setup.preset + " CPU " + std::to_string(cpu) + ": " + *diff);
  }
  RC_CLASSIFY(moved > 0, "1+ migrations");
  RC_CLASSIFY(moved >= 3, "3+ migrations");
}

// One property per Linux preset of the table (tests/support/preset_properties.h).
[[maybe_unused]] const bool kRegistered =
    testing::register_preset_properties("DifferentialProperties",
                                        "MigrationMatchesLinuxReferenceBitForBit",
                                        PresetFamily::Linux, migration_matches_linux_reference) &&
    testing::register_preset_properties("DifferentialProperties",
                                        "OptimizedMatchesLinuxReferenceBitForBit",
                                        PresetFamily::Linux, optimized_matches_linux_reference);

}  // namespace
}  // namespace vlag::optimized
