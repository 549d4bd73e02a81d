// The checks on the kernel's own numbers against the running kernel: two hogs (nice 0 and 2)
// and a periodic task with a custom slice pinned to the last CPU, captured by
// `vlag kernel record --state`'s own path (kernel/state/record.h, raw records decoded after),
// then judged — nothing violated, nothing lost, and the picks, sums, deadlines, saved lags and
// placements judged by the hundred. Skipped, visibly, where capturing is not possible (the BPF
// part not built, not root, no BTF).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"
#include "kernel/state/record.h"
#include "kernel/state/report.h"
#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

struct Live {
  RecordedState recorded;
  StateCapture capture;
  StateReport report;
};

const Live& live() {
  static const Live l = [] {
    Live out;
    const int cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
    const std::string pin = "taskset -c " + std::to_string(cpu) + " ";
    StateRecordOptions o;
    o.cpus = {cpu};
    o.duration_s = 20;  // a bound: the command ends it after about a second
    o.command = {"sh", "-c",
                 pin + VLAG_TOOL_HOG + " 1 0 - & " + pin + VLAG_TOOL_HOG + " 1 2 - & " + pin +
                     VLAG_TOOL_PERIODIC + " 1 2000 200 500 -; wait"};
    out.recorded = record_state(o);
    out.capture = read_state_capture(out.recorded.dir);
    out.report = check_state_capture(out.capture);
    std::filesystem::remove_all(out.recorded.dir);
    return out;
  }();
  return l;
}

class LiveKernelState : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!bpf::capture_built())
      GTEST_SKIP() << "kernel/bpf was not built here (clang, bpftool or libbpf missing)";
    if (const auto missing = bpf::capture_unavailable())
      GTEST_SKIP() << "cannot capture here: " << missing->what();
  }
};

TEST_F(LiveKernelState, NothingIsLostAndNothingViolated) {
  const Live& l = live();
  std::cout << report_text(l.capture, l.report);
  EXPECT_EQ(l.recorded.result.stopped_by, "command");
  EXPECT_EQ(l.recorded.result.lost_total(), 0u) << "the ring buffer dropped records";
  for (const auto& [id, t] : l.report.tallies) EXPECT_EQ(t.violated, 0u) << id;
}

TEST_F(LiveKernelState, EveryKindOfCaseIsJudgedByTheHundred) {
  const StateReport& r = live().report;
  for (const char* id : {ids::kInvPickEligible, ids::kInvPickEdf, ids::kInvKernelSums,
                         ids::kInvDeadline, ids::kInvLagClamp})
    EXPECT_GE(r.find(id)->held, 100u) << id;
  // The periodic task wakes 500 times beside a hog of its own session: placements of it are
  // judged (fewer on a loaded machine, where it is often woken while still running).
  EXPECT_GE(r.find(ids::kInvPlaceLag)->held, 20u);
  EXPECT_EQ(r.figures.placements_inexact, 0u);
}

TEST_F(LiveKernelState, EveryPlacementIsJudgedFromItsOwnRecord) {
  // Each wakeup record carries its cfs_rq's curr and the wakee's sched_waking state: a placement
  // beside a running group entity, after a remote wakeup or of a task that slept before the
  // capture is judged. What stays inconclusive is what the record truly cannot decide: a delayed
  // entity that left the cfs_rq during the wakeup, after the placement.
  const StateReport& r = live().report;
  const Tally& t = *r.find(ids::kInvPlaceLag);
  for (const auto& [why, n] : t.inconclusive_reasons)
    EXPECT_EQ(why, "a delayed entity left the cfs_rq during the wakeup, unrecorded") << n;
  EXPECT_EQ(r.figures.placements_exact, t.held);
}

}  // namespace
}  // namespace vlag::kernel::state
