// The live test of `vlag kernel record`: pinned hogs of different nice values and a periodic
// task with a custom slice on the real kernel, recorded, then checked for what the shared
// captures show. Skipped, visibly, where recording is not possible (not root, no perf, no
// debugfs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "kernel/check_options.h"
#include "kernel/perf_script.h"
#include "kernel/record.h"
#include "kernel/sched_debug.h"
#include "kernel/service.h"
#include "stats/stats.h"

namespace vlag::kernel {
namespace {

TEST(LiveKernel, RecordedHogsAndPeriodicTaskBehaveAsOnTheCaptures) {
  const auto missing = record_prerequisites();
  if (!missing.empty()) GTEST_SKIP() << "cannot record here: " << missing.front();
  const int cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  const std::string pin = "taskset -c " + std::to_string(cpu) + " ";
  char dir[] = "/tmp/vlag-live-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string stats = std::string(dir) + "/periodic.txt";
  const std::string pids = std::string(dir) + "/hogs.txt";
  const auto hog = [&](int nice) {
    return pin + VLAG_TOOL_HOG + " 2.4 " + std::to_string(nice) + " " + pids + " & ";
  };
  RecordOptions o;
  o.cpu = cpu;
  o.duration_s = 3.0;
  o.out_dir = std::string(dir) + "/rec";
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
  parse_perf_script(text, files.perf_text, [&](const KernelEvent& e) { events.push_back(e); },
                    {true});
  const auto r = check_kernel_trace(events, files.perf_text, ko);

  int64_t p50 = 0, p99 = 0, periodic_pid = 0;
  std::ifstream(stats) >> p50 >> p99 >> periodic_pid;
  ASSERT_GT(periodic_pid, 0) << "the periodic task wrote no statistics";
  // The three hogs are runnable together throughout: each one's part of their CPU time follows
  // its part of their weight within 1 point, whatever else ran on the CPU.
  std::set<int64_t> ours;
  std::ifstream pid_list(pids);
  for (int64_t pid = 0; pid_list >> pid;) ours.insert(pid);
  ASSERT_EQ(ours.size(), 3u);
  double got = 0, weight = 0;
  for (const auto& [pid, t] : r.tasks)
    if (ours.count(pid)) {
      got += static_cast<double>(t.runtime_ns);
      weight += static_cast<double>(t.weight);
    }
  ASSERT_GT(got, 0);
  int hogs = 0;
  for (const auto& [pid, t] : r.tasks) {
    if (!ours.count(pid)) continue;
    ++hogs;
    EXPECT_NEAR(static_cast<double>(t.runtime_ns) / got, static_cast<double>(t.weight) / weight,
                0.01)
        << "hog " << pid << " nice " << t.prio - 120;
  }
  EXPECT_EQ(hogs, 3);
  ASSERT_TRUE(r.tasks.count(periodic_pid));
  const auto& periodic = r.tasks.at(periodic_pid);
  ASSERT_GT(periodic.wakeup_delays_ns.size(), 100u);
  EXPECT_LE(stats::summarize(periodic.wakeup_delays_ns).p50_ns, p50)
      << "wakeup-to-run delay is a part of timer-expiry-to-run latency";
}

}  // namespace
}  // namespace vlag::kernel
