// The checker of the CFS invariants (checker/cfs_check.h, SPEC.md §8.5): real runs of the CFS
// runqueue pass, and each ID catches a fault planted in one line of such a run's trace.
#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <sstream>

#include "cfs/runqueue.h"
#include "checker/run.h"
#include "spec/cfs_policy.h"
#include "tests/support/cfs_helpers.h"

namespace vlag::checker {
namespace {

using cfs::Runqueue;

constexpr int64_t kMs = 1'000'000;

std::vector<std::string> cfs_trace(bool latency, const std::function<void(Runqueue&)>& script) {
  testing::TracedCfs traced(latency);
  script(traced.rq);
  std::vector<std::string> lines;
  std::istringstream in(traced.out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

Report check_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  CheckOptions options;
  options.arbiter = true;
  return check({text_source("cfs.jsonl", text)}, options);
}

size_t last_line_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (size_t i = lines.size(); i-- > 0;)
    if (lines[i].find(needle) != std::string::npos) return i;
  ADD_FAILURE() << "no line with " << needle;
  return 0;
}

int64_t field(const std::string& line, const std::string& name) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(line, m, std::regex("\"" + name + "\":(-?[0-9]+)"))) << line;
  return std::stoll(m[1]);
}

std::string with_field(const std::string& line, const std::string& name, int64_t value) {
  return std::regex_replace(line, std::regex("\"" + name + "\":-?[0-9]+"),
                            "\"" + name + "\":" + std::to_string(value));
}

// The violations of one ID, each at its line (1-based, the header is line 1).
std::vector<int64_t> lines_violating(const Report& r, const std::string& id) {
  std::vector<int64_t> at;
  for (const auto& v : r.violations)
    if (v.id == id) at.push_back(v.line);
  return at;
}

// Three nice-0 tasks: 3 sleeps, 1 and 2 share the CPU, 3 wakes with the sleeper credit and
// preempts, then task 4 arrives more than a wakeup granularity right of the leftmost.
void plain_script(Runqueue& rq) {
  for (TaskId id : {1, 2, 3}) rq.apply({OpKind::Create, id, 1024});
  rq.apply({OpKind::Enqueue, 3});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Dequeue, 3, 0, 0, kDequeueSleep});
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Enqueue, 2});
  for (int i = 0; i < 40; ++i) {
    if (!rq.curr() || rq.need_resched()) rq.apply({OpKind::Pick});
    rq.apply({OpKind::Run, 0, kMs});
    rq.apply({OpKind::Tick});
  }
  rq.apply({OpKind::Enqueue, 3});
  rq.apply({OpKind::WakeupPreempt, 3});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Run, 0, 2 * kMs});
  rq.apply({OpKind::Create, 4, 1024});
  rq.apply({OpKind::Enqueue, 4});
  rq.apply({OpKind::Pick});
}

// 3 is latency-nice −20 and wakes new behind 2's current run: the latency tree runs it next.
void latency_script(Runqueue& rq) {
  for (TaskId id : {1, 2, 3}) rq.apply({OpKind::Create, id, 1024});
  rq.set_latency_nice(3, -20);
  rq.apply({OpKind::Enqueue, 1});
  rq.apply({OpKind::Enqueue, 2});
  rq.apply({OpKind::Pick});
  rq.apply({OpKind::Run, 0, kMs});
  rq.apply({OpKind::Enqueue, 3});
  rq.apply({OpKind::Pick});
}

TEST(CfsCheck, RealRunsPass) {
  const Report plain = check_lines(cfs_trace(false, plain_script));
  EXPECT_EQ(plain.violation_count, 0);
  for (const char* id : {"CFS-MIN-VRUNTIME-MONOTONIC", "CFS-PICK-LEFTMOST", "CFS-PLACE-SLEEPER"})
    EXPECT_GT(plain.stats.at(id).checked, 0) << id;
  const Report latency = check_lines(cfs_trace(true, latency_script));
  EXPECT_EQ(latency.violation_count, 0);
  EXPECT_GT(latency.stats.at("CFS-LATENCY-PICK").checked, 0);
}

TEST(CfsCheck, HeaderNamesTheCfsPolicy) {
  const auto lines = cfs_trace(false, plain_script);
  EXPECT_NE(lines[0].find("\"preset\":\"cfs\""), std::string::npos) << lines[0];
}

TEST(CfsCheck, CatchesMinVruntimeGoingBack) {
  auto lines = cfs_trace(false, plain_script);
  const size_t i = last_line_with(lines, "\"ev\":\"run\"");
  lines[i] = with_field(lines[i], "V", field(lines[i], "V") - 10 * kMs);
  const Report r = check_lines(lines);
  EXPECT_EQ(lines_violating(r, "CFS-MIN-VRUNTIME-MONOTONIC").front(), static_cast<int64_t>(i + 1));
  EXPECT_EQ(r.violations.front().z3_sat, true);
}

TEST(CfsCheck, CatchesSleeperPlacedBeyondTheCredit) {
  auto lines = cfs_trace(false, plain_script);
  const size_t i = last_line_with(lines, "\"ev\":\"wakeup\",\"task\":3");
  lines[i] = with_field(lines[i], "v", field(lines[i], "V") - 3 * kMs - 1);
  const Report r = check_lines(lines);
  EXPECT_EQ(lines_violating(r, "CFS-PLACE-SLEEPER"), std::vector<int64_t>{int64_t(i + 1)});
}

TEST(CfsCheck, CatchesSleeperNotPlacedAtTheMaximum) {
  auto lines = cfs_trace(false, plain_script);
  const size_t i = last_line_with(lines, "\"ev\":\"wakeup\",\"task\":3");
  lines[i] = with_field(lines[i], "v", field(lines[i], "v") + 1);
  const Report r = check_lines(lines);
  EXPECT_EQ(lines_violating(r, "CFS-PLACE-SLEEPER"), std::vector<int64_t>{int64_t(i + 1)});
}

TEST(CfsCheck, CatchesPickBeyondTheWakeupGranularity) {
  auto lines = cfs_trace(false, plain_script);
  const size_t i = last_line_with(lines, "\"ev\":\"pick\"");
  ASSERT_NE(field(lines[i], "task"), 4);
  lines[i] = with_field(lines[i], "task", 4);
  const Report r = check_lines(lines);
  EXPECT_EQ(lines_violating(r, "CFS-PICK-LEFTMOST").front(), static_cast<int64_t>(i + 1));
}

TEST(CfsCheck, CatchesLatencyTreeLeftmostPassedOver) {
  auto lines = cfs_trace(true, latency_script);
  const size_t i = last_line_with(lines, "\"ev\":\"pick\"");
  ASSERT_EQ(field(lines[i], "task"), 3);
  lines[i] = with_field(lines[i], "task", 2);  // 2 is the leftmost: CFS alone would pick it
  const Report r = check_lines(lines);
  EXPECT_TRUE(lines_violating(r, "CFS-PICK-LEFTMOST").empty());
  EXPECT_EQ(lines_violating(r, "CFS-LATENCY-PICK"), std::vector<int64_t>{int64_t(i + 1)});
}

}  // namespace
}  // namespace vlag::checker
