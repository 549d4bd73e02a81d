// Per-preset rapidcheck properties registered from the preset table (spec/features.h kPresets):
// one Google Test per preset of a family, named Suite.Name_<preset> (6_18 for linux-6.18,
// paper_1 for paper-1), so that RC_PARAMS="max_success=N" means N cases per preset and a new
// row of the table gets the property without an edit here.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cctype>
#include <functional>
#include <string>
#include <utility>

#include "spec/features.h"

namespace vlag::testing {

/// The preset's part of a test name: "linux-6.18" → "6_18", "paper-1" → "paper_1".
inline std::string preset_test_suffix(std::string_view preset) {
  if (preset.starts_with("linux-")) preset.remove_prefix(6);
  std::string s(preset);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

/// Registers `property(preset)` for every preset of the family; returns true, for a namespace-
/// scope `const bool` that runs it before main.
inline bool register_preset_properties(const char* suite, const std::string& name,
                                       PresetFamily family,
                                       std::function<void(const std::string&)> property) {
  class PresetProperty : public ::testing::Test {
   public:
    PresetProperty(std::function<void(const std::string&)> p, std::string preset)
        : property_(std::move(p)), preset_(std::move(preset)) {}
    void TestBody() override {
      rc::detail::checkGTest([this] { property_(preset_); });
    }

   private:
    std::function<void(const std::string&)> property_;
    std::string preset_;
  };
  for (const std::string& preset : presets_of(family))
    ::testing::RegisterTest(
        suite, (name + "_" + preset_test_suffix(preset)).c_str(), nullptr, nullptr, __FILE__,
        __LINE__, [=]() -> ::testing::Test* { return new PresetProperty(property, preset); });
  return true;
}

}  // namespace vlag::testing
