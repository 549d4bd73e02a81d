// The live test of kernel/bpf: two CPU hogs (nice 0 and 2) and a periodic task with a custom
// slice, pinned to the last CPU, under the BPF capture of that CPU's runqueue with queue
// snapshots; then what must hold of the kernel's own numbers (tests/kernel/bpf/state_checks.h).
// Skipped, visibly, where capturing is not possible (BPF part not built, not root, no BTF).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include "kernel/bpf/state_capture.h"
#include "tests/kernel/bpf/state_checks.h"
#include "tests/support/temp_dir.h"

namespace vlag::kernel::bpf {
namespace {

struct Captured {
  CaptureResult result;
  std::vector<StateRecord> records;
  std::vector<int32_t> hogs;
  int32_t periodic = 0;
  int cpu = 0;
};

// Runs the workload once for every test of this file.
const Captured& captured() {
  static const Captured c = [] {
    Captured out;
    out.cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
    const testing::TempDir dir;
    const std::string pin = "taskset -c " + std::to_string(out.cpu) + " ";
    const std::string pids = dir.path() + "/hogs.txt", stats = dir.path() + "/periodic.txt";
    const auto hog = [&](int nice) {
      return pin + VLAG_TOOL_HOG + " 1.2 " + std::to_string(nice) + " " + pids + " & ";
    };
    CaptureOptions o;
    o.cpus = {out.cpu};
    o.queues = true;
    o.duration_s = 20;  // a bound: the command ends it after about 1.2 s
    o.command = {
        "sh", "-c",
        hog(0) + hog(2) + pin + VLAG_TOOL_PERIODIC + " 1.0 2000 200 500 " + stats + "; wait"};
    out.result = capture(o, [&](const StateRecord& r) { out.records.push_back(r); });
    std::stable_sort(
        out.records.begin(), out.records.end(),
        [](const StateRecord& a, const StateRecord& b) { return a.time_ns < b.time_ns; });
    std::ifstream hog_list(pids);
    for (int32_t pid = 0; hog_list >> pid;) out.hogs.push_back(pid);
    int64_t p50 = 0, p99 = 0;
    std::ifstream(stats) >> p50 >> p99 >> out.periodic;
    return out;
  }();
  return c;
}

class LiveStateCapture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!capture_built())
      GTEST_SKIP() << "kernel/bpf was not built here (clang, bpftool or libbpf missing)";
    if (const auto missing = capture_unavailable())
      GTEST_SKIP() << "cannot capture here: " << missing->what();
  }
  // Prints what the check judged; no violation, and at least `min_judged` cases judged.
  static void expect_clean(const char* check, const checks::Tally& t, uint64_t min_judged) {
    std::cout << "[ capture  ] " << check << ": " << t.summary() << "\n";
    EXPECT_TRUE(t.violations.empty()) << check << ": " << t.summary();
    EXPECT_GE(t.judged, min_judged) << check;
  }
  static checks::SumWeights convention(const Captured& c) {
    const auto w = checks::sum_convention(c.records);
    EXPECT_TRUE(w) << "neither scaled nor full weights sum to sum_weight in every snapshot";
    return w.value_or(checks::SumWeights::Scaled);
  }
};

TEST_F(LiveStateCapture, RecordsArriveForBothHogsWithNoneLost) {
  const Captured& c = captured();
  EXPECT_EQ(c.result.stopped_by, "command");
  EXPECT_EQ(c.result.lost_total(), 0u) << "the ring buffer dropped records at this load";
  ASSERT_EQ(c.hogs.size(), 2u);
  ASSERT_GT(c.periodic, 0) << "the periodic task wrote no statistics";
  std::map<int32_t, int> switched_in;
  for (const auto& r : c.records)
    if (r.kind == RecordKind::Switch) ++switched_in[r.tasks[1].pid];
  for (const int32_t hog : c.hogs) EXPECT_GE(switched_in[hog], 20) << "hog " << hog;
  // It wakes every 2 ms for 1 s: 500 times on a quiet machine, fewer on a loaded one.
  EXPECT_GE(switched_in[c.periodic], 20) << "the periodic task hardly ran";
  // Every record of the hogs carries their chain, on the pinned CPU's runqueue once taskset
  // has moved them there (before, a hog may run where it was forked, and the move itself
  // charges its run there: a runtime record on the old CPU).
  std::set<int32_t> arrived;
  for (const auto& r : c.records)
    for (const auto& t : r.tasks)
      if (std::count(c.hogs.begin(), c.hogs.end(), t.pid)) {
        ASSERT_TRUE(t.fair);
        ASSERT_FALSE(t.chain.empty());
        if (t.task_cpu == c.cpu) arrived.insert(t.pid);
        if (r.kind != RecordKind::Migrate && arrived.count(t.pid)) {
          EXPECT_EQ(t.task_cpu, c.cpu) << kind_name(r.kind);
        }
      }
  for (const int32_t hog : c.hogs) EXPECT_TRUE(arrived.count(hog)) << "hog " << hog;
  std::cout << "[ capture  ] " << c.records.size() << " records in " << c.result.seconds
            << " s, kernel " << c.result.kernel.release << ", layout "
            << c.result.kernel.layout.describe() << "\n";
}

TEST_F(LiveStateCapture, VruntimeNeverDecreasesWhileOnOneCfsRq) {
  const Captured& c = captured();
  std::vector<int32_t> ours = c.hogs;
  ours.push_back(c.periodic);
  expect_clean("vruntime monotonic (hogs, periodic)", checks::vruntime_monotonic(c.records, ours),
               100);
  expect_clean("vruntime monotonic (every task)", checks::vruntime_monotonic(c.records, {}), 100);
}

TEST_F(LiveStateCapture, KernelSumsEqualItsOwnTree) {
  const Captured& c = captured();
  const auto w = convention(c);
  std::cout << "[ capture  ] sums use " << checks::sum_weights_name(w) << " weights\n";
  expect_clean("sum_weight, sum_w_vruntime against the tree", checks::queue_sums(c.records, w),
               100);
}

TEST_F(LiveStateCapture, SumWeightEqualsTheEntitiesTheCaptureKnowsQueued) {
  const Captured& c = captured();
  expect_clean("sum_weight against entities known queued",
               checks::known_queue_sums(c.records, convention(c), c.cpu), 50);
}

TEST_F(LiveStateCapture, EveryPickIsEligibleAndOfEarliestEligibleDeadline) {
  const Captured& c = captured();
  expect_clean("picks (eligible, earliest eligible deadline)",
               checks::picks(c.records, convention(c)), 100);
}

TEST_F(LiveStateCapture, WakeupsShowThePlacedEntity) {
  const Captured& c = captured();
  const auto t = checks::placements(c.records, c.periodic);
  // A task that is always late is woken while still running: nothing is placed then.
  const auto late = t.unknowable.find("woken while running: nothing to place");
  if (t.judged < 20 && t.violations.empty() && late != t.unknowable.end() &&
      late->second > t.judged)
    GTEST_SKIP() << "the machine is too loaded: the periodic task was woken while running "
                 << late->second << " times, placed only " << t.judged << " times";
  expect_clean("periodic task placements", t, 20);
}

}  // namespace
}  // namespace vlag::kernel::bpf
