// Bad input for every kernel parser — perf script / trace-cmd text, sched debug snapshots, the
// group map, and the files holding them: empty, a directory, garbage, truncated, out of range,
// negative, duplicate, NUL bytes, other layouts. Each is an error naming file, line and field
// (vlag exits 2 on it); none crashes. And the real layouts that are not errors parse.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel/capture_reader.h"
#include "kernel/check_options.h"
#include "kernel/perf_script.h"
#include "kernel/sched_debug.h"
#include "spec/error.h"
#include "tests/kernel/shell_run.h"
#include "tests/kernel/snapshot_text.h"

namespace vlag::kernel {
namespace {

std::string perf_error(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_perf_script(in, "p.txt", [](const KernelEvent&) {});
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const std::string kSwitch =
    "hog 10/10 [001] 5.000000001: sched:sched_switch: prev_comm=hog prev_pid=10 prev_prio=120 "
    "prev_state=R ==> next_comm=hog next_pid=11 next_prio=120\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

TEST(KernelBadInput, PerfScriptEveryClassNamesFileLineAndField) {
  EXPECT_EQ(perf_error(kSwitch), "no error");
  EXPECT_NE(perf_error("").find("p.txt: no sched events"), std::string::npos);
  EXPECT_NE(perf_error("# only a comment\n\n").find("p.txt: no sched events"), std::string::npos);
  EXPECT_NE(perf_error("garbage\n").find("p.txt:1: field 'cpu'"), std::string::npos);
  // truncated: the line ends before next_pid
  EXPECT_NE(
      perf_error(kSwitch.substr(0, kSwitch.find(" next_pid"))).find("field 'next_pid': missing"),
      std::string::npos);
  EXPECT_NE(
      perf_error(replaced(kSwitch, "next_prio=120", "next_prio=")).find("field 'next_prio': empty"),
      std::string::npos);
  // out of range and negative
  EXPECT_NE(perf_error(replaced(kSwitch, "next_pid=11", "next_pid=-7"))
                .find("p.txt:1: field 'next_pid': pid -7 is outside 0..4194304"),
            std::string::npos);
  EXPECT_NE(perf_error(replaced(kSwitch, "prev_prio=120", "prev_prio=99999"))
                .find("field 'prev_prio': prio 99999 is outside -1..139"),
            std::string::npos);
  EXPECT_NE(perf_error(replaced(kSwitch, "[001]", "[9001]")).find("field 'cpu'"),
            std::string::npos);
  EXPECT_NE(perf_error(replaced(kSwitch, "prev_state=R", "prev_state=Q"))
                .find("field 'prev_state': 'Q' is not a task state"),
            std::string::npos);
  EXPECT_NE(perf_error("a 1/1 [000] 1.0: sched:sched_stat_runtime: comm=a pid=1 runtime=-5 [ns]\n")
                .find("field 'runtime': runtime -5 is outside"),
            std::string::npos);
  EXPECT_NE(perf_error(replaced(kSwitch, "5.000000001", "-5.0")).find("field 'time'"),
            std::string::npos);
  EXPECT_NE(perf_error("a 1/1 [000] 1.0: sched:sched_wakeup: comm=a pid=1 prio=120 "
                       "target_cpu=8192\n")
                .find("field 'target_cpu'"),
            std::string::npos);
  // duplicate
  EXPECT_NE(perf_error(replaced(kSwitch, "next_prio=120", "next_prio=120 next_pid=12"))
                .find("field 'next_pid': given twice"),
            std::string::npos);
  // NUL byte
  std::string nul = kSwitch;
  nul[20] = '\0';
  EXPECT_NE(perf_error(nul).find("p.txt:1: field 'line': NUL byte at column 21"),
            std::string::npos);
  // trace-cmd's first line
  EXPECT_EQ(perf_error("cpus=2\n" + kSwitch), "no error");
  EXPECT_NE(perf_error("cpus=0\n" + kSwitch).find("field 'cpus'"), std::string::npos);
  EXPECT_NE(perf_error("cpus=two\n" + kSwitch).find("field 'cpus'"), std::string::npos);
}

TEST(KernelBadInput, PerfScriptKeepGoingCountsWhatItSkips) {
  std::istringstream in(kSwitch + "garbage\n" + replaced(kSwitch, "next_pid=11", "next_pid=-7"));
  int n = 0;
  const auto stats = parse_perf_script(in, "k.txt", [&](const KernelEvent&) { ++n; }, {true});
  EXPECT_EQ(n, 1);
  EXPECT_EQ(stats.skipped, 2);
  EXPECT_NE(stats.first_error.find("k.txt:2:"), std::string::npos);
  std::istringstream only_garbage("garbage\nmore\n");
  EXPECT_THROW(parse_perf_script(only_garbage, "k.txt", [](const KernelEvent&) {}, {true}), Error);
}

// trace-cmd report's layouts, recorded on the development machine (tests/kernel/data/README.md):
// the sched_switch / sched_wakeup plugins' pretty form, -N (key=value) and -R (raw numbers) give
// the same events.
TEST(KernelBadInput, TraceCmdLayoutsParseAlike) {
  std::vector<std::vector<KernelEvent>> all;
  for (const char* name : {"trace-cmd-plugin.txt", "trace-cmd-fields.txt", "trace-cmd-raw.txt"}) {
    std::ifstream in(std::string(VLAG_KERNEL_TEST_DATA) + "/" + name);
    ASSERT_TRUE(in) << name;
    std::vector<KernelEvent> events;
    const auto stats =
        parse_perf_script(in, name, [&](const KernelEvent& e) { events.push_back(e); });
    EXPECT_EQ(stats.cpus, 2) << name;
    EXPECT_EQ(stats.skipped, 0) << name;
    all.push_back(events);
  }
  ASSERT_EQ(all[0].size(), all[1].size());
  ASSERT_EQ(all[0].size(), all[2].size());
  int switches = 0;
  for (size_t i = 0; i < all[0].size(); ++i)
    for (const auto* other : {&all[1][i], &all[2][i]}) {
      const KernelEvent& a = all[0][i];
      EXPECT_EQ(a.kind, other->kind) << i;
      EXPECT_EQ(a.time_ns, other->time_ns) << i;
      EXPECT_EQ(a.pid, other->pid) << i;
      EXPECT_EQ(a.prio, other->prio) << i;
      EXPECT_EQ(a.prev_pid, other->prev_pid) << i;
      EXPECT_EQ(a.target_cpu, other->target_cpu) << i;
      EXPECT_EQ(a.current_pid, other->current_pid) << i;
      // The plugin's letters are older than the kernel's (it prints X for a zombie, W for an
      // idle kthread, and no '+'): what the state means is the same.
      const bool runnable_a =
          a.prev_leave == PrevState::Runnable || a.prev_leave == PrevState::Preempted;
      const bool runnable_b =
          other->prev_leave == PrevState::Runnable || other->prev_leave == PrevState::Preempted;
      EXPECT_EQ(runnable_a, runnable_b) << i;
      if (a.kind == KernelEventKind::Switch && i == 0) ++switches;
    }
}

std::string snap_error(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_sched_debug(in, "s.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string snapshot() { return testing::linux_data("nice/sched-debug.1.txt"); }

TEST(KernelBadInput, SchedDebugEveryClassNamesFileLineAndField) {
  const std::string s = snapshot();
  EXPECT_EQ(snap_error(s), "no error");
  EXPECT_NE(snap_error("").find("s.txt: no cpu# sections"), std::string::npos);
  EXPECT_NE(snap_error("hello\nworld\n").find("s.txt: no cpu# sections"), std::string::npos);
  // truncated: the file stops inside the second CPU's section, or in a task row
  EXPECT_NE(snap_error(s.substr(0, s.find("cfs_rq[1]:/"))).find("has no runnable tasks table"),
            std::string::npos);
  const size_t rule = s.find("\n-----", s.find("runnable tasks:", s.find("cpu#1,")));
  const size_t row = s.find('\n', rule + 1) + 1;  // the first task row of cpu#1
  EXPECT_NE(snap_error(s.substr(0, row + 40)).find(":535: field 'vruntime': '133.37803' is not"),
            std::string::npos);  // cut inside a value
  EXPECT_NE(
      snap_error(s.substr(0, row + 28)).find(":535: field 'vruntime': missing (truncated row?)"),
      std::string::npos);  // cut between columns
  // out of range, negative
  EXPECT_NE(snap_error(replaced(s, ".nr_running                    : 5",
                                ".nr_running                    : 18446744073709551616"))
                .find("field 'nr_running': '18446744073709551616' is not an integer that fits"),
            std::string::npos);
  EXPECT_NE(snap_error(replaced(s, ".nr_queued                     : 1",
                                ".nr_queued                     : -1"))
                .find("field 'nr_queued': -1 is outside"),
            std::string::npos);
  EXPECT_NE(snap_error(replaced(s, ".sysctl_sched_base_slice                 : 1.400000",
                                ".sysctl_sched_base_slice                 : -1.400000"))
                .find("s.txt:9: field 'sysctl_sched_base_slice': -1.400000 is not a positive time"),
            std::string::npos);
  EXPECT_NE(snap_error(replaced(s, "           1.400000        ", "           0.000000        "))
                .find("field 'slice': 0.000000 is not a positive time"),
            std::string::npos);
  EXPECT_NE(snap_error(replaced(s, "   120         0.000000", "   140         0.000000"))
                .find("field 'prio': 140 is outside -1..139"),
            std::string::npos);
  EXPECT_NE(snap_error(replaced(s, ".curr->pid                     : ",
                                ".curr->pid                     : -"))
                .find("field 'curr->pid'"),
            std::string::npos);
  // duplicate
  EXPECT_NE(
      snap_error(
          replaced(s, ".nr_queued                     : 1",
                   ".nr_queued                     : 1\n  .nr_queued                     : 1"))
          .find("field 'nr_queued': given twice in one section"),
      std::string::npos);
  EXPECT_NE(snap_error(replaced(s, "cpu#1,", "cpu#0,")).find("field 'cpu': cpu#0 given twice"),
            std::string::npos);
  // NUL byte, garbage values, other rows
  std::string nul = s;
  nul[nul.find(".avg_vruntime") + 3] = '\0';
  EXPECT_NE(snap_error(nul).find("field 'line': NUL byte"), std::string::npos);
  EXPECT_NE(snap_error(replaced(s, " E   ", " Y   ")).find("field 'eligible'"), std::string::npos);
  EXPECT_NE(
      snap_error(replaced(s, " S            bash", " Q            bash")).find("field 'state'"),
      std::string::npos);
}

TEST(KernelBadInput, SchedDebugKeepGoingCountsWhatItSkips) {
  std::istringstream in(replaced(snapshot(), " E   ", " Y   "));
  const auto snap = parse_sched_debug(in, "s.txt", {true});
  EXPECT_EQ(snap.skipped, 1);
  EXPECT_NE(snap.first_error.find("field 'eligible'"), std::string::npos);
}

using testing::TempDir;

std::string map_error(const std::string& path) {
  KernelCheckOptions o;
  try {
    read_group_map(path, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(KernelBadInput, GroupMapEveryClassNamesFileLineAndField) {
  TempDir d;
  EXPECT_EQ(map_error(d.file("ok", "# pid group\n10 /a\n11 /b/c\n")), "no error");
  EXPECT_NE(map_error(d.file("empty", "")).find(": no 'PID GROUP' or 'GROUP KNOB VALUE' lines"),
            std::string::npos);
  EXPECT_NE(map_error(d.path()).find("is a directory"), std::string::npos);
  EXPECT_NE(map_error(d.path() + "/absent").find("cannot open"), std::string::npos);
  EXPECT_NE(map_error(d.file("garbage", "hello\n")).find(":1: field 'group': missing"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("truncated", "10 /a\n11")).find(":2: field 'group': missing"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("negative", "-7 /a\n")).find(":1: field 'pid': -7 is outside"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("range", "99999999 /a\n")).find("field 'pid'"), std::string::npos);
  EXPECT_NE(map_error(d.file("pid", "x /a\n")).find("field 'pid': 'x'"), std::string::npos);
  EXPECT_NE(map_error(d.file("dup", "10 /a\n10 /b\n")).find(":2: field 'pid': 10 given twice"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("path", "10 a\n")).find("field 'group': 'a' is not a path"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("extra", "10 /a b\n")).find("field 'group': 'b' after"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("nul", std::string("10 /a\0b\n", 8))).find(":1: field 'line': NUL"),
            std::string::npos);
}

// A group's shares as its cgroup knob sets them: cpu.shares clamped to 2..262144, cpu.weight
// as round(w · 1024 / 100), both exact; and beside the "PID GROUP" lines.
TEST(KernelBadInput, GroupMapSharesLinesGiveTgShares) {
  TempDir d;
  KernelCheckOptions o;
  read_group_map(d.file("shares",
                        "10 /a\n/a cpu.shares 3000\n/b cpu.weight 33\n/c cpu.shares 1\n"
                        "/d cpu.shares 300000\n/e cpu.weight 10000\n\t/f   cpu.weight 1\n"
                        "/g/h cpu.weight 100\n"),
                 o);
  const std::map<std::string, double> expected{{"/a", 3000},   {"/b", 338},    {"/c", 2},
                                               {"/d", 262144}, {"/e", 102400}, {"/f", 10},
                                               {"/g/h", 1024}};
  for (const auto& [group, shares] : expected) {
    ASSERT_TRUE(o.groups[group].shares) << group;
    EXPECT_TRUE(o.groups[group].shares->is_exact()) << group;
    EXPECT_EQ(o.groups[group].shares->lo, shares) << group;
    EXPECT_NE(o.groups[group].shares_source.find("group map"), std::string::npos) << group;
  }
  EXPECT_EQ(o.group_of.at(10), "/a");
  // A map of shares only is a map.
  KernelCheckOptions only;
  read_group_map(d.file("only", "/a cpu.weight 200\n"), only);
  EXPECT_EQ(only.groups["/a"].shares->lo, 2048);
  EXPECT_TRUE(only.group_of.empty());
}

TEST(KernelBadInput, GroupMapSharesLinesNameFileLineAndField) {
  TempDir d;
  EXPECT_NE(map_error(d.file("knob", "/a\n")).find(":1: field 'knob': missing"), std::string::npos);
  EXPECT_NE(map_error(d.file("unknown", "/a cpu.max 5\n"))
                .find(":1: field 'knob': 'cpu.max' is not cpu.shares, cpu.weight or complete"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("value", "10 /a\n/a cpu.shares\n")).find(":2: field 'value': missing"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("text", "/a cpu.shares lots\n")).find(":1: field 'value': 'lots'"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("huge", "/a cpu.shares 99999999999999999999\n"))
                .find(":1: field 'value': '99999999999999999999' is not an integer"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("extra", "/a cpu.shares 10 20\n"))
                .find(":1: field 'value': '20' after the value"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("negative", "/a cpu.shares -1\n"))
                .find(":1: field 'value': cpu.shares -1 is negative"),
            std::string::npos);
  for (const char* w : {"0", "10001", "-5"})
    EXPECT_NE(map_error(d.file("weight", std::string("/a cpu.weight ") + w + "\n"))
                  .find(std::string(":1: field 'value': cpu.weight ") + w + " is outside 1..10000"),
              std::string::npos)
        << w;
  EXPECT_NE(map_error(d.file("root", "/ cpu.shares 1024\n")).find(":1: field 'group': the root"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("auto", "/autogroup-7 cpu.shares 1024\n"))
                .find(":1: field 'group': '/autogroup-7' is an autogroup"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("twice", "/a cpu.shares 1024\n# b\n/a cpu.weight 100\n"))
                .find(":3: field 'group': shares of /a given twice (first on line 1)"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("comments", "# only\n\n")).find(": no 'PID GROUP' or"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("complete", "/a complete all\n"))
                .find(":1: field 'knob': 'all' after complete"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("rootall", "/ complete\n")).find(":1: field 'group': the root group"),
            std::string::npos);
  EXPECT_NE(map_error(d.file("twice", "/a complete\n/a complete\n"))
                .find(":2: field 'group': /a said complete twice (first at "),
            std::string::npos);
}

// "GROUP complete": the map names every task of the group, which the check then trusts.
TEST(KernelBadInput, GroupMapCompleteLinesSayWhichGroupsTheMapNamesWhole) {
  TempDir d;
  KernelCheckOptions o;
  const std::string map = d.file("complete", "10 /a\n11 /b\n/a complete\n/a cpu.shares 1024\n");
  read_group_map(map, o);
  EXPECT_EQ(o.groups["/a"].complete_source, map + ":3");
  EXPECT_TRUE(o.groups["/b"].complete_source.empty());
}

// A snapshot read before the map bounds tg->shares by the group entity's printed weight: shares
// it rules out are refused (the knob was not that during the capture), shares it allows are
// taken as exact.
TEST(KernelBadInput, GroupMapSharesASnapshotRulesOutAreRefused) {
  TempDir d;
  KernelCheckOptions o;
  o.groups["/a"].shares = Range{2042, 2081};
  o.groups["/a"].shares_source = "sched debug snapshot s.txt cfs_rq[1]";
  KernelCheckOptions refused = o;
  const std::string bad = d.file("bad", "/a cpu.shares 1024\n");
  try {
    read_group_map(bad, refused);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":1: field 'value': cpu.shares 1024 (tg->shares "
                                               "1024) contradicts sched debug snapshot s.txt "
                                               "cfs_rq[1]"),
              std::string::npos)
        << e.what();
  }
  read_group_map(d.file("good", "/a cpu.weight 200\n"), o);
  EXPECT_TRUE(o.groups["/a"].shares->is_exact());
  EXPECT_EQ(o.groups["/a"].shares->lo, 2048);
}

TEST(KernelBadInput, CaptureFilesThatAreNotFiles) {
  TempDir d;
  const auto perf = [](const std::string& p) {
    try {
      read_perf_capture(p, [](const KernelEvent&) {});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(perf(d.path()).find("is a directory"), std::string::npos);
  EXPECT_NE(perf(d.path() + "/absent").find("cannot open"), std::string::npos);
  EXPECT_NE(perf(d.file("empty", "")).find("no sched events"), std::string::npos);
  EXPECT_THROW(load_snapshot(d.path()), Error);
  EXPECT_THROW(load_snapshot(d.file("empty2", "")), Error);
}

}  // namespace
}  // namespace vlag::kernel
