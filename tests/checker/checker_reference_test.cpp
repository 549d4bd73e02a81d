// Traces the reference writes pass every invariant the preset promises (SPEC.md §6): over
// random operation sequences for every preset, and for the demo workload.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <regex>

#include "spec/properties.h"
#include "tests/support/op_gen.h"
#include "tests/support/trace_helpers.h"

namespace vlag::checker {
namespace {

using testing::check_text;

std::string first_violation(const Report& r, bool invariants_only = false) {
  for (const auto& v : r.violations)
    if (!invariants_only || v.id.rfind("INV-", 0) == 0) return v.id + ": " + v.detail;
  return "";
}

// Random operation sequences are runqueue steps without a driver: nothing enforces the paper
// quantum or a steady system, so only the INV-* properties (layers 2 and 3) are promised here;
// the THM-* figures are exercised by the driver-made traces below.
RC_GTEST_PROP(CheckerProperties, ReferenceTracesHoldEveryPromisedInvariant, ()) {
  const auto preset = *rc::gen::elementOf(testing::all_presets());
  const auto tasks = *rc::gen::container<std::vector<std::pair<int64_t, int64_t>>>(
      *rc::gen::inRange<size_t>(1, 6), rc::gen::pair(testing::gen_weight(), testing::gen_slice()));
  const auto ops =
      *rc::gen::container<std::vector<Op>>(testing::gen_op(static_cast<int>(tasks.size())));
  const std::string text = testing::runqueue_trace(make_params(preset_by_name(preset)), tasks, ops);
  const Report r = check_text(text);
  RC_ASSERT(r.problem_count == 0);
  const std::string found = first_violation(r, true);
  if (!found.empty()) RC_FAIL(found + "\n" + text);
}

TEST(CheckerOnReference, DemoTracesHoldUnderEveryPreset) {
  for (const auto& preset : testing::all_presets()) {
    const Report r = check_text(testing::demo_trace(preset, 300'000'000));
    EXPECT_FALSE(r.violated()) << preset << ": " << first_violation(r);
    EXPECT_EQ(r.problem_count, 0) << preset;
    EXPECT_GT(r.stats.at("INV-PICK-EDF").checked, 100) << preset;
    EXPECT_GT(r.stats.at("INV-STEP").checked, 100) << preset;
    EXPECT_GT(r.stats.at("INV-LAG-SUM").checked, 100) << preset;
  }
}

// What a kernel tracepoint stream gives: no state fields and no run events, run time only from
// timestamps. The shadow reference still reproduces every pick.
TEST(CheckerOnReference, TimestampOnlyTracesHold) {
  static const std::regex state(R"re(,"w":.*\})re");
  for (const auto& preset : testing::all_presets()) {
    std::string bare;
    for (const auto& line : testing::lines_of(testing::demo_trace(preset, 200'000'000))) {
      if (line.find("\"ev\":\"run\"") != std::string::npos) continue;
      bare += std::regex_replace(line, state, "}") + "\n";
    }
    ASSERT_EQ(bare.find("\"v\":"), std::string::npos);
    const Report r = check_text(bare);
    EXPECT_FALSE(r.violated()) << preset << ": " << first_violation(r);
    EXPECT_GT(r.stats.at("INV-STEP").checked, 100) << preset;
  }
}

// THM-LAG-BOUND is a verdict for the paper preset in a steady system: CPU hogs only.
TEST(CheckerOnReference, PaperHogsKeepTheLagBound) {
  const std::vector<sim::DemoTask> hogs = {{"a", 0}, {"b", 3}, {"c", -2}};
  const Report r = check_text(testing::demo_trace("paper-1", 500'000'000, hogs));
  EXPECT_FALSE(r.violated()) << first_violation(r);
  EXPECT_TRUE(r.stats.at("THM-LAG-BOUND").verdict);
  EXPECT_GT(r.stats.at("THM-LAG-BOUND").checked, 100);
}

// FIG-STARVATION is a figure, never a verdict: the longest wait of a runnable task before it ran
// (task 2, woken at 0 behind task 1, runs at 9 ms; task 1 never waited).
TEST(CheckerService, StarvationIsTheLongestWaitAsAFigure) {
  const std::string text =
      R"({"format":"vlag-trace","version":1,"preset":"linux-6.6","cpus":1,"hz":250})"
      "\n"
      R"({"t":0,"ev":"new","task":1,"weight":1024,"slice":0})"
      "\n"
      R"({"t":0,"ev":"new","task":2,"weight":1024,"slice":0})"
      "\n"
      R"({"t":0,"ev":"wakeup","task":1})"
      "\n"
      R"({"t":0,"ev":"pick","task":1})"
      "\n"
      R"({"t":0,"ev":"wakeup","task":2})"
      "\n"
      R"({"t":9000000,"ev":"run","delta":9000000})"
      "\n"
      R"({"t":9000000,"ev":"pick","task":2})"
      "\n";
  const Report r = check_text(text);
  const InvariantStats& st = r.stats.at(ids::kFigStarvation);
  EXPECT_FALSE(st.verdict);
  EXPECT_EQ(st.checked, 2);
  EXPECT_EQ(st.violated, 0);
  EXPECT_EQ(st.worst, "task 2 waited 9.000 ms runnable without running");
}

}  // namespace
}  // namespace vlag::checker
