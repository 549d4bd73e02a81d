// The perf script / trace-cmd text parser, on captures from Linux 6.18 and on broken lines.
#include "kernel/perf_script.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "kernel/time_merge.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

std::vector<KernelEvent> parse_file(const std::string& name, PerfParseStats* stats = nullptr) {
  std::ifstream in(std::string(VLAG_TEST_DATA) + "/linux/" + name);
  EXPECT_TRUE(in) << name;
  std::vector<KernelEvent> out;
  const auto s = parse_perf_script(in, name, [&](const KernelEvent& e) { out.push_back(e); });
  if (stats) *stats = s;
  return out;
}

TEST(PerfScript, ParsesASwitchLine) {
  const auto e = parse_perf_line(
      "             hog  4988 [001]   377.672517:       sched:sched_switch: prev_comm=hog "
      "prev_pid=4988 prev_prio=120 prev_state=R ==> next_comm=taskset next_pid=4987 "
      "next_prio=120",
      "f", 7);
  EXPECT_EQ(e.kind, KernelEventKind::Switch);
  EXPECT_EQ(e.line, 7);
  EXPECT_EQ(e.cpu, 1);
  EXPECT_EQ(e.time_ns, 377'672'517'000);
  EXPECT_EQ(e.prev_comm, "hog");
  EXPECT_EQ(e.prev_pid, 4988);
  EXPECT_EQ(e.prev_state, "R");
  EXPECT_EQ(e.comm, "taskset");
  EXPECT_EQ(e.pid, 4987);
  EXPECT_EQ(e.prio, 120);
}

TEST(PerfScript, TaskNamesWithSpacesAndTraceCmdLayout) {
  const auto e = parse_perf_line(
      "Web Content  7001 [003]  10.000000001: sched:sched_switch: prev_comm=Web Content "
      "prev_pid=7001 prev_prio=120 prev_state=S ==> next_comm=Isolated Web Co next_pid=7002 "
      "next_prio=139",
      "f", 1);
  EXPECT_EQ(e.prev_comm, "Web Content");
  EXPECT_EQ(e.comm, "Isolated Web Co");
  EXPECT_EQ(e.time_ns, 10'000'000'001);
  EXPECT_EQ(e.prio, 139);
  const auto t = parse_perf_line(
      "          <idle>-0     [001] d..2.  1234.567890: sched_wakeup:         comm=kworker/1:2 "
      "pid=118 prio=120 target_cpu=001",
      "f", 2);
  EXPECT_EQ(t.kind, KernelEventKind::Wakeup);
  EXPECT_EQ(t.comm, "kworker/1:2");
  EXPECT_EQ(t.target_cpu, 1);
  EXPECT_EQ(t.time_ns, 1'234'567'890'000);
  const auto r = parse_perf_line(
      "  <...>-12 [000] 5.5: sched_stat_runtime: comm=a b pid=12 runtime=2000 [ns] vruntime=9 [ns]",
      "f", 3);
  EXPECT_EQ(r.comm, "a b");
  EXPECT_EQ(r.runtime_ns, 2000);
}

// The task before [CPU] is the one that ran there: perf's "comm pid/tid" gives the tid,
// trace-cmd's "comm-pid" the pid (0 is idle); perf's bare pid is a process's and a thread perf
// could not resolve is -1: neither names the task.
TEST(PerfScript, TheHeadersTidIsTheCurrentTask) {
  const auto line = [](const std::string& task) {
    return parse_perf_line(task + " [001] 1.0: sched:sched_wakeup: comm=a pid=5 prio=120", "f", 1)
        .current_pid;
  };
  EXPECT_EQ(line(" kworker/1:0-vir 11204/11205"), 11205);
  EXPECT_EQ(line("         swapper     0/0"), 0);
  EXPECT_EQ(line("          <idle>-0    "), 0);
  EXPECT_EQ(line("  Web Content-7001"), 7001);
  EXPECT_EQ(line("             hog  4988"), std::nullopt);
  EXPECT_EQ(line("  tokio-rt-worker  -1/-1"), std::nullopt);
  EXPECT_EQ(line("  kworker/1:0"), std::nullopt);
}

TEST(PerfScript, CapturedTracesParseWhole) {
  PerfParseStats stats;
  const auto hogs = parse_file("hogs-nice.perf.txt", &stats);
  EXPECT_EQ(stats.events, static_cast<int64_t>(hogs.size()));
  EXPECT_EQ(stats.skipped, 0);
  std::map<KernelEventKind, int> kinds;
  for (const auto& e : parse_file("hackbench-head.perf.txt")) ++kinds[e.kind];
  EXPECT_GT(kinds[KernelEventKind::Switch], 1000);
  EXPECT_GT(kinds[KernelEventKind::Wakeup], 500);
  EXPECT_GT(kinds[KernelEventKind::WakeupNew], 10);
  EXPECT_GT(kinds[KernelEventKind::Migrate], 0);
  // Three hogs pinned to CPU 1 with nice 0, 2, -3: prio 120, 122, 117 once they ran.
  std::map<int64_t, int> prio;
  for (const auto& e : hogs)
    if (e.kind == KernelEventKind::Switch && e.comm == "hog" && e.prio) prio[e.pid] = *e.prio;
  ASSERT_EQ(prio.size(), 3u);
  std::vector<int> got;
  for (const auto& [pid, p] : prio) got.push_back(p);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int>{117, 120, 122}));
}

