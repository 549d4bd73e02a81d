// rules/protection.h worked by hand (SPEC.md §4.5, §4.6): the bound each preset arms, and what a
// wakeup-preemption decision does to it.
#include "rules/protection.h"

#include <gtest/gtest.h>

#include "rules/invariants.h"

namespace vlag::rules {
namespace {

Exact vd(int64_t ns, int64_t w) { return exact_vdelta(ns, w); }

Params params(const char* preset, const char* features = "") {
  Preset p = preset_by_name(preset);
  apply_feature_overrides(p, features);
  return make_params(p);
}

TEST(ProtectionRules, ArmedBoundFollowsEachPresetsFormula) {
  const CurrState c{Exact(1000), Exact(351'000), 700'000, 1024};
  // stash: the deadline, under RUN_TO_PARITY only.
  EXPECT_EQ(armed_bound(params("linux-6.12"), c, 100'000, vd), ProtectionBound(Exact(351'000)));
  EXPECT_EQ(armed_bound(params("linux-6.12", "-RUN_TO_PARITY"), c, 100'000, vd), std::nullopt);
  // vprot: min(d, v + vdelta(min(minslice, r))); the deadline when the quantum is curr's slice.
  EXPECT_EQ(armed_bound(params("linux-6.18"), c, 100'000, vd), ProtectionBound(Exact(101'000)));
  EXPECT_EQ(armed_bound(params("linux-6.18"), c, 700'000, vd), ProtectionBound(Exact(351'000)));
  const CurrState heavy{Exact(0), Exact(700'000), 700'000, 2048};
  EXPECT_EQ(armed_bound(params("linux-6.18"), heavy, 100'000, vd), ProtectionBound(Exact(50'000)));
  // Without RUN_TO_PARITY vprot protects one normalized base slice, 0.7 ms, capped by d.
  const CurrState long_slice{Exact(0), Exact(2'000'000), 3'000'000, 1024};
  EXPECT_EQ(armed_bound(params("linux-6.18", "-RUN_TO_PARITY"), long_slice, 100'000, vd),
            ProtectionBound(Exact(700'000)));
  EXPECT_EQ(armed_bound(params("paper-1"), c, 100'000, vd), std::nullopt);
}

TEST(ProtectionRules, ProtectsReadsTheBoundAsEachGenerationDoes) {
  const Preset stash = preset_by_name("linux-6.12"), vprot = preset_by_name("linux-6.18");
  EXPECT_TRUE(protects(stash, Exact(5), Exact(100), Exact(5)));
  EXPECT_FALSE(protects(stash, Exact(5), Exact(0), Exact(6)));  // the deadline moved on
  EXPECT_TRUE(protects(vprot, Exact(5), Exact(4), Exact(100)));
  EXPECT_FALSE(protects(vprot, Exact(5), Exact(5), Exact(100)));
  EXPECT_FALSE(protects(vprot, std::nullopt, Exact(0), Exact(100)));
}

TEST(ProtectionRules, WakeupsCancelAndShrinkAsSection46Says) {
  const Preset v1 = preset_by_name("linux-6.12"), v2 = preset_by_name("linux-6.18");
  const CurrState c{Exact(100'000), Exact(350'000), 700'000, 1024};
  const WakeeState shorter{100'000, Exact(150'000), true}, longer{700'000, Exact(150'000), true};
  EXPECT_EQ(wakeup_effect(v1, false, shorter, c, true, true), WakeupEffect::Cancel);
  EXPECT_EQ(wakeup_effect(v1, false, shorter, c, true, false), WakeupEffect::None);
  EXPECT_EQ(wakeup_effect(v1, true, longer, c, true, true), WakeupEffect::None);
  EXPECT_EQ(wakeup_effect(v2, true, shorter, c, true, true), WakeupEffect::Cancel);
  EXPECT_EQ(wakeup_effect(v2, false, shorter, c, true, true), WakeupEffect::Shrink);
  EXPECT_EQ(wakeup_effect(v2, true, longer, c, true, true), WakeupEffect::None);
  Preset quiet = v2;
  quiet.set(Feature::WAKEUP_PREEMPTION, false);
  EXPECT_EQ(wakeup_effect(quiet, false, shorter, c, true, true), WakeupEffect::None);

  EXPECT_EQ(after_wakeup(v2, Exact(350'000), WakeupEffect::Cancel, c, 100'000, vd),
            ProtectionBound(Exact(100'000)));
  EXPECT_EQ(after_wakeup(v1, Exact(350'000), WakeupEffect::Cancel, c, 100'000, vd), std::nullopt);
  EXPECT_EQ(after_wakeup(v2, Exact(350'000), WakeupEffect::Shrink, c, 100'000, vd),
            ProtectionBound(Exact(200'000)));
  EXPECT_EQ(after_wakeup(v2, Exact(150'000), WakeupEffect::Shrink, c, 100'000, vd),
            ProtectionBound(Exact(150'000)));
}

}  // namespace
}  // namespace vlag::rules
