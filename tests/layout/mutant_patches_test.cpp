// scripts/mutants/*.patch are bugs planted into the shared §4 code to measure which invariant
// catches them (docs/verification-power.md). A patch that no longer applies measures nothing, and
// the runner stops at it: every patch must apply to the tree as it is (`git apply --check`), so a
// change to the code a mutant touches refreshes the mutant in the same commit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace vlag {
namespace {

TEST(Layout, EveryMutantPatchAppliesToTheTree) {
  const std::filesystem::path root = VLAG_SOURCE_DIR;
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root / "scripts" / "mutants")) {
    if (entry.path().extension() != ".patch") continue;
    ++n;
    const std::string command = "cd '" + root.string() + "' && git apply --check '" +
                                entry.path().string() + "' 2>/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << entry.path().filename() << " does not apply";
  }
  EXPECT_GE(n, 19u) << "scripts/mutants/ lost its patches";
}

}  // namespace
}  // namespace vlag
