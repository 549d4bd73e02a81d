// `vlag check` on a trace of several runqueues (spec/TRACE.md §7, checker/checker.h): each is
// judged on its own history, violations name their runqueue, and INV-KERNEL-SUMS (SPEC.md §6)
// compares the kernel's sums with the entities of the event's runqueue only.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "spec/properties.h"
#include "tests/support/trace_helpers.h"

namespace vlag::checker {
namespace {

// The fixture of INV-KERNEL-SUMS: a CPU's root runqueue 0 with task 1 and group entity 100, and
// the group's runqueue 1 with tasks 2 and 3; its line 17 plants sum_w 2048 for 1024.
std::vector<std::string> fixture_lines() {
  std::ifstream in(std::string(VLAG_FIXTURES) + "/" + property(ids::kInvKernelSums).fixture);
  std::stringstream text;
  text << in.rdbuf();
  return testing::lines_of(text.str());
}

std::string replaced(std::vector<std::string> lines, size_t line, const std::string& from,
                     const std::string& to) {
  std::string& l = lines.at(line - 1);
  const size_t at = l.find(from);
  EXPECT_NE(at, std::string::npos) << l;
  if (at != std::string::npos) l.replace(at, from.size(), to);
  return testing::join_lines(lines);
}

bool has_note(const Report& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// With the planted sum corrected, both runqueues hold everything: one shared view would see four
// queued entities where each `nr` says two, and V and the sums over the wrong set.
TEST(Runqueues, EachIsJudgedOnItsOwnEntities) {
  const Report r =
      testing::check_text(replaced(fixture_lines(), 17, "\"sum_w\":2048", "\"sum_w\":1024"));
  EXPECT_EQ(r.violation_count, 0) << (r.violations.empty() ? "" : r.violations[0].detail);
  EXPECT_EQ(r.stats.at(ids::kInvKernelSums).checked, 8);
  EXPECT_GT(r.stats.at(ids::kInvStep).checked, 0);  // a shadow reference per runqueue
  EXPECT_FALSE(has_note(r, ids::kInvKernelSums));
}

TEST(Runqueues, AViolationNamesItsRunqueue) {
  const Report r = testing::check_text(testing::join_lines(fixture_lines()));
  ASSERT_EQ(r.violation_count, 1);
  const Violation& v = r.violations.at(0);
  EXPECT_EQ(v.id, ids::kInvKernelSums);
  EXPECT_EQ(v.line, 17);
  EXPECT_EQ(v.rq, std::optional<RunqueueId>(1));
  EXPECT_NE(v.detail.find("sum_w 2048"), std::string::npos) << v.detail;
}

// A trace of one runqueue names none, so its report reads as before version 2.
TEST(Runqueues, ATraceOfOneRunqueueNamesNone) {
  const std::string file = std::string(VLAG_FIXTURES) + "/" + property(ids::kInvPickEdf).fixture;
  CheckOptions quiet;
  quiet.arbiter = false;
  const Report r = check({file_source(file)}, quiet);
  ASSERT_GT(r.violation_count, 0);
  for (const Violation& v : r.violations) EXPECT_FALSE(v.rq.has_value()) << v.id;
}

TEST(KernelSumsCheck, ReportedVMustBeAvgVruntimeOfTheSums) {
  // Line 15: runqueue 0 has picked group entity 100; task 1, in the tree at v = 10^6, gives
  // avg_vruntime 0 + (1024·10^6 + 1024·0) / 2048 = 500000.
  std::vector<std::string> lines =
      testing::lines_of(replaced(fixture_lines(), 17, "\"sum_w\":2048", "\"sum_w\":1024"));
  const Report r = testing::check_text(replaced(lines, 15, "\"V\":500000", "\"V\":500001"));
  const Violation* found = nullptr;
  for (const Violation& v : r.violations)
    if (v.id == ids::kInvKernelSums) found = &v;
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->line, 15);
  EXPECT_EQ(found->rq, std::optional<RunqueueId>(0));
  EXPECT_NE(found->detail.find("V 500001 where avg_vruntime of the sums gives 500000"),
            std::string::npos)
      << found->detail;
}

// When `nr` says the trace does not show every queued entity, the sums cannot be judged: a note
// says so instead of a violation.
TEST(KernelSumsCheck, IsNotJudgedWhenTheQueueIsNotAllKnown) {
  const Report r = testing::check_text(replaced(fixture_lines(), 17, "\"nr\":2", "\"nr\":3"));
  EXPECT_EQ(r.stats.at(ids::kInvKernelSums).violated, 0);
  EXPECT_EQ(r.stats.at(ids::kInvKernelSums).checked, 7);
  EXPECT_TRUE(has_note(r, "INV-KERNEL-SUMS not judged at 1 event(s), the first at line 17"));
}

}  // namespace
}  // namespace vlag::checker
