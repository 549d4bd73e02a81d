// The live test's checks (state_checks.h) on records built by hand: each catches the fault
// planted for it and passes the same records without it, so a clean live run means something.
#include "tests/kernel/bpf/state_checks.h"

#include <gtest/gtest.h>

namespace vlag::kernel::bpf::checks {
namespace {

constexpr uint64_t kW = uint64_t{1} << 20;  // nice 0 as the kernel stores it
constexpr uint64_t kRq = 0xc0;

EntityState entity(uint64_t id, int32_t pid, uint64_t v, uint64_t d, bool on_rq = true) {
  EntityState e;
  e.id = id;
  e.pid = pid;
  e.vruntime = v;
  e.deadline = d;
  e.weight = kW;
  e.slice = 700000;
  e.on_rq = on_rq;
  e.cfs_rq.id = kRq;
  return e;
}

TaskState task(int32_t pid, EntityState e) {
  TaskState t;
  t.pid = pid;
  t.comm = "t" + std::to_string(pid);
  t.prio = 120;
  t.fair = true;
  t.chain = {e};
  return t;
}

StateRecord record(RecordKind kind, uint64_t time, std::vector<TaskState> tasks) {
  StateRecord r;
  r.kind = kind;
  r.time_ns = time;
  r.cpu = 1;
  r.tasks = std::move(tasks);
  return r;
}

// A switch from a (back in the tree) to b on a cfs_rq holding a, b and c, with the kernel's
// sums over the tree {a, c} relative to zero_vruntime 1000, and the snapshot of that tree.
StateRecord switch_to_b(uint64_t b_v, uint64_t b_d, uint64_t c_d) {
  const EntityState a = entity(0xa, 10, 1500, 2200), b = entity(0xb, 11, b_v, b_d),
                    c = entity(0xc, 12, 1000, c_d);
  StateRecord r = record(RecordKind::Switch, 100, {task(10, a), task(11, b)});
  for (auto& t : r.tasks) {
    CfsRqState& s = t.chain[0].cfs_rq;
    s.zero_vruntime = 1000;
    s.sum_weight = 2048;
    s.sum_w_vruntime = 500 * 1024 + 0 * 1024;
    s.nr_queued = 3;
    s.load_weight = 3 * kW;
    s.curr = 0xb;
  }
  QueueSnapshot q;
  q.cfs_rq = kRq;
  q.level = 0;
  q.nr_queued = 3;
  q.entities = {a, c};  // what the tree holds of them
  r.queues = {q};
  return r;
}

TEST(BpfStateChecks, VruntimeGoingBackIsCaughtUnlessAPlacementCameBetween) {
  const auto e = [](uint64_t v) { return task(10, entity(0xa, 10, v, v + 700000)); };
  std::vector<StateRecord> rs = {record(RecordKind::Runtime, 1, {e(5000)}),
                                 record(RecordKind::Runtime, 2, {e(6000)})};
  EXPECT_TRUE(vruntime_monotonic(rs, {}).violations.empty());
  EXPECT_EQ(vruntime_monotonic(rs, {}).judged, 1u);
  rs.push_back(record(RecordKind::Runtime, 3, {e(5500)}));
  EXPECT_EQ(vruntime_monotonic(rs, {}).violations.size(), 1u);
  rs.back().kind = RecordKind::Wakeup;  // placed: it may land lower
  EXPECT_TRUE(vruntime_monotonic(rs, {}).violations.empty());
}

TEST(BpfStateChecks, QueueSumsCatchAWrongSum) {
  std::vector<StateRecord> rs = {switch_to_b(1200, 1900, 2500)};
  auto t = queue_sums(rs, SumWeights::Scaled);
  EXPECT_EQ(t.judged, 1u);
  EXPECT_TRUE(t.violations.empty()) << t.summary();
  EXPECT_EQ(sum_convention(rs), SumWeights::Scaled);
  rs[0].tasks[1].chain[0].cfs_rq.sum_w_vruntime += 1;
  EXPECT_EQ(queue_sums(rs, SumWeights::Scaled).violations.size(), 1u);
  rs[0].tasks[1].chain[0].cfs_rq.sum_w_vruntime -= 1;
  rs[0].tasks[1].chain[0].cfs_rq.sum_weight = 2 * kW;  // as a full-weight kernel would hold it
  EXPECT_EQ(queue_sums(rs, SumWeights::Scaled).violations.size(), 1u);
  // The weights now read as full ones, but the sum of keys was made with scaled weights.
  EXPECT_EQ(sum_convention(rs), SumWeights::Full);
  EXPECT_EQ(queue_sums(rs, SumWeights::Full).violations.size(), 1u);
}

TEST(BpfStateChecks, PicksCatchAnIneligiblePickAndALaterDeadline) {
  // V = 1000 + (500·1024 + 200·1024) / 3072 ≈ 1233: b at 1200 is eligible, a at 1500 is not.
  auto ok = picks({switch_to_b(1200, 1900, 2500)}, SumWeights::Scaled);
  EXPECT_EQ(ok.judged, 1u);
  EXPECT_TRUE(ok.violations.empty()) << ok.summary();
  // c (v 1000, eligible) has an earlier deadline than b.
  EXPECT_EQ(picks({switch_to_b(1200, 1900, 1800)}, SumWeights::Scaled).violations.size(), 1u);
  // a's earlier deadline does not count: a is not eligible.
  EXPECT_TRUE(picks({switch_to_b(1200, 2300, 2500)}, SumWeights::Scaled).violations.empty());
  // b far right of V is not eligible.
  auto far = switch_to_b(9000, 9700, 12000);
  EXPECT_EQ(picks({far}, SumWeights::Scaled).violations.size(), 1u);
  // A next buddy is picked whatever its deadline: the order is not judged, eligibility is.
  auto later = switch_to_b(1200, 1900, 1800);
  later.tasks[1].chain[0].cfs_rq.next = 0xc;
  const auto buddy = picks({later}, SumWeights::Scaled);
  EXPECT_EQ(buddy.judged, 1u);
  EXPECT_TRUE(buddy.violations.empty()) << buddy.summary();
  EXPECT_EQ(buddy.unknowable_total(), 1u);
  far.tasks[1].chain[0].cfs_rq.next = 0xc;
  EXPECT_EQ(picks({far}, SumWeights::Scaled).violations.size(), 1u);
  // Nor where an earlier record left b as the buddy, cleared by this very pick.
  StateRecord earlier = record(RecordKind::Runtime, 50, {task(10, entity(0xa, 10, 1500, 2200))});
  earlier.tasks[0].chain[0].cfs_rq.next = 0xb;
  EXPECT_TRUE(
      picks({earlier, switch_to_b(1200, 1900, 1800)}, SumWeights::Scaled).violations.empty());
  earlier.tasks[0].chain[0].cfs_rq.next = 0;
  EXPECT_EQ(picks({earlier, switch_to_b(1200, 1900, 1800)}, SumWeights::Scaled).violations.size(),
            1u);
}

TEST(BpfStateChecks, KnownSumsNeedEveryQueuedEntityAndCatchAWrongOne) {
  // a and c seen queued by their wakeups, then a switch to b: all three known.
  StateRecord sw = switch_to_b(1200, 1900, 2500);
  const StateRecord wake_c =
      record(RecordKind::Wakeup, 50, {task(12, entity(0xc, 12, 1000, 2500))});
  std::vector<StateRecord> rs = {sw};
  auto t = known_queue_sums(rs, SumWeights::Scaled, 1);
  EXPECT_EQ(t.judged, 0u) << "c was never seen: the capture cannot know the sum";
  EXPECT_EQ(t.unknowable_total(), 1u);
  rs = {wake_c, sw};
  t = known_queue_sums(rs, SumWeights::Scaled, 1);
  EXPECT_EQ(t.judged, 1u);
  EXPECT_TRUE(t.violations.empty()) << t.summary();
  rs[1].tasks[0].chain[0].cfs_rq.sum_weight = 1024;  // the kernel forgot a
  rs[1].tasks[1].chain[0].cfs_rq.sum_weight = 1024;
  EXPECT_EQ(known_queue_sums(rs, SumWeights::Scaled, 1).violations.size(), 1u);
}

// Regression: the live hog sets its own nice after the capture first saw it, and no record says
// so; the kernel's sum then holds the new weight. Judged only where a record reads it anew.
TEST(BpfStateChecks, KnownSumsDoNotTrustATaskWeightReadBeforeAnUnseenRenice) {
  constexpr uint64_t kNice2 = 655;  // scaled weight of nice 2
  StateRecord sw = switch_to_b(1200, 1900, 2500);
  for (auto& t : sw.tasks) t.chain[0].cfs_rq.sum_weight = 1024 + kNice2;
  sw.queues[0].entities[1].weight = kNice2 << 10;  // the tree's c, read at the switch
  const StateRecord wake_c =
      record(RecordKind::Wakeup, 50, {task(12, entity(0xc, 12, 1000, 2500))});
  auto t = known_queue_sums({wake_c, sw}, SumWeights::Scaled, 1);
  EXPECT_EQ(t.judged, 1u);
  EXPECT_TRUE(t.violations.empty()) << t.summary();
  sw.queues.clear();  // c's weight only from its wakeup, before the renice
  t = known_queue_sums({wake_c, sw}, SumWeights::Scaled, 1);
  EXPECT_TRUE(t.violations.empty()) << t.summary();
  EXPECT_EQ(t.judged, 0u);
  EXPECT_EQ(t.unknowable_total(), 1u);
  // Every weight read in the switch's own record: a wrong sum is a violation again.
  sw.tasks.push_back(task(12, entity(0xc, 12, 1000, 2500)));
  EXPECT_EQ(known_queue_sums({wake_c, sw}, SumWeights::Scaled, 1).violations.size(), 1u);
}

TEST(BpfStateChecks, PlacementsNeedTheSliceAndTheSavedLag) {
  EntityState out = entity(0xa, 10, 5000, 5500, false);
  out.vlag = -300;
  StateRecord leave =
      record(RecordKind::Switch, 1, {task(10, out), task(11, entity(0xb, 11, 1, 2))});
  EntityState in = entity(0xa, 10, 8000, 8000 + 700000);
  in.vlag = -300;
  std::vector<StateRecord> rs = {leave, record(RecordKind::Wakeup, 2, {task(10, in)})};
  auto t = placements(rs, 10);
  EXPECT_EQ(t.judged, 1u);
  EXPECT_TRUE(t.violations.empty()) << t.summary();
  rs[1].tasks[0].chain[0].deadline += 1;
  EXPECT_EQ(placements(rs, 10).violations.size(), 1u);
  rs[1].tasks[0].chain[0].deadline -= 1;
  rs[1].tasks[0].chain[0].vlag = 0;
  EXPECT_EQ(placements(rs, 10).violations.size(), 1u);
  rs[0].tasks[0].chain[0].on_rq = true;  // still queued (delayed): not judged
  rs[0].tasks[0].chain[0].sched_delayed = true;
  EXPECT_EQ(placements(rs, 10).judged, 0u);
}

}  // namespace
}  // namespace vlag::kernel::bpf::checks
