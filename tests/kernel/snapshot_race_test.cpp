// The races of an unlocked /sys/kernel/debug/sched/debug read (SPEC.md §6.1): each one made in
// a copy of a captured snapshot, each inconclusive (unlocked snapshot read) naming its lines,
// never violated — and the same mismatches without a race still violated.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel/sched_debug.h"
#include "kernel/snapshot_check.h"
#include "tests/kernel/snapshot_text.h"

namespace vlag::kernel {
namespace {

std::string snapshot_text() { return testing::linux_data("hogs-nice.sched-debug.1.txt"); }

using testing::edit;

SnapshotReport check(const std::string& text) {
  std::istringstream in(text);
  return check_snapshot(parse_sched_debug(in, "snap"));
}

const SnapshotFinding* finding(const SnapshotReport& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// The report holds no violation and an inconclusive finding of `id` for the unlocked read:
// that finding (nullptr, a failure, otherwise).
const SnapshotFinding* raced(const SnapshotReport& r, const std::string& id) {
  EXPECT_TRUE(r.ok());
  const auto* f = finding(r, id);
  EXPECT_NE(f, nullptr) << id;
  if (!f) return nullptr;
  EXPECT_EQ(f->verdict, Verdict::Inconclusive) << id;
  EXPECT_TRUE(f->reasons.has(Reason::UnlockedSnapshotRead)) << id;
  return f;
}

// cpu1 of hogs-nice.sched-debug.1.txt: .curr->pid on line 142, the hogs' cfs_rq
// /autogroup-1 (avg_vruntime line 152, nr_queued line 155), hog 4974 running on line 261.
const char* kHog4973 = " R             hog  4973";
const char* kHog4974 = ">R             hog  4974";
const char* kHog4975 = " R             hog  4975";
const char* kAvg = ".avg_vruntime                  : 21265.085472";

TEST(SnapshotRace, TheCapturedSnapshotHolds) {
  const auto r = check(snapshot_text());
  EXPECT_EQ(r.worst, Verdict::Held);
  EXPECT_TRUE(r.findings.empty());
}

TEST(SnapshotRace, CurrChangedBetweenTheLinesIsInconclusive) {
  // The CPU section says 4975 runs; the task list marks 4974; and the average is off.
  std::string text = edit(snapshot_text(), ".curr->pid                     : 4974", "4974", "4975");
  text = edit(text, kAvg, "21265.085472", "21265.085473");
  const auto r = check(text);
  const auto* f = raced(r, "SNAP-AVG-VRUNTIME");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find(".curr->pid 4975 (line 142)"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("line 261"), std::string::npos) << f->message;
  // Without the race the same average is a violation.
  EXPECT_FALSE(check(edit(snapshot_text(), kAvg, "21265.085472", "21265.085473")).ok());
}

TEST(SnapshotRace, ATaskInStateRBeyondNrQueuedIsInconclusive) {
  const std::string text = edit(snapshot_text(), "cfs_rq[1]:/autogroup-1", "", "");
  const size_t at = text.find(".nr_queued", text.find("cfs_rq[1]:/autogroup-1"));
  std::string edited = text;
  edited.replace(edited.find(": 3", at), 3, ": 2");
  const auto r = check(edited);
  const auto* f = raced(r, "SNAP-AVG-VRUNTIME");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("3 entities in state R but nr_queued 2 (line 155)"), std::string::npos)
      << f->message;
}

TEST(SnapshotRace, TheRunningTaskAdvancedBetweenTheLinesIsInconclusive) {
  // 4974 (running) is 5 ms further on in its row than avg_vruntime had it (and ineligible by
  // then): the average and the flag of 4975 (now E, as against the rows' average) disagree
  // with avg_vruntime.
  std::string text = edit(snapshot_text(), kHog4974, "21263.234061   E", "21268.234061   N");
  text = edit(text, kHog4975, "   N   ", "   E   ");
  const auto r = check(text);
  const auto* avg = raced(r, "SNAP-AVG-VRUNTIME");
  ASSERT_NE(avg, nullptr);
  EXPECT_NE(avg->message.find("running task's row (line 261)"), std::string::npos) << avg->message;
  const auto* elig = raced(r, "SNAP-ELIGIBLE");
  ASSERT_NE(elig, nullptr);
  EXPECT_NE(elig->where.find("pid 4975"), std::string::npos);
  // A non-running task cannot have advanced: the same shift of 4973 is a violation.
  EXPECT_FALSE(check(edit(snapshot_text(), kHog4973, "21264.702458", "21269.702458")).ok());
}

TEST(SnapshotRace, AChildBeforeItsFirstPlacementIsInconclusive) {
  // A child listed between fork and its placement: never run, vruntime 0, its parent's deadline.
  const std::string row =
      " R             hog  4990         0.000000   E       21266.088962           1.400000    "
      "     0.000000         0     120         0.000000         0.000000         0.000000   0     "
      " 0        /autogroup-1\n";
  std::string text = snapshot_text();
  text.insert(text.find(kHog4975), row);
  const auto r = check(text);
  const auto* f = raced(r, "SNAP-DEADLINE");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("between fork and its first placement"), std::string::npos);
  EXPECT_EQ(r.checks.at("SNAP-AVG-VRUNTIME").held, r.checks.at("SNAP-AVG-VRUNTIME").checked());
}

TEST(SnapshotRace, TheLeftmostPickedBetweenTheLinesIsInconclusive) {
  // left_deadline is the running task's deadline: it was the leftmost when the cfs_rq was
  // printed and was picked before the task list.
  const std::string text = edit(snapshot_text(), ".left_deadline                 : 21266.088962",
                                "21266.088962", "21265.408854");
  const auto r = check(text);
  const auto* f = raced(r, "SNAP-LEFT-DEADLINE");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("running task (line 261)"), std::string::npos) << f->message;
}

}  // namespace
}  // namespace vlag::kernel
