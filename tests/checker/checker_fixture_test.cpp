// One hand-made trace per SPEC.md ID with one planted fault (tests/fixtures/): each is caught
// with its ID at the planted line, Z3 confirms the witness (in process and as `z3 FILE`), and
// the replayable window, checked on its own, shows the same ID again.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checker/run.h"
#include "spec/properties.h"
#include "tests/support/planted_faults.h"

namespace vlag::checker {
namespace {

using testing::Planted;

std::string run_z3(const std::string& path) {
  std::string out;
  FILE* p = popen(("z3 '" + path + "' 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

class PlantedFault : public ::testing::TestWithParam<Planted> {};

TEST_P(PlantedFault, IsCaughtWithItsIdAndConfirmedByZ3) {
  const Planted& planted = GetParam();
  const char* file = property(planted.id).fixture;
  ASSERT_NE(file, nullptr) << planted.id << " has no fixture in spec/properties.h";
  const std::filesystem::path evidence =
      std::filesystem::temp_directory_path() / ("vlag-fixture-" + std::string(planted.id));
  std::filesystem::remove_all(evidence);
  CheckOptions options;
  options.evidence_dir = evidence.string();
  options.max_evidence = 10;
  const Report r = check({file_source(std::string(VLAG_FIXTURES) + "/" + file)}, options);

  const Violation* found = nullptr;
  for (const auto& v : r.violations)
    if (v.id == planted.id && v.line == planted.line) found = &v;
  ASSERT_NE(found, nullptr) << file << " shows no " << planted.id << " at line " << planted.line;
  EXPECT_EQ(found->z3_sat, std::optional<bool>(true));
  ASSERT_FALSE(found->smt_file.empty());
  EXPECT_EQ(run_z3(found->smt_file).rfind("sat\n", 0), 0u) << found->smt_file;
  for (const auto& v : r.violations) EXPECT_EQ(v.z3_sat, std::optional<bool>(true)) << v.id;

  if (found->window_file.empty()) {
    EXPECT_FALSE(property(planted.id).judged.windowed) << found->window_note;
    return;
  }
  CheckOptions quiet;
  quiet.arbiter = false;
  const Report again = check({file_source(found->window_file)}, quiet);
  bool reproduced = false;
  for (const auto& v : again.violations) reproduced |= v.id == planted.id;
  EXPECT_TRUE(reproduced) << found->window_file;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PlantedFault, ::testing::ValuesIn(testing::kPlanted),
                         [](const auto& info) {
                           std::string name = info.param.id;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace vlag::checker
