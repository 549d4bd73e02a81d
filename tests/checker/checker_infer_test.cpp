// Parameter inference (checker/infer.h): traces with their weights erased are consistent when
// the reference wrote them, and a trace whose picks no weights explain yields an unsat core
// naming those picks.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <regex>

#include "checker/infer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_helpers.h"

namespace vlag::checker {
namespace {

std::string erase_weights(const std::string& text) {
  static const std::regex weight(R"re("ev":"new","task":(\d+),"weight":\d+)re");
  return std::regex_replace(text, weight, R"("ev":"new","task":$1,"weight":null)");
}

RC_GTEST_PROP(InferProperties, HogTracesWithErasedWeightsAreConsistent, ()) {
  const auto preset = *rc::gen::element<std::string>("paper-1", "linux-6.6", "linux-6.18");
  const auto nices = *rc::gen::container<std::vector<int>>(*rc::gen::inRange<size_t>(2, 5),
                                                           rc::gen::inRange(-5, 6));
  std::vector<sim::DemoTask> hogs;
  for (size_t i = 0; i < nices.size(); ++i) hogs.push_back({"hog" + std::to_string(i), nices[i]});
  const std::string text = erase_weights(testing::demo_trace(preset, 60'000'000, hogs));
  RC_ASSERT(text.find("\"weight\":null") != std::string::npos);
  const Inference r = infer_weights(text_source("hogs", text), "");
  RC_ASSERT(r.picks > 10);
  RC_ASSERT(r.consistent);
}

TEST(Infer, FindsWeightsForAConsistentTrace) {
  const Inference r =
      infer_weights(file_source(std::string(VLAG_FIXTURES) + "/infer-consistent.jsonl"), "");
  EXPECT_TRUE(r.consistent);
  EXPECT_EQ(r.picks, 3);
  EXPECT_EQ(r.weights.size(), 2u);
}

TEST(Infer, NamesTheUnsatCoreOfAnInconsistentTrace) {
  const testing::TempDir tmp;
  const std::filesystem::path dir = tmp.path() + "/infer";
  const Inference r = infer_weights(
      file_source(std::string(VLAG_FIXTURES) + "/infer-inconsistent.jsonl"), dir.string());
  EXPECT_FALSE(r.consistent);
  // Line 6 (task 2 first at equal deadlines) needs w2 >= w1; line 10 (task 1 again after 3 ms
  // against task 2's 1 ms) needs w1 >= 3·w2.
  EXPECT_EQ(r.core_lines, (std::vector<int64_t>{6, 10}));
  EXPECT_TRUE(std::filesystem::exists(r.smt_file));
}

TEST(Infer, RejectsEventsOutsideItsScope) {
  const std::string text = testing::demo_trace("paper-1", 20'000'000);  // the periodic task sleeps
  EXPECT_THROW(infer_weights(text_source("demo", text), ""), trace::InputError);
}

}  // namespace
}  // namespace vlag::checker
