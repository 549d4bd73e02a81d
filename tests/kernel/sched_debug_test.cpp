// The sched debug parser and the SNAP-* checks, on snapshots captured from Linux 6.18 (see
// tests/data/linux/README.md) and on copies of them broken one field at a time.
#include "kernel/sched_debug.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel/snapshot_check.h"
#include "spec/error.h"
#include "tests/kernel/snapshot_text.h"

namespace vlag::kernel {
namespace {

std::string read(const std::string& name) { return testing::linux_data(name); }

SchedDebugSnapshot parse(const std::string& text, const std::string& name = "snap") {
  std::istringstream in(text);
  return parse_sched_debug(in, name);
}

using testing::edit;

bool violates(const SnapshotReport& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id && f.verdict == Verdict::Violated) return true;
  return false;
}

TEST(SchedDebug, MsWithSixDecimalsIsExactNanoseconds) {
  EXPECT_EQ(parse_ms_as_ns("21265.085472", "f", 1, "x"), 21'265'085'472);
  EXPECT_EQ(parse_ms_as_ns("-1.048576", "f", 1, "x"), -1'048'576);
  EXPECT_EQ(parse_ms_as_ns("0.000001", "f", 1, "x"), 1);
  EXPECT_THROW(parse_ms_as_ns("1.5", "f", 1, "x"), Error);
  EXPECT_THROW(parse_ms_as_ns("abc.000000", "f", 1, "x"), Error);
  // Found by the fuzzer: a sign inside the number.
  EXPECT_THROW(parse_ms_as_ns("12.-84462", "f", 1, "x"), Error);
  EXPECT_THROW(parse_ms_as_ns("--5.000000", "f", 1, "x"), Error);
  EXPECT_THROW(parse_ms_as_ns("9223372036854.-84462", "f", 1, "x"), Error);
  EXPECT_THROW(parse_ms_as_ns("99999999999999999.000000", "f", 1, "x"), Error);
  try {
    parse_ms_as_ns("1.5", "snap.txt", 42, "vruntime");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("snap.txt:42: field 'vruntime'", 0), 0u) << e.what();
  }
}

TEST(SchedDebug, ParsesCpusCfsRqsAndTheTaskTable) {
  const auto s = parse(read("hogs-nice.sched-debug.1.txt"));
  EXPECT_EQ(s.version, "v0.11, 6.18.44-fc-v782 #1");
  EXPECT_EQ(s.base_slice_ns, 1'400'000);
  ASSERT_EQ(s.cpus.size(), 2u);
  const auto& cpu1 = s.cpus[1];
  EXPECT_EQ(cpu1.id, 1);
  ASSERT_GE(cpu1.cfs_rqs.size(), 2u);
  const auto& group = cpu1.cfs_rqs[0];
  EXPECT_EQ(group.path, "/autogroup-1");
  EXPECT_EQ(group.time_ns("avg_vruntime", s.file), 21'265'085'472);
  EXPECT_EQ(group.integer("nr_queued", s.file), 3);
  EXPECT_EQ(group.integer("load", s.file), 3'758'080);  // (1024 + 655 + 1991) << 10
  int hogs = 0;
  for (const auto& t : cpu1.tasks) {
    if (t.comm != "hog") continue;
    ++hogs;
    EXPECT_EQ(t.state, 'R');
    EXPECT_EQ(t.group_path, "/autogroup-1");
    if (t.pid == 4974) {
      EXPECT_TRUE(t.current);
      EXPECT_EQ(t.prio, 122);
    }
    if (t.pid == 4975) {
      EXPECT_EQ(t.eligible, false);
    }
  }
  EXPECT_EQ(hogs, 3);
}

TEST(SchedDebug, CustomSliceFlagIsReadBeforeTheSlice) {
  const auto s = parse(read("periodic-slice.sched-debug.2.txt"));
  bool found = false;
  for (const auto& cpu : s.cpus)
    for (const auto& t : cpu.tasks)
      if (t.slice_ns == 500'000) {
        found = true;
        EXPECT_TRUE(t.custom_slice);
      }
  EXPECT_TRUE(found);
}

TEST(SnapshotCheck, EveryCapturedSnapshotHolds) {
  for (const char* name :
       {"hogs-nice.sched-debug.1.txt", "hogs-nice.sched-debug.2.txt", "hogs-nice.sched-debug.3.txt",
        "periodic-slice.sched-debug.1.txt", "periodic-slice.sched-debug.2.txt",
        "periodic-slice.sched-debug.3.txt", "hackbench.sched-debug.1.txt",
        "hackbench.sched-debug.2.txt", "hackbench.sched-debug.3.txt"}) {
    const auto r = check_snapshot(parse(read(name), name));
    EXPECT_TRUE(r.ok()) << name;
    EXPECT_GT(r.checks.at("SNAP-AVG-VRUNTIME").checked(), 0) << name;
    EXPECT_GT(r.checks.at("SNAP-ELIGIBLE").checked(), 0) << name;
  }
}

TEST(SnapshotCheck, AFlippedEligibleFlagIsAViolationAtItsLine) {
  const std::string text =
      edit(read("hogs-nice.sched-debug.1.txt"), " R             hog  4975", "   N   ", "   E   ");
  const auto r = check_snapshot(parse(text));
  ASSERT_TRUE(violates(r, "SNAP-ELIGIBLE"));
  for (const auto& f : r.findings)
    if (f.id == "SNAP-ELIGIBLE") {
      EXPECT_NE(f.where.find("pid 4975"), std::string::npos);
    }
}

TEST(SnapshotCheck, AMovedAverageIsAViolation) {
  const std::string text =
      edit(read("hogs-nice.sched-debug.1.txt"), ".avg_vruntime                  : 21265.085472",
           "21265.085472", "21265.085473");
  EXPECT_TRUE(violates(check_snapshot(parse(text)), "SNAP-AVG-VRUNTIME"));
}

TEST(SnapshotCheck, AWrongLeftDeadlineIsAViolation) {
  const std::string text =
      edit(read("hogs-nice.sched-debug.1.txt"), "21266.088962", "21266.088962", "21266.088961");
  EXPECT_TRUE(violates(check_snapshot(parse(text)), "SNAP-LEFT-DEADLINE"));
}

TEST(SnapshotCheck, ADeadlineBeyondOneSliceIsAViolation) {
  // hog 4973 (nice 0, slice 1.4 ms): deadline pushed 10 ms ahead of its vruntime.
  const std::string text = edit(read("hogs-nice.sched-debug.1.txt"), " R             hog  4973",
                                "21266.088962", "21274.702458");
  EXPECT_TRUE(violates(check_snapshot(parse(text)), "SNAP-DEADLINE"));
}

TEST(SchedDebug, MalformedInputNamesFileLineAndField) {
  const std::string text = edit(read("hogs-nice.sched-debug.1.txt"), " R             hog  4973",
                                "21264.702458", "21264.70245x");
  try {
    parse(text, "bad.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.txt:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("field 'vruntime'"), std::string::npos) << msg;
  }
  EXPECT_THROW(parse("hello\nworld\n"), Error);
  EXPECT_THROW(parse("cfs_rq[0]:/\n"), Error);
  EXPECT_THROW(parse("cpu#0, 1 MHz\nrunnable tasks:\n S task PID\nxx\n"), Error);
}

}  // namespace
}  // namespace vlag::kernel

namespace vlag::kernel {
namespace {

// A CFS-era layout (Linux 5.x): min_vruntime, nr_running, a "tree-key" column and no eligibility
// or deadline columns. It parses; the checks that need what it lacks are skipped, not failed.
TEST(SchedDebug, OlderKernelLayoutParsesAndSkipsWhatItCannotCheck) {
  const std::string text =
      "Sched Debug Version: v0.11, 5.15.0-91-generic #101-Ubuntu\n"
      "cpu#0, 2400.000 MHz\n"
      "  .nr_running                    : 2\n"
      "\n"
      "cfs_rq[0]:/\n"
      "  .exec_clock                    : 0.000000\n"
      "  .min_vruntime                  : 1000.000000\n"
      "  .nr_running                    : 2\n"
      "  .load                          : 2048\n"
      "\n"
      "runnable tasks:\n"
      " S            task   PID         tree-key  switches  prio     wait-time             "
      "sum-exec        sum-sleep\n"
      "-----------------------------------------------------------------------------------------"
      "--------------------\n"
      ">R            loop  1234      1001.500000      10   120         0.000000         5.000000 "
      "        0.000000 0 0 /\n"
      " R            loop  1235      1000.500000      12   120         0.000000         5.000000 "
      "        0.000000 0 0 /\n";
  std::istringstream in(text);
  const auto s = parse_sched_debug(in, "old.txt");
  ASSERT_EQ(s.cpus.size(), 1u);
  ASSERT_EQ(s.cpus[0].tasks.size(), 2u);
  EXPECT_EQ(s.cpus[0].tasks[0].vruntime_ns, 1'001'500'000);
  EXPECT_FALSE(s.cpus[0].tasks[0].eligible);
  EXPECT_FALSE(s.cpus[0].tasks[0].deadline_ns);
  const auto r = check_snapshot(s);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.notes.empty());  // no avg_vruntime: said so
}

}  // namespace
}  // namespace vlag::kernel
