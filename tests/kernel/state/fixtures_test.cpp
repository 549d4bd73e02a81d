// The captures of the development machine's kernel in tests/data/linux-state/ (made by
// scripts/capture-kernel-state): each passes every check with nothing violated and enough judged;
// and with one fault planted per ID — a pick changed, a sum changed, a deadline moved, a placed
// vlag changed, a saved lag beyond the clamp, a delayed entity picked, a key beyond s64 — each is
// caught with that ID.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "kernel/state/arith.h"
#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"
#include "spec/properties.h"
#include "tests/kernel/state/state_fixtures.h"

namespace vlag::kernel::state {
namespace {

uint64_t violated(const StateReport& r, const char* id) { return r.find(id)->violated; }

class Fixture : public ::testing::TestWithParam<const char*> {};

TEST_P(Fixture, PassesEveryCheckWithEnoughJudged) {
  const StateCapture& c = fixture(GetParam());
  ASSERT_TRUE(c.kernel);
  ASSERT_TRUE(c.facts.lost_per_cpu);
  for (const uint64_t lost : *c.facts.lost_per_cpu) EXPECT_EQ(lost, 0u);
  const StateReport r = check_state_capture(c);
  for (const auto& [id, t] : r.tallies) {
    EXPECT_EQ(t.violated, 0u) << id;
    std::cout << "[ fixture  ] " << GetParam() << " " << id << ": " << t.cases << " cases, "
              << t.held << " held, " << t.inconclusive << " inconclusive, " << t.not_applicable
              << " n/a\n";
  }
  EXPECT_GE(r.find(ids::kInvPickEligible)->held, 200u);
  EXPECT_GE(r.find(ids::kInvPickEdf)->held, 200u);
  EXPECT_GE(r.find(ids::kInvKernelSums)->held, 200u);
  EXPECT_GE(r.find(ids::kInvDeadline)->held, 500u);
  EXPECT_GE(r.find(ids::kInvLagClamp)->held, 15u);
  EXPECT_GE(r.find(ids::kInvPlaceLag)->held, 2u);
  // The model of the kernel's arithmetic: every placement it could judge is place_entity()'s
  // own, bit for bit.
  EXPECT_EQ(r.figures.placements_inexact, 0u);
  EXPECT_GT(r.figures.placements_exact, 0u);
  EXPECT_GT(r.figures.replays_matched, 10 * r.figures.replays_differed);
}

INSTANTIATE_TEST_SUITE_P(LinuxState, Fixture,
                         ::testing::Values("hogs", "renice", "sessions", "cgroups", "forks",
                                           "messaging-a", "hogs-waking", "sessions-waking",
                                           "slices-waking"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

// The quiet captures (*-waking), recorded with the wakeup records' curr and sched_waking blocks:
// every placement is judged from the record itself, none inconclusive, each place_entity()'s own.
class QuietFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(QuietFixture, JudgesEveryPlacement) {
  const StateCapture& c = fixture(GetParam());
  size_t with_blocks = 0, wakeups = 0;
  for (const auto& r : c.records)
    if (r.kind == bpf::RecordKind::Wakeup && r.tasks[0].fair) {
      ++wakeups;
      with_blocks += !r.tasks[0].level_curr.empty();
    }
  ASSERT_GT(wakeups, 0u);
  EXPECT_EQ(with_blocks, wakeups);
  const StateReport r = check_state_capture(c);
  const Tally& t = *r.find(ids::kInvPlaceLag);
  EXPECT_EQ(t.violated, 0u);
  EXPECT_EQ(t.inconclusive, 0u);
  for (const auto& [why, n] : t.inconclusive_reasons) ADD_FAILURE() << why << " (" << n << ")";
  EXPECT_GE(t.held, 50u);
  EXPECT_EQ(r.figures.placements_exact, t.held);
  EXPECT_EQ(r.figures.placements_inexact, 0u);
}

INSTANTIATE_TEST_SUITE_P(LinuxState, QuietFixture,
                         ::testing::Values("hogs-waking", "sessions-waking", "slices-waking"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

// A capture (hogs unless named) with the first record `where` accepts changed by `plant`.
StateReport planted(const std::function<bool(const bpf::StateRecord&)>& where,
                    const std::function<void(bpf::StateRecord&)>& plant,
                    const char* name = "hogs") {
  StateCapture c = fixture(name);
  for (auto& r : c.records)
    if (where(r)) {
      plant(r);
      return check_state_capture(c);
    }
  ADD_FAILURE() << "no record to plant the fault in";
  return {};
}

// A switch whose pick at level 0 has a snapshot with an eligible competitor.
bool pick_with_competitor(const bpf::StateRecord& r) {
  if (r.kind != bpf::RecordKind::Switch || !r.tasks[1].fair || r.queues.empty()) return false;
  const bpf::EntityState& p = r.tasks[1].chain[0];
  if (r.queues[0].level != 0 || r.queues[0].truncated || p.pid == 0) return false;
  const Average a = with_curr(p.cfs_rq.zero_vruntime, p.cfs_rq.sum_w_vruntime, p.cfs_rq.sum_weight,
                              true, p.vruntime, p.weight);
  for (const auto& e : r.queues[0].entities)
    if (eligible(a, e.vruntime) && e.pid != 0 && before(p.deadline, e.deadline)) return true;
  return false;
}

TEST(StatePlantedFault, APickMadeIneligibleIsInvPickEligible) {
  const StateReport r = planted(pick_with_competitor, [](bpf::StateRecord& s) {
    s.tasks[1].chain[0].vruntime += 100'000'000;
  });
  EXPECT_GE(violated(r, ids::kInvPickEligible), 1u);
}

TEST(StatePlantedFault, APickOfALaterDeadlineIsInvPickEdf) {
  const StateReport r = planted(pick_with_competitor, [](bpf::StateRecord& s) {
    bpf::EntityState& p = s.tasks[1].chain[0];
    for (const auto& e : s.queues[0].entities)
      if (e.pid != 0) p.deadline = std::max(p.deadline, e.deadline + 1);
  });
  EXPECT_GE(violated(r, ids::kInvPickEdf), 1u);
}

TEST(StatePlantedFault, AChangedSumIsInvKernelSums) {
  const StateReport r = planted(pick_with_competitor, [](bpf::StateRecord& s) {
    const uint64_t rq = s.tasks[1].chain[0].cfs_rq.id;
    for (auto& t : s.tasks)
      for (auto& e : t.chain)
        if (e.cfs_rq.id == rq) e.cfs_rq.sum_weight += 1;
  });
  EXPECT_EQ(violated(r, ids::kInvKernelSums), 1u);
}

TEST(StatePlantedFault, AMovedDeadlineIsInvDeadline) {
  const StateReport r = planted(
      [](const bpf::StateRecord& s) {
        return s.kind == bpf::RecordKind::Runtime && s.tasks[0].fair &&
               s.tasks[0].chain[0].pid != 0;
      },
      [](bpf::StateRecord& s) { s.tasks[0].chain[0].deadline += 10'000'000; });
  EXPECT_EQ(violated(r, ids::kInvDeadline), 1u);
}

TEST(StatePlantedFault, AChangedPlacedLagIsInvPlaceLag) {
  // Every wakeup's vlag moved by 0.1 ms: the placements the clean capture judged held are now
  // violated, but for those into an empty cfs_rq (no lag to keep) and of new tasks (not woken:
  // left as they were).
  const Tally clean = *check_state_capture(fixture("hogs")).find(ids::kInvPlaceLag);
  ASSERT_GE(clean.held, 1u);
  StateCapture c = fixture("hogs");
  for (auto& r : c.records)
    if (r.kind == bpf::RecordKind::Wakeup && r.tasks[0].fair) r.tasks[0].chain[0].vlag += 100'000;
  const Tally changed = *check_state_capture(c).find(ids::kInvPlaceLag);
  EXPECT_EQ(changed.violated + changed.held, clean.held);
  EXPECT_GT(changed.violated, 10 * changed.held);
  EXPECT_EQ(changed.inconclusive, clean.inconclusive);
}

TEST(StatePlantedFault, AWakeeMovedFromItsPlacementIsInvPlaceLag) {
  // One placement moved 0.1 ms later than place_entity() put it, with the cfs_rq's sums
  // accounting it there (a kernel that placed it wrong): the record alone shows it.
  const auto placed = [](const bpf::StateRecord& s) {
    if (s.kind != bpf::RecordKind::Wakeup || !s.tasks[0].fair || !s.tasks[0].waking) return false;
    const bpf::EntityState& e = s.tasks[0].chain[0];
    return e.on_rq && e.cfs_rq.curr != e.id && !s.tasks[0].waking->entity.on_rq;
  };
  const StateReport r = planted(
      placed,
      [](bpf::StateRecord& s) {
        bpf::EntityState& e = s.tasks[0].chain[0];
        constexpr uint64_t kMoved = 100'000;
        e.vruntime += kMoved;
        e.deadline += kMoved;
        e.cfs_rq.sum_w_vruntime += static_cast<int64_t>(kMoved * scale_down(e.weight));
      },
      "hogs-waking");
  const Tally& t = *r.find(ids::kInvPlaceLag);
  EXPECT_EQ(t.violated, 1u);
  ASSERT_EQ(t.witnesses.size(), 1u);
  EXPECT_NE(t.witnesses[0].what.find("lag after joining"), std::string::npos)
      << t.witnesses[0].what;
  EXPECT_EQ(r.figures.placements_inexact, 1u);
}

TEST(StatePlantedFault, ASavedLagBeyondTheClampIsInvLagClamp) {
  const StateReport r = planted(
      [](const bpf::StateRecord& s) {
        return s.kind == bpf::RecordKind::Switch && s.tasks[0].fair && !s.tasks[0].chain[0].on_rq;
      },
      [](bpf::StateRecord& s) { s.tasks[0].chain[0].vlag = -100'000'000; });
  EXPECT_EQ(violated(r, ids::kInvLagClamp), 1u);
}

TEST(StatePlantedFault, ADelayedPickIsInvDelay) {
  const StateReport r = planted(
      pick_with_competitor, [](bpf::StateRecord& s) { s.tasks[1].chain[0].sched_delayed = true; });
  EXPECT_EQ(violated(r, ids::kInvDelay), 1u);
}

TEST(StatePlantedFault, AKeyBeyondS64IsInvS64Margin) {
  const StateReport r = planted(pick_with_competitor, [](bpf::StateRecord& s) {
    s.tasks[1].chain[0].vruntime += uint64_t{1} << 52;  // key * load past 2^63
  });
  EXPECT_GE(violated(r, ids::kInvS64Margin), 1u);
}

}  // namespace
}  // namespace vlag::kernel::state
