// THM-LAG-BOUND-LINUX on the kernel's own numbers (kernel/state/lag_bound_check.cpp): the
// captures of tests/data/linux-state/ hold it wherever it is judged; a tree entity's vruntime
// moved 20 ms ahead (its lag then far below −(r + TICK)) is a violation in a steady system of
// CPU-bound entities (messaging-a, while perf forks its tasks) and not applicable, never
// violated, where the cfs_rq is not one (hogs: the periodic task sleeps; group entities at the
// root).
#include <gtest/gtest.h>

#include <set>

#include "kernel/state/checks.h"
#include "spec/properties.h"
#include "tests/kernel/state/state_fixtures.h"

namespace vlag::kernel::state {
namespace {

constexpr uint64_t kMoved = 20'000'000;  // ns of vruntime: beyond r + TICK = 5.4 ms at nice 0

// The fixture with the first entity of every level-0 queue snapshot moved kMoved ahead; the
// indices (time order) of the records changed.
StateCapture moved_ahead(const char* name, std::set<size_t>& planted) {
  StateCapture c = fixture(name);
  for (size_t i = 0; i < c.records.size(); ++i)
    for (auto& q : c.records[i].queues)
      if (q.level == 0 && !q.entities.empty()) {
        q.entities[0].vruntime += kMoved;
        q.entities[0].deadline += kMoved;
        planted.insert(i);
      }
  return c;
}

class LagBoundFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(LagBoundFixture, HoldsWhereverJudged) {
  const StateReport r = check_state_capture(fixture(GetParam()));
  const Tally& t = *r.find(ids::kThmLagBoundLinux);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_GE(t.held, 100u);
  EXPECT_EQ(t.cases, r.find(ids::kInvPickEligible)->cases);  // one case per pick
  EXPECT_GT(r.figures.lag_bound_ratio, 0.0);
  EXPECT_FALSE(r.figures.lag_bound_worst.empty());
}

INSTANTIATE_TEST_SUITE_P(LinuxState, LagBoundFixture,
                         ::testing::Values("hogs", "renice", "sessions", "cgroups", "forks",
                                           "messaging-a"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

TEST(StateLagBound, RootCfsRqsBeyondTheBoundAreNotPromised) {
  // On messaging-a the root cfs_rq's group entities reach lags past r + TICK: not applicable,
  // with the reason.
  const StateReport r = check_state_capture(fixture("messaging-a"));
  const Tally& t = *r.find(ids::kThmLagBoundLinux);
  EXPECT_EQ(t.violated, 0u);
  uint64_t groups = 0;
  for (const auto& [why, n] : t.not_applicable_reasons)
    if (why.find("group entities") != std::string::npos) groups += n;
  EXPECT_GE(groups, 1u);
}

TEST(StatePlantedFault, AVruntimeMovedInASteadySystemIsThmLagBoundLinux) {
  std::set<size_t> planted;
  const StateCapture c = moved_ahead("messaging-a", planted);
  const StateReport r = check_state_capture(c);
  const Tally& t = *r.find(ids::kThmLagBoundLinux);
  ASSERT_GE(t.violated, 1u);
  EXPECT_GE(r.figures.steady_decisions, t.violated);
  for (const Witness& w : t.witnesses) {
    EXPECT_TRUE(planted.contains(w.record)) << w.record;
    EXPECT_TRUE(w.smt.has_value());
    EXPECT_NE(w.what.find("beyond -5.400 ms"), std::string::npos) << w.what;
  }
}

TEST(StatePlantedFault, AVruntimeMovedOutsideASteadySystemIsNotAViolation) {
  std::set<size_t> planted;
  const StateCapture c = moved_ahead("hogs", planted);
  const Tally clean = *check_state_capture(fixture("hogs")).find(ids::kThmLagBoundLinux);
  const StateReport r = check_state_capture(c);
  const Tally& t = *r.find(ids::kThmLagBoundLinux);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_GT(t.not_applicable, clean.not_applicable);
  uint64_t unsteady = 0;
  for (const auto& [why, n] : t.not_applicable_reasons)
    if (why.find("not a steady system") != std::string::npos) unsteady += n;
  EXPECT_GT(unsteady, 10u);
}

}  // namespace
}  // namespace vlag::kernel::state
