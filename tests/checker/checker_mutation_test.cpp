// Mutated reference traces: one changed line each — a pick swapped, a vruntime shifted, a wakeup
// dropped — is caught at that line with the right ID (or, for the dropped wakeup, reported as a
// trace fault, not as a scheduler violation).
#include <gtest/gtest.h>

#include "tests/support/trace_helpers.h"
#include "trace/event.h"
#include "trace/input_error.h"

namespace vlag::checker {
namespace {

using testing::check_text;
using testing::join_lines;
using testing::lines_of;

bool has(const std::string& line, const std::string& s) {
  return line.find(s) != std::string::npos;
}

// The value of an integer field of a line written by trace::Writer.
int64_t int_field(const std::string& line, const std::string& name) {
  const size_t at = line.find("\"" + name + "\":");
  return std::stoll(line.substr(at + name.size() + 3));
}

std::vector<std::string> demo_lines() {
  return lines_of(testing::demo_trace(std::string(kDefaultPreset), 100'000'000));
}

std::vector<std::string> ids_at(const Report& r, int64_t line) {
  std::vector<std::string> ids;
  for (const auto& v : r.violations)
    if (v.line == line) ids.push_back(v.id);
  return ids;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(Mutation, UnmutatedDemoTraceHolds) {
  const Report r = check_text(join_lines(demo_lines()));
  EXPECT_FALSE(r.violated());
}

TEST(Mutation, SwappedPickIsCaughtAtItsLine) {
  auto lines = demo_lines();
  // The first switch from one hog to another: give the CPU back to the previous task.
  int64_t prev = -1;
  size_t at = 0;
  for (size_t i = 1; i < lines.size() && !at; ++i) {
    if (!has(lines[i], "\"ev\":\"pick\"") || has(lines[i], "\"task\":null")) continue;
    const int64_t task = int_field(lines[i], "task");
    if (prev > 0 && prev != task && prev <= 3)
      at = i;
    else
      prev = task;
  }
  ASSERT_GT(at, 0u);
  lines[at] = R"({"t":)" + std::to_string(int_field(lines[at], "t")) + R"(,"ev":"pick","task":)" +
              std::to_string(prev) + "}";
  // The next run line names the task that really ran: a contradiction within the trace, which
  // --keep-going reports as a trace problem after the violation.
  const Report r = check_text(join_lines(lines), true);
  ASSERT_TRUE(r.violated());
  EXPECT_EQ(r.violations.front().line, static_cast<int64_t>(at + 1));
  EXPECT_EQ(r.violations.front().id, "INV-PICK-ELIGIBLE") << r.violations.front().detail;
  ASSERT_GT(r.problem_count, 0);
  EXPECT_EQ(r.problems.front().fault, trace::Fault::TraceFault);
}

TEST(Mutation, ShiftedVruntimeIsCaughtAtItsLine) {
  auto lines = demo_lines();
  size_t at = 0;
  for (size_t i = 1; i < lines.size() && !at; ++i)
    if (has(lines[i], "\"ev\":\"run\"") && has(lines[i], "\"v\":")) at = i;
  ASSERT_GT(at, 0u);
  std::string& line = lines[at];
  const size_t v = line.find("\"v\":") + 4;
  const size_t end = line.find(',', v);
  std::string value = line.substr(v, end - v);
  if (value.front() == '"') value = value.substr(1, value.size() - 2);
  const trace::Exact shifted = *trace::parse_exact(value) + 1;
  line = line.substr(0, v) + "\"" + trace::exact_text(shifted) + "\"" + line.substr(end);
  const Report r = check_text(join_lines(lines));
  const auto ids = ids_at(r, static_cast<int64_t>(at + 1));
  EXPECT_TRUE(contains(ids, "INV-LAG-SUM"));
  EXPECT_TRUE(contains(ids, "INV-STEP"));
}

TEST(Mutation, DroppedWakeupIsATraceFaultNotAViolation) {
  auto lines = demo_lines();
  // The periodic task's second wakeup (its first follows creation).
  size_t at = 0;
  int seen = 0;
  for (size_t i = 1; i < lines.size() && !at; ++i)
    if (has(lines[i], "\"ev\":\"wakeup\",\"task\":4") && ++seen == 2) at = i;
  ASSERT_GT(at, 0u);
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
  try {
    check_text(join_lines(lines));
    FAIL() << "a dropped wakeup went unnoticed";
  } catch (const trace::InputError& e) {
    EXPECT_EQ(e.fault(), trace::Fault::TraceFault) << e.what();
    EXPECT_EQ(e.line(), static_cast<int64_t>(at + 1)) << e.what();
    EXPECT_EQ(e.field(), "task");
  }
  const Report r = check_text(join_lines(lines), true);
  EXPECT_GT(r.problem_count, 0);
}

}  // namespace
}  // namespace vlag::checker
