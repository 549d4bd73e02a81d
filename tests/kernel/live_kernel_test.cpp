// The live test of `vlag kernel record`: pinned hogs of different nice values and a periodic
// task with a custom slice on the real kernel, recorded on every CPU, then checked. The machine
// may be loaded by anything else, so nothing here is a timing threshold: a correct kernel gives
// no violation whatever the load (every verdict is held, inconclusive with its reason, or not
// applicable), each task's run time is what an independent count of the same perf text makes of
// it (tests/tools/runtime_count.cpp), and each of them was judged. (The periodic task's own
// latency is no bound on its wakeup delays under load: a wakeup late by a period lets it sleep
// through the next expiry at once, which it counts as a latency of a few us and the trace shows
// as no wait at all.) Skipped, visibly, where recording is not possible (not root, no perf, no
// debugfs).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kernel/check_options.h"
#include "kernel/perf_script.h"
#include "kernel/record.h"
#include "kernel/sched_debug.h"
#include "kernel/service.h"
#include "tests/support/temp_dir.h"

namespace vlag::kernel {
namespace {

// pid → RUN + EDGE summed over CPUs, as runtime_count prints them for `perf_text`.
std::map<int64_t, int64_t> independent_runtime(const std::string& perf_text) {
  std::map<int64_t, int64_t> out;
  FILE* p = popen((std::string(VLAG_RUNTIME_COUNT) + " '" + perf_text + "'").c_str(), "r");
  if (!p) return out;
  std::string text;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int st = pclose(p);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "runtime_count " << perf_text;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    std::string kind;
    int64_t pid = 0, cpu = 0, run = 0, edge = 0;
    if (l >> kind && kind == "run" && l >> pid >> cpu >> run >> edge) out[pid] += run + edge;
  }
  return out;
}

TEST(LiveKernel, RecordedHogsAndPeriodicTaskGiveNoViolationAndCountAsTheIndependentTool) {
  const auto missing = record_prerequisites();
  if (!missing.empty()) GTEST_SKIP() << "cannot record here: " << missing.front();
  const int cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  const std::string pin = "taskset -c " + std::to_string(cpu) + " ";
  const testing::TempDir dir;
  const std::string stats = dir.path() + "/periodic.txt";
  const std::string pids = dir.path() + "/hogs.txt";
  const auto hog = [&](int nice) {
    return pin + VLAG_TOOL_HOG + " 2.4 " + std::to_string(nice) + " " + pids + " & ";
  };
  RecordOptions o;
  o.cpu = -1;  // every CPU: what a task does elsewhere is seen, so verdicts can be conclusive
  o.duration_s = 3.0;
  o.out_dir = dir.path() + "/rec";
  o.command = {"sh", "-c",
               hog(0) + hog(2) + hog(-3) + pin + VLAG_TOOL_PERIODIC + " 2.4 2000 200 500 " + stats +
                   "; wait"};
  const RecordedFiles files = record(o);
  ASSERT_FALSE(files.snapshots.empty());

  KernelCheckOptions ko;
  std::ifstream snap(files.snapshots.front());
  learn_from_snapshot(parse_sched_debug(snap, files.snapshots.front()), ko);
  std::vector<KernelEvent> events;
  std::ifstream text(files.perf_text);
  parse_perf_script(text, files.perf_text, [&](const KernelEvent& e) { events.push_back(e); });
  const auto r = check_kernel_trace(events, files.perf_text, ko);

  // No violation, and whatever could not be judged says why.
  EXPECT_TRUE(r.all_cpus_recorded);
  for (const auto& f : r.findings) {
    EXPECT_NE(f.verdict, Verdict::Violated) << f.id << " " << f.subject << ": " << f.message << " ("
                                            << files.perf_text << ":" << f.line << ")";
    if (f.verdict == Verdict::Inconclusive) {
      EXPECT_FALSE(f.reasons.empty()) << f.message;
    }
  }
  EXPECT_TRUE(r.ok());

  std::set<int64_t> ours;
  std::ifstream pid_list(pids);
  for (int64_t pid = 0; pid_list >> pid;) ours.insert(pid);
  ASSERT_EQ(ours.size(), 3u);
  int64_t p50 = 0, p99 = 0, periodic_pid = 0;
  std::ifstream(stats) >> p50 >> p99 >> periodic_pid;  // "p50 p99 pid"
  ASSERT_GT(periodic_pid, 0) << "the periodic task wrote no statistics";
  ours.insert(periodic_pid);

  // Run time as the independent count has it, and each task judged: every one waits, so its
  // waits are measured; each hog runs beside the others, so its pairs are.
  const auto counted = independent_runtime(files.perf_text);
  for (const int64_t pid : ours) {
    ASSERT_TRUE(r.tasks.count(pid)) << pid;
    const TaskService& t = r.tasks.at(pid);
    EXPECT_EQ(t.runtime_ns, counted.count(pid) ? counted.at(pid) : -1) << pid;
    const std::string subject = t.comm + ":" + std::to_string(pid);
    for (const char* id : {"INV-NO-STARVATION", "THM-SHARE"}) {
      if (pid == periodic_pid && std::string(id) == "THM-SHARE") continue;  // a sleeper
      const auto& of = r.verdict_of.at(id);
      ASSERT_TRUE(of.count(subject)) << id << " " << subject;
      EXPECT_NE(of.at(subject), Verdict::NotApplicable) << id << " " << subject;
    }
  }
  EXPECT_FALSE(r.tasks.at(periodic_pid).wakeup_delays.count() == 0);
}

}  // namespace
}  // namespace vlag::kernel
