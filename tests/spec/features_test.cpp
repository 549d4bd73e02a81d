#include "spec/features.h"

#include <gtest/gtest.h>

#include "spec/error.h"

namespace vlag {
namespace {

TEST(Presets, EveryNamedPresetLoads) {
  for (const auto& name : preset_names()) EXPECT_NO_THROW(preset_by_name(name)) << name;
  EXPECT_EQ(preset_names().front(), kDefaultPreset);
}

// The table (kPresets) is the one list: families, names with their aliases, the default first,
// each preset made under its own name, a help line for each.
TEST(Presets, ListsDeriveFromTheTable) {
  EXPECT_EQ(kDefaultPreset, kPresets[0].name);
  EXPECT_EQ(presets_of(),
            (std::vector<std::string>{"linux-6.18", "linux-mainline", "linux-6.18.y", "linux-6.12",
                                      "linux-6.6", "paper-1", "paper-2", "paper-3"}));
  EXPECT_EQ(presets_of(PresetFamily::Linux),
            (std::vector<std::string>{"linux-6.18", "linux-mainline", "linux-6.18.y", "linux-6.12",
                                      "linux-6.6"}));
  EXPECT_EQ(presets_of(PresetFamily::Paper),
            (std::vector<std::string>{"paper-1", "paper-2", "paper-3"}));
  EXPECT_EQ(preset_names(),
            (std::vector<std::string>{"linux-6.18", "linux-mainline", "linux-6.18.y", "linux-6.12",
                                      "linux-6.6", "paper", "paper-1", "paper-2", "paper-3"}));
  for (const PresetRow& row : kPresets) {
    EXPECT_EQ(row.make().name, row.name);
    EXPECT_EQ(preset_by_name(row.name).paper(), row.name.starts_with("paper")) << row.name;
    EXPECT_NE(preset_help().find(std::string(row.name) + " "), std::string::npos) << row.name;
  }
  EXPECT_EQ(preset_help(PresetFamily::Linux).find("paper"), std::string::npos);
}

TEST(Presets, UnknownNameIsAnErrorListingTheKnownOnes) {
  try {
    preset_by_name("linux-5.0");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("linux-6.18"), std::string::npos);
  }
}

TEST(Presets, VersionDifferencesFromSpecTable) {
  const Preset p66 = preset_by_name("linux-6.6"), p612 = preset_by_name("linux-6.12"),
               p618 = preset_by_name("linux-6.18"), paper = preset_by_name("paper");
  EXPECT_FALSE(p66.has(Feature::DELAY_DEQUEUE));
  EXPECT_TRUE(p612.has(Feature::DELAY_DEQUEUE));
  EXPECT_TRUE(p618.has(Feature::PICK_BUDDY));
  EXPECT_FALSE(p612.has(Feature::PICK_BUDDY));
  EXPECT_EQ(p66.base_slice_norm_ns, 750'000);
  EXPECT_EQ(p618.base_slice_norm_ns, 700'000);
  EXPECT_EQ(p618.protection, Protection::Vprot);
  EXPECT_EQ(p612.protection, Protection::Stash);
  EXPECT_EQ(paper.join, JoinRule::Paper);
  EXPECT_EQ(paper.clamp, LagClamp::None);
  EXPECT_FALSE(paper.has(Feature::WAKEUP_PREEMPTION));
  EXPECT_TRUE(preset_by_name("paper-3").has(Feature::DELAY_ZERO));
  EXPECT_FALSE(preset_by_name("paper-2").has(Feature::PLACE_LAG));
}

TEST(Presets, FeatureOverrides) {
  Preset p = preset_by_name("linux-6.18");
  apply_feature_overrides(p, "-RUN_TO_PARITY,NEXT_BUDDY,+PLACE_LAG");
  EXPECT_FALSE(p.has(Feature::RUN_TO_PARITY));
  EXPECT_TRUE(p.has(Feature::NEXT_BUDDY));
  EXPECT_TRUE(p.has(Feature::PLACE_LAG));
  EXPECT_THROW(apply_feature_overrides(p, "NO_SUCH"), Error);
}

TEST(Params, BaseSliceScalesWithLogOfCpusCappedAtEight) {
  const Preset p = preset_by_name("linux-6.18");
  EXPECT_EQ(make_params(p, 250, 1).base_slice_ns(), 700'000);
  EXPECT_EQ(make_params(p, 250, 2).base_slice_ns(), 1'400'000);  // the dev machines' 1.4 ms
  EXPECT_EQ(make_params(p, 250, 3).base_slice_ns(), 1'400'000);
  EXPECT_EQ(make_params(p, 250, 4).base_slice_ns(), 2'100'000);
  EXPECT_EQ(make_params(p, 250, 8).base_slice_ns(), 2'800'000);
  EXPECT_EQ(make_params(p, 250, 64).base_slice_ns(), 2'800'000);
}

// SPEC.md §9.1: the factor counts the CPUs the kernel saw, which a pinned run's ncpus is not;
// a hand-set b replaces b_norm × factor and leaves b_norm alone.
TEST(Params, KernelCpusAndAHandSetBaseSlice) {
  Params p = make_params(preset_by_name("linux-6.18"), 250, 1);
  set_base_slice_params(p, 2, 0);
  EXPECT_EQ(p.ncpus, 1);
  EXPECT_EQ(p.factor_cpus(), 2);
  EXPECT_EQ(p.base_slice_ns(), 1'400'000);  // one CPU of the 2-CPU development machine
  set_base_slice_params(p, 2, 3'000'000);
  EXPECT_EQ(p.base_slice_ns(), 3'000'000);
  EXPECT_EQ(p.base_slice_norm_ns(), 700'000);
  EXPECT_EQ(remake_params(p).base_slice_ns(), 3'000'000);  // kept when the Params are rebuilt
  EXPECT_THROW(set_base_slice_params(p, 5000, 0), Error);
  EXPECT_THROW(set_base_slice_params(p, 0, 99'999), Error);
  EXPECT_THROW(set_base_slice_params(p, 0, 100'000'001), Error);
}

TEST(Params, TickAndRanges) {
  const Preset p = preset_by_name("linux-6.18");
  EXPECT_EQ(make_params(p, 250).tick_ns(), 4'000'000);
  EXPECT_EQ(make_params(p, 300).tick_ns(), 3'333'333);
  EXPECT_EQ(make_params(p, 1000).tick_ns(), 1'000'000);
  EXPECT_THROW(make_params(p, 0), Error);
  EXPECT_THROW(make_params(p, 250, 0), Error);
}

}  // namespace
}  // namespace vlag
