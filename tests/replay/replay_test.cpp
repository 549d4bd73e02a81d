// `vlag kernel replay` (replay/replay.h) on the shared captures of tests/data/linux: finding a
// capture's files, what is extracted of its tasks (nice, custom slices, wall-clock or CPU work,
// timer or task wakeups), the kernel's figures (checked against what `vlag kernel check` and
// tests/tools/runtime_count say of the same captures), and the model beside them.
#include "replay/replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "spec/error.h"

namespace vlag::replay {
namespace {

const std::string kLinux = std::string(VLAG_TEST_DATA) + "/linux/";
const std::string kFidelity = std::string(VLAG_TEST_DATA) + "/fidelity/";

const ReplayTask& task(const ReplayReport& r, int64_t pid) {
  for (const ReplayTask& t : r.tasks)
    if (t.task.pid == pid) return t;
  throw Error("no task " + std::to_string(pid));
}

TEST(KernelReplay, FindsACapturesFilesByDirectoryOrByName) {
  const CaptureFiles dir = find_capture(kLinux + "periodic");
  EXPECT_EQ(dir.perf, kLinux + "periodic/perf.txt");
  EXPECT_EQ(dir.snapshots.size(), 3u);
  EXPECT_EQ(dir.workload_output, kLinux + "periodic/stdout.txt");
  const CaptureFiles named = find_capture(kLinux + "hogs-nice.perf.txt");
  EXPECT_EQ(named.snapshots.size(), 3u);
  EXPECT_EQ(named.workload_output, kLinux + "hogs-nice.stdout.txt");
  // hackbench-head.perf.txt is the head of the hackbench capture: its files drop "-head".
  const CaptureFiles head = find_capture(kLinux + "hackbench-head.perf.txt");
  EXPECT_EQ(head.snapshots.front(), kLinux + "hackbench.sched-debug.1.txt");
  EXPECT_EQ(head.workload_output, kLinux + "hackbench.stdout.txt");
  EXPECT_THROW(find_capture(kLinux + "no-such-capture"), Error);
}

// Three hogs pinned to CPU 1 at nice 0, 2, -3 (each sets its nice after it starts: a renice).
// The kernel's shares are those `vlag kernel check` prints for this capture (README); the model,
// run on the same starts and renices, gives the same shares within the goal's 1 pp.
TEST(KernelReplay, HogsNiceMatchesTheKernelsShares) {
  const ReplayReport r = replay_capture(find_capture(kLinux + "hogs-nice.perf.txt"), {});
  EXPECT_EQ(r.machine.params.ncpus, 1);
  EXPECT_EQ(r.machine.params.base_slice_ns(), 1'400'000);  // 2 CPUs counted by the kernel
  const int64_t pids[] = {4973, 4974, 4975};
  const int nices[] = {0, 2, -3};
  const double kernel_share[] = {0.2777, 0.1788, 0.5435};
  for (int i = 0; i < 3; ++i) {
    const ReplayTask& t = task(r, pids[i]);
    EXPECT_TRUE(t.task.workload);
    EXPECT_TRUE(t.task.wall);  // never sleeps: it spins until a time
    EXPECT_EQ(t.task.final_nice, nices[i]);
    EXPECT_NEAR(t.kernel.share, kernel_share[i], 0.0005) << pids[i];
    EXPECT_NEAR(t.model.share, t.kernel.share, 0.01) << pids[i];
  }
  EXPECT_NEAR(static_cast<double>(r.model_switches), static_cast<double>(r.kernel_switches),
              0.1 * static_cast<double>(r.kernel_switches));
}

// Two hogs and a periodic task with a 0.5 ms custom slice (from the snapshot): its 992 wakeups
// are timers (a 2 ms grid), replayed at their recorded times; the kernel's wake-to-run p50 is the
// few microseconds of a preempting wakeup, and so is the model's.
TEST(KernelReplay, PeriodicSliceReplaysTimerWakeups) {
  const ReplayReport r = replay_capture(find_capture(kLinux + "periodic-slice.perf.txt"), {});
  const ReplayTask& p = task(r, 4989);
  EXPECT_EQ(p.task.slice_ns, 500'000);
  EXPECT_GT(p.task.timer_sleeps, 900);
  EXPECT_EQ(p.task.task_sleeps, 0);
  EXPECT_LT(p.kernel.wake_to_run.p50_ns, 20'000);
  EXPECT_NEAR(static_cast<double>(p.model.wake_to_run.p50_ns),
              static_cast<double>(p.kernel.wake_to_run.p50_ns), 50'000);
  EXPECT_NEAR(p.model.share, p.kernel.share, 0.01);
}

// perf bench messaging on both CPUs, its output naming no pids: the workload is the command that
// used the most CPU; pipe wakeups are tied to the tasks that made them.
TEST(KernelReplay, HackbenchHeadRunsOnTwoCpusWithTaskWakeups) {
  const ReplayReport r = replay_capture(find_capture(kLinux + "hackbench-head.perf.txt"), {});
  EXPECT_EQ(r.machine.params.ncpus, 2);
  int64_t workload = 0, tied = 0;
  for (const ReplayTask& t : r.tasks) {
    if (!t.task.workload) continue;
    ++workload;
    EXPECT_EQ(t.task.comm, "sched-messaging");
    tied += t.task.task_sleeps;
  }
  EXPECT_GE(workload, 80);
  EXPECT_GT(tied, 1000);
}

TEST(KernelReplay, JudgesAgainstTheGoal) {
  const ReplayReport r = replay_capture(find_capture(kLinux + "hogs-nice.perf.txt"), {});
  const std::vector<Verdict> all = judge(r, {});
  ASSERT_EQ(all.size(), 4u);  // three shares (no wakeups to judge) and the switches
  for (const Verdict& v : all) EXPECT_TRUE(v.within) << v.task << " " << v.metric;
  FidelityGoal strict;
  strict.share_pp = 0.0001;
  strict.switches_rel = 0;
  int missed = 0;
  for (const Verdict& v : judge(r, strict)) missed += v.within ? 0 : 1;
  EXPECT_GT(missed, 0);  // the verdicts can fail
}

// Every line names the task that ran on its CPU. A task whose own events the recorder drops
// (the development machine's tokio-rt-worker threads: switched in, never out) leaves its CPU
// when another task is seen running there, at the latest when that one's own sched_stat_runtime
// says it began; a sched_stat_runtime about a task of another CPU's runqueue moves nothing.
TEST(KernelReplay, ATaskSeenRunningEndsTheRunOfTheOneBefore) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("vlag-replay-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  {
    std::ofstream perf(dir + "/perf.txt");
    const auto line = [&](const std::string& task, const std::string& t, const std::string& ev) {
      perf << task << " [000] " << t << ": " << ev << "\n";
    };
    const std::string sw = "sched:sched_switch: prev_comm=";
    line("hog 300/300", "1.000000000",
         sw + "hog prev_pid=300 prev_prio=120 prev_state=R ==> next_comm=hidden next_pid=200 "
              "next_prio=110");
    line("hog 300/300", "1.002000000",
         "sched:sched_stat_runtime: comm=other pid=400 runtime=5000000 [ns]");
    line("hog 300/300", "1.003000000",
         "sched:sched_stat_runtime: comm=hog pid=300 runtime=2000000 [ns]");
    line("hog 300/300", "1.003000100",
         sw + "hog prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=bash next_pid=100 "
              "next_prio=120");
    line("bash 100/100", "1.004000000",
         sw + "bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 "
              "next_prio=120");
  }
  ReplayOptions o;
  o.extract.pids = {300};
  const ReplayReport r = replay_capture(find_capture(dir), o);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(task(r, 200).kernel.runtime_ns, 1'000'000);            // 1.000 to the hog's 1.001
  EXPECT_EQ(task(r, 300).kernel.runtime_ns, 2'000'100);            // from 1.001 to its switch out
  EXPECT_EQ(task(r, 300).kernel.switches, 1);                      // the inferred one
  EXPECT_EQ(task(r, 100).kernel.runtime_ns, 999'900);              // bash, switched in at 1.0031
  for (const ReplayTask& t : r.tasks) EXPECT_NE(t.task.pid, 400);  // never ran here
}

// No CPU's time is counted twice: on every shared and suite capture the tasks' CPU time, real
// time tasks' included, fits in the recorded CPUs' span.
TEST(KernelReplay, NoCaptureChargesMoreTimeThanItsCpusHad) {
  std::vector<std::string> captures;
  for (const char* folder : {"/linux", "/fidelity"})
    for (const auto& f :
         std::filesystem::directory_iterator(std::string(VLAG_TEST_DATA) + folder)) {
      const std::string path = f.path().string();
      if (f.is_directory() ? std::filesystem::exists(path + "/perf.txt")
                           : path.ends_with(".perf.txt"))
        captures.push_back(path);
    }
  ASSERT_GE(captures.size(), 37u);
  for (const std::string& c : captures) {
    const ReplayReport r = replay_capture(find_capture(c), {});
    int64_t charged = r.capture.rt_ns;
    for (const ReplayTask& t : r.tasks) charged += t.kernel.runtime_ns;
    EXPECT_LE(charged, r.capture.end_ns * static_cast<int64_t>(r.capture.cpus.size())) << c;
  }
  // The capture where a tokio-rt-worker thread seemed to run 507 ms of 617.
  const ReplayReport nice = replay_capture(find_capture(kFidelity + "nice-a"), {});
  EXPECT_LT(task(nice, 68).kernel.runtime_ns, 1'000'000);
}

// Where each task ran, per CPU: on one CPU all of it on CPU 0; on two, the kernel's per-CPU
// times add up to its CPU time, the model's (from its picks) to the model's within the context
// switches' cost.
TEST(KernelReplay, ReportsWhereEachTaskRan) {
  const ReplayReport one = replay_capture(find_capture(kFidelity + "nice"), {});
  for (const ReplayTask& t : one.tasks) {
    ASSERT_EQ(t.kernel.runtime_on_cpu_ns.size(), 1u);
    EXPECT_EQ(t.kernel.runtime_on_cpu_ns[0], t.kernel.runtime_ns) << t.task.pid;
  }
  const ReplayReport two = replay_capture(find_capture(kFidelity + "nice-a"), {});
  for (const ReplayTask& t : two.tasks) {
    if (!t.task.workload) continue;
    ASSERT_EQ(t.model.runtime_on_cpu_ns.size(), 2u);
    EXPECT_EQ(t.kernel.runtime_on_cpu_ns[0] + t.kernel.runtime_on_cpu_ns[1], t.kernel.runtime_ns);
    EXPECT_NEAR(static_cast<double>(t.model.runtime_on_cpu_ns[0] + t.model.runtime_on_cpu_ns[1]),
                static_cast<double>(t.model.runtime_ns),
                0.01 * static_cast<double>(t.model.runtime_ns))
        << t.task.pid;
  }
  // The nice -3 hog had CPU 1 to itself in the kernel; the nice 0 and 5 hogs shared CPU 0.
  EXPECT_EQ(task(two, 12842).kernel.runtime_on_cpu_ns[0], 0);
  EXPECT_GT(task(two, 12842).kernel.runtime_on_cpu_ns[1], 490'000'000);
  EXPECT_EQ(task(two, 12840).kernel.runtime_on_cpu_ns[1], 0);
}

TEST(KernelReplay, BadInputIsAnError) {
  CaptureFiles f;
  f.perf = kLinux + "nonexistent.perf.txt";
  EXPECT_THROW(replay_capture(f, {}), Error);
  ReplayOptions o;
  o.extract.pids = {1};  // no such task in the capture
  EXPECT_THROW(replay_capture(find_capture(kLinux + "hogs-nice.perf.txt"), o), Error);
}

}  // namespace
}  // namespace vlag::replay
