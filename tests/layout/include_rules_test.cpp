// The include rule of README "Layout", written once as the table below and held against the
// source tree (Layout.IncludesFollowTheFloors); the checker itself is tested on small planted
// trees, so that a breach is shown to fail (IncludeRules.*).
#include "tests/layout/include_rules.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace vlag::testing {
namespace {

namespace fs = std::filesystem;

// The floors, lowest first: a folder includes itself and the folders of its row, nothing else.
IncludeRules vlag_rules() {
  IncludeRules r;
  // ground: the model's vocabulary, its rules, the JSON writer, percentiles
  const std::vector<std::string> ground = {"spec", "rules", "json", "stats"};
  const auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), ground.begin(), ground.end());
    return more;
  };
  r.folders = {
      {"spec", {}},
      {"rules", {"spec"}},
      {"json", {"spec"}},
      {"stats", {"spec"}},
      // the runqueues
      {"reference", with({})},
      {"optimized", with({"reference"})},
      {"cfs", with({"reference"})},
      // the trace format: the TraceObserver is a template over spec/'s number types, so a
      // runqueue's trace needs no runqueue type, and readers of traces pull in no runqueue
      {"trace", with({})},
      {"smt", with({"reference", "trace"})},
      {"checker", with({"reference", "optimized", "cfs", "trace", "smt"})},
      {"kernel", with({"reference", "trace", "checker"})},
      // workloads drive runqueues and write traces; they never judge them
      {"sim", with({"reference", "optimized", "cfs", "trace"})},
      // a real capture's tasks on the simulator: above both, so neither depends on the other
      {"replay", with({"kernel", "sim", "trace"})},
      {"compare", with({"sim", "trace"})},
      {"prove", with({"smt", "reference", "trace"})},
      {"cli", {"*"}},
      {"fuzz", {"*"}},
      {"bench", {"*"}},
      {"tests", {"*"}},
  };
  // Z3's C++ header, named in two parts so that a search of the tree for it finds smt/ alone.
  r.homed_header = std::string("z3") + "++.h";
  r.header_home = "smt";
  r.see_other_details = {"tests"};
  return r;
}

TEST(Layout, IncludesFollowTheFloors) {
  const std::vector<std::string> breaches = check_includes(VLAG_SOURCE_DIR, vlag_rules());
  for (const auto& b : breaches) ADD_FAILURE() << b;
  EXPECT_TRUE(breaches.empty());
}

// A throwaway tree of files (path → text) under a name unique to the test and the process.
class PlantedTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("vlag-include-rules-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
             std::to_string(getpid()));
    fs::remove_all(root_);
    // A tree that keeps the rules, including the known breach of the rules below.
    write("spec/ops.h", "#pragma once\n#include <cstdint>\n");
    write("reference/runqueue.h", "#include \"spec/ops.h\"\n");
    write("smt/engine.h", "#include \"spec/ops.h\"\n");
    write("smt/engine.cpp", "#include \"smt/engine.h\"\n#include <solver.h>\n");
    write("smt/detail/step.h", "#include <solver.h>\n#include \"reference/runqueue.h\"\n");
    write("checker/checker.cpp", "#include \"smt/engine.h\"\n#include \"sim/old.h\"\n");
    write("sim/old.h", "#include \"reference/runqueue.h\"\n");
    write("tests/step_test.cpp", "#include \"smt/detail/step.h\"\n");
    write("build/CMakeFiles/id.cpp", "#include \"cli/anything.h\"\n");  // a build tree
    write("build/CMakeCache.txt", "");
    write(".cache/x.cpp", "#include \"cli/anything.h\"\n");  // hidden
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }

  static IncludeRules rules() {
    IncludeRules r;
    r.folders = {{"spec", {}},
                 {"reference", {"spec"}},
                 {"smt", {"spec", "reference"}},
                 {"checker", {"spec", "reference", "smt"}},
                 {"sim", {"spec", "reference"}},
                 {"tests", {"*"}}};
    r.homed_header = "solver.h";
    r.header_home = "smt";
    r.see_other_details = {"tests"};
    r.known = {{"checker/checker.cpp", "sim/old.h"}};
    return r;
  }

  std::vector<std::string> check() const { return check_includes(root_, rules()); }

  fs::path root_;
};