TEST(PerfScript, BadLinesNameFileLineAndField) {
  const auto msg = [](const std::string& text) {
    try {
      parse_perf_line(text, "t.txt", 9);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("garbage").find("t.txt:9: field 'cpu'"), std::string::npos);
  EXPECT_NE(msg("a 1 [000] x: sched:sched_switch:").find("field 'time'"), std::string::npos);
  EXPECT_NE(msg("a 1 [000] 1.0: sched:sched_foo: x=1").find("unknown event 'sched_foo'"),
            std::string::npos);
  EXPECT_NE(
      msg("a 1 [000] 1.0: sched:sched_wakeup: comm=a pid=zz prio=1").find("field 'pid': 'zz'"),
      std::string::npos);
  EXPECT_NE(msg("a 1 [000] 1.0: sched:sched_switch: next_pid=3").find("field 'prev_pid'"),
            std::string::npos);
  EXPECT_NE(
      msg("a 1 [000] 99999999999999.0: sched:sched_wakeup: comm=a pid=1").find("does not fit"),
      std::string::npos);  // Found by the fuzzer: a garbled CPU number must not size anything.
  EXPECT_NE(msg("a 1 [9001] 1.0: sched:sched_wakeup: comm=a pid=1").find("field 'cpu'"),
            std::string::npos);
  EXPECT_NE(msg("a 1 [001] 1.0: sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=99999")
                .find("field 'target_cpu'"),
            std::string::npos);
}

// A plain line is read straight into the event; a line that is not plain — words before the
// first key, a '=' inside a value, a key twice — goes the general way and means the same as
// before: the fields it holds, or the error it has.
TEST(PerfScript, LinesOffThePlainLayoutParseAsBefore) {
  const std::string head = "a 1 [000] 1.0: sched:sched_switch: ";
  const auto plain = parse_perf_line(head +
                                         "prev_comm=x y prev_pid=4 prev_prio=120 prev_state=S ==> "
                                         "next_comm=b=c next_pid=5 next_prio=-1",
                                     "f", 1);
  EXPECT_EQ(plain.prev_comm, "x y");
  EXPECT_EQ(plain.prev_leave, PrevState::Blocked);
  EXPECT_EQ(plain.comm, "b=c");  // through the general way: '=' in a value
  EXPECT_EQ(plain.pid, 5);
  EXPECT_EQ(plain.prio, -1);
  const auto junk = parse_perf_line(
      "a 1 [000] 1.0: sched:sched_wakeup: note comm=a  pid=7   prio=120 target_cpu=001", "f", 2);
  EXPECT_EQ(junk.comm, "a");
  EXPECT_EQ(junk.pid, 7);
  EXPECT_EQ(junk.target_cpu, 1);
  const auto twice = [&](const std::string& trace) {
    try {
      parse_perf_line(head + trace, "f", 3);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(twice("prev_comm=x prev_pid=4 prev_prio=120 prev_state=S ==> next_comm=b prev_pid=9 "
                  "next_pid=5 next_prio=120"),
            "f:3: field 'prev_pid': given twice");
  EXPECT_EQ(twice("prev_comm=x prev_pid=4 prev_prio=120 prev_state=S ==> next_comm=b "
                  "next_pid=5 next_prio=140"),
            "f:3: field 'next_prio': prio 140 is outside -1..139");
  // Found by the fuzzer (a null pointer given to memchr, under UBSan): an event with no fields
  // at all is not plain either, and says which field it lacks.
  try {
    parse_perf_line("a 1 [000] 1.0: sched:sched_switch:", "f", 4);
    ADD_FAILURE() << "a switch with no fields parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "f:4: field 'next_pid': missing");
  }
  EXPECT_EQ(twice("   "), "f:3: field 'next_pid': missing");
}

TEST(PerfScript, KeepGoingCountsAndSkipsBadLines) {
  std::istringstream in(
      "a 1 [000] 1.0: sched:sched_wakeup: comm=a pid=1 prio=120 target_cpu=000\n"
      "broken line\n"
      "# comment\n"
      "a 1 [000] 2.0: sched:sched_wakeup: comm=a pid=2 prio=120 target_cpu=000\n");
  int n = 0;
  const auto s = parse_perf_script(in, "k.txt", [&](const KernelEvent&) { ++n; }, {true});
  EXPECT_EQ(n, 2);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_NE(s.first_error.find("k.txt:2:"), std::string::npos);
  std::istringstream again("broken line\n");
  EXPECT_THROW(parse_perf_script(again, "k.txt", [](const KernelEvent&) {}), Error);
}

}  // namespace
}  // namespace vlag::kernel

namespace vlag::kernel {
namespace {

TEST(TimeMerge, PerCpuStreamsComeOutInTimeOrderWithinTheWindow) {
  std::vector<int64_t> out;
  TimeMerger merge(4, [&](const KernelEvent& e) { out.push_back(e.time_ns); });
  for (int64_t t : {10, 30, 20, 40, 15, 50, 60, 70, 80}) {
    KernelEvent e;
    e.time_ns = t;
    merge.push(std::move(e));
  }
  merge.flush();
  EXPECT_EQ(out, (std::vector<int64_t>{10, 15, 20, 30, 40, 50, 60, 70, 80}));
  EXPECT_EQ(merge.late(), 0);
  KernelEvent old;
  old.time_ns = 5;  // older than what already went out: passed on, counted
  merge.push(std::move(old));
  EXPECT_EQ(merge.late(), 1);
  EXPECT_EQ(out.back(), 5);
}

}  // namespace
}  // namespace vlag::kernel
