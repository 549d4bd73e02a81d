// THM-SHARE on the hierarchies of tests/data/linux-state/ (kernel/state/share_check.h): sessions
// (one hog in one autogroup against two in another) and cgroups (one hog in a group of
// cpu.shares 2048 against two in one of 1024), both on CPU 1. The group entities at the root and
// the tasks within the two-hog group are judged held, their splits lie within the bound of the
// split their weights ask for, and a weight planted wrong is caught as THM-SHARE violated.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernel/state/checks.h"
#include "spec/properties.h"
#include "tests/kernel/state/state_fixtures.h"

namespace vlag::kernel::state {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The pair whose names hold `a` and `b` (either order), on the root or a group's cfs_rq.
const ShareFigure* pair_of(const StateReport& r, const std::string& a, const std::string& b,
                           bool root) {
  for (const ShareFigure& f : r.figures.shares)
    if (f.root == root &&
        ((has(f.a_name, a) && has(f.b_name, b)) || (has(f.a_name, b) && has(f.b_name, a))))
      return &f;
  return nullptr;
}

// a's part of the pair's service, with its weights' part and the bound, as a's.
struct Split {
  double share, expected, allowed;
};
Split split_of(const ShareFigure& f, const std::string& a) {
  const bool first = has(f.a_name, a);
  const double share = first ? f.share_a() : 1 - f.share_a();
  const double expected = first ? f.expected_share_a() : 1 - f.expected_share_a();
  return {share, expected, f.allowed_share()};
}

void expect_held(const StateReport& r, const std::string& part) {
  const auto& verdicts = r.subjects.at(ids::kThmShare);
  bool found = false;
  for (const auto& [name, v] : verdicts)
    if (has(name, part)) {
      found = true;
      EXPECT_EQ(v, Verdict::Held) << name;
    }
  EXPECT_TRUE(found) << part;
}

TEST(StateShare, SessionsSplitHalfAndQuarter) {
  const StateReport r = check_state_capture(fixture("sessions"));
  const Tally& t = *r.find(ids::kThmShare);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_GE(t.held, 4u);
  // Session A's hog 15395; session B's 15393 and 15394 (stdout.txt).
  const ShareFigure* groups = pair_of(r, "hog:15395]", "hog:15394]", true);
  ASSERT_NE(groups, nullptr);
  const Split g = split_of(*groups, "hog:15395]");
  EXPECT_NEAR(g.expected, 0.5, 1e-9);  // two autogroups of nice-0 weight
  EXPECT_LE(std::abs(g.share - g.expected), g.allowed);
  EXPECT_GE(groups->duration_ns, 200e6);
  const ShareFigure* tasks = pair_of(r, "hog:15393", "hog:15394", false);
  ASSERT_NE(tasks, nullptr);
  const Split k = split_of(*tasks, "hog:15393");
  EXPECT_NEAR(k.expected, 0.5, 1e-9);
  EXPECT_LE(std::abs(k.share - k.expected), k.allowed);
  // Each of B's hogs gets about a quarter of what the two groups got: B's half, halved.
  const double quarter = (1 - g.share) * k.share;
  EXPECT_LE(std::abs(quarter - 0.25), g.allowed + k.allowed);
  for (const char* who : {"hog:15393", "hog:15394", "hog:15395]"}) expect_held(r, who);
}

TEST(StateShare, CgroupsSplitByShares) {
  const StateReport r = check_state_capture(fixture("cgroups"));
  const Tally& t = *r.find(ids::kThmShare);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_GE(t.held, 4u);
  // /vlag-state-a (2048) holds hog 15441, /vlag-state-b (1024) 15442 and 15443 (stdout.txt).
  const ShareFigure* groups = pair_of(r, "hog:15441]", "hog:15443]", true);
  ASSERT_NE(groups, nullptr);
  const Split g = split_of(*groups, "hog:15441]");
  // a's entity grows to its shares as the load its start left on CPU 0 decays: its weights ask
  // between a half and two thirds, and it got that within the bound.
  EXPECT_GT(g.expected, 0.5);
  EXPECT_LE(g.expected, 2.0 / 3 + 1e-9);
  EXPECT_LE(std::abs(g.share - g.expected), g.allowed);
  const ShareFigure* tasks = pair_of(r, "hog:15442", "hog:15443", false);
  ASSERT_NE(tasks, nullptr);
  const Split k = split_of(*tasks, "hog:15442");
  EXPECT_NEAR(k.expected, 0.5, 1e-9);
  EXPECT_LE(std::abs(k.share - k.expected), k.allowed);
  for (const char* who : {"hog:15442", "hog:15443", "hog:15441]"}) expect_held(r, who);
}

// hog 15394 recorded at twice its weight in every record: its service, half of its group's, is
// then a third too much for the split the records ask for.
TEST(StateShare, AWeightPlantedWrongIsThmShare) {
  StateCapture c = fixture("sessions");
  for (auto& r : c.records) {
    for (auto& t : r.tasks)
      for (auto& e : t.chain)
        if (e.pid == 15394) e.weight *= 2;
    for (auto& q : r.queues)
      for (auto& e : q.entities)
        if (e.pid == 15394) e.weight *= 2;
  }
  const StateReport r = check_state_capture(c);
  const Tally& t = *r.find(ids::kThmShare);
  EXPECT_GE(t.violated, 1u);
  ASSERT_FALSE(t.witnesses.empty());
  EXPECT_TRUE(has(t.witnesses[0].what, "hog:15394")) << t.witnesses[0].what;
  EXPECT_EQ(r.subjects.at(ids::kThmShare).at("hog:15394"), Verdict::Violated);
}

}  // namespace
}  // namespace vlag::kernel::state