using Lines = std::vector<std::string>;

TEST_F(PlantedTree, KeptRulesGiveNoBreach) { EXPECT_EQ(check(), Lines{}); }

TEST_F(PlantedTree, BackwardsIncludeFails) {
  write("spec/features.h", "// the vocabulary\n#include \"checker/checker.h\"\n");
  EXPECT_EQ(
      check(),
      Lines{"spec/features.h:2: includes \"checker/checker.h\": spec/ may include spec/ only"});
}

TEST_F(PlantedTree, IncludeAcrossPeersFails) {
  write("sim/machine.cpp", "#include \"checker/checker.h\"\n");
  EXPECT_EQ(check(), Lines{"sim/machine.cpp:1: includes \"checker/checker.h\": sim/ may include "
                           "sim/, spec/, reference/ only"});
}

TEST_F(PlantedTree, HomedHeaderOutsideItsHomeFails) {
  write("checker/arbiter.cpp", "#include <solver.h>\n");
  write("smt/arbiter.h", "#pragma once\n#include \"solver.h\"\n");  // a public header
  const std::string why =
      "solver.h belongs to smt/ sources and smt/detail/ only (its public headers are free of it)";
  EXPECT_EQ(check(), (Lines{"checker/arbiter.cpp:1: includes <solver.h>: " + why,
                            "smt/arbiter.h:2: includes \"solver.h\": " + why}));
}

TEST_F(PlantedTree, AnotherFoldersDetailFails) {
  write("checker/view.cpp", "#include \"smt/detail/step.h\"\n");
  EXPECT_EQ(check(), Lines{"checker/view.cpp:1: includes \"smt/detail/step.h\": smt/detail/ is "
                           "private to smt/"});
}

TEST_F(PlantedTree, UnplacedFolderAndRelativeIncludeFail) {
  write("kernel/import.cpp", "#include \"spec/ops.h\"\n");
  write("reference/arith.cpp", "#include \"arith.h\"\n#include \"kernel/import.h\"\n");
  EXPECT_EQ(
      check(),
      (Lines{"kernel/import.cpp: kernel/ has no row in the include rules (place it on a floor)",
             "reference/arith.cpp:1: includes \"arith.h\": name a header by its path from "
             "the repository root",
             "reference/arith.cpp:2: includes \"kernel/import.h\": kernel/ has no row in "
             "the include rules"}));
}

TEST_F(PlantedTree, KnownBreachThatNoLongerOccursFails) {
  write("checker/checker.cpp", "#include \"smt/engine.h\"\n");
  EXPECT_EQ(check(), Lines{"checker/checker.cpp: the known breach of including \"sim/old.h\" no "
                           "longer occurs: remove it from the list"});
}

// vlag's own table, not only the mechanism: Z3 outside smt/ and a simulator that judges.
TEST_F(PlantedTree, VlagRulesCatchZ3OutsideSmtAndASimulatorThatJudges) {
  fs::remove_all(root_);
  IncludeRules r = vlag_rules();
  r.known.clear();
  write("checker/arbiter.cpp", "#include <" + r.homed_header + ">\n");
  write("sim/machine.cpp", "#include \"sim/cpu.h\"\n#include \"checker/run.h\"\n");
  EXPECT_EQ(check_includes(root_, r),
            (Lines{"checker/arbiter.cpp:1: includes <" + r.homed_header + ">: " + r.homed_header +
                       " belongs to smt/ sources and smt/detail/ only (its public headers are "
                       "free of it)",
                   "sim/machine.cpp:2: includes \"checker/run.h\": sim/ may include sim/, spec/, "
                   "rules/, json/, stats/, reference/, optimized/, cfs/, trace/ only"}));
}

}  // namespace
}  // namespace vlag::testing
