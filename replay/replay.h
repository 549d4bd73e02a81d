// `vlag kernel replay`: a real capture's tasks (replay/extract.h) run on the simulator
// (sim/machine.h, the optimized runqueue under linux-6.18), and the model beside the kernel:
// per task the CPU share within the workload, the wake-to-run latency (p50, p99, max) and the
// context switches, and the first context switch where the model's choice differs from the
// kernel's. The model's machine is set up as the capture's: its recorded CPUs, the base slice
// and the CPU count of the kernel's snapshot (SPEC.md §1), the wakeup costs measured on the
// development machine (SPEC.md §9.3, docs/fidelity.md), HRTICK off. judge() holds a replay
// against the fidelity goal of docs/fidelity.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/extract.h"
#include "sim/machine.h"
#include "stats/stats.h"

namespace vlag::replay {

// The wake-to-run cost of the development machine's kernel (6.18, 2 CPUs, a VM), the median of
// the quiet fidelity captures (docs/fidelity.md): a timer interrupt's wakeup that preempts a
// running task, a task's wakeup (a pipe write) that preempts, and a wakeup onto an idle CPU.
inline constexpr int64_t kDevWakeTimerCostNs = 6'700;
inline constexpr int64_t kDevWakeTaskCostNs = 2'000;
inline constexpr int64_t kDevWakeIdleCostNs = 6'700;
// ... and from a tick (its sched_stat_runtime) to the switch it calls for.
inline constexpr int64_t kDevTickCostNs = 11'000;

struct ReplayOptions {
  ExtractOptions extract;
  std::string preset = "linux-6.18";
  std::string features;       // NAME,-NAME on top of the preset
  int kernel_cpus = 0;        // 0: the snapshot's CPU count, else the recorded CPUs
  int64_t base_slice_ns = 0;  // 0: the snapshot's sysctl_sched_base_slice, else the preset's
  int64_t wake_timer_cost_ns = kDevWakeTimerCostNs;
  int64_t wake_task_cost_ns = kDevWakeTaskCostNs;
  int64_t wake_idle_cost_ns = kDevWakeIdleCostNs;
  int64_t tick_cost_ns = kDevTickCostNs;
};

struct SideFigures {
  int64_t runtime_ns = 0;
  std::vector<int64_t>
      runtime_on_cpu_ns;  // by model CPU: where it ran (the model's from its picks)
  double share = 0;       // of the workload's CPU time (0 for tasks not the workload's)
  int64_t switches = 0;
  stats::LatencySummary wake_to_run;
};

struct ReplayTask {
  ExtractedTask task;
  SideFigures kernel;
  SideFigures model;
  bool model_finished = false;  // the model ran the task's last burst to its end
};

/// The first context switch, on some CPU, after which kernel and model ran different tasks.
struct Divergence {
  bool found = false;
  int cpu = 0;                    // model CPU
  size_t index = 0;               // switches on that CPU that agreed before it
  int64_t kernel_t = 0;           // model time of the kernel's switch
  int64_t model_t = 0;            // model time of the model's (-1: the model made no more switches)
  int64_t prev_pid = 0;           // what both ran before it (0: idle)
  std::string kernel_prev_state;  // how the kernel's prev left the CPU (R: preempted)
  int64_t kernel_next = 0;
  int64_t model_next = 0;
  int64_t agreed = 0;  // switches that agreed on every CPU before the first difference
  // The switches around it on that CPU, two before and three from it on: (model time, pid).
  std::vector<std::pair<int64_t, int64_t>> kernel_around;
  std::vector<std::pair<int64_t, int64_t>> model_around;
};

struct ReplayReport {
  Extraction capture;
  sim::MachineConfig machine;     // what the model ran on
  std::vector<ReplayTask> tasks;  // the workload's first, then the others
  int64_t kernel_switches = 0;    // switches in to the workload's tasks
  int64_t model_switches = 0;
  int64_t kernel_other_ns = 0;  // CPU time of the other (fair) tasks
  int64_t model_other_ns = 0;
  Divergence divergence;
};

/// Extracts, runs the model, compares. Throws vlag::Error as extract_capture does, or on a
/// preset, feature or slice the model rejects.
ReplayReport replay_capture(const CaptureFiles& files, const ReplayOptions& options);

/// The goal of issue 18 / docs/fidelity.md, or a workload's own tolerances.
struct FidelityGoal {
  double share_pp = 1.0;            // |model − kernel| share, percentage points
  double latency_rel = 0.2;         // wake-to-run p50 and p99 within this fraction ...
  int64_t latency_abs_ns = 50'000;  // ... or this much, whichever is larger
  double switches_rel = 0.1;        // the workload's context switches
  bool tails = true;                // judge p99 and switches (two-CPU goal: shares and p50)
  int64_t min_samples = 10;         // latencies of tasks with fewer kernel samples are not judged
};

struct Verdict {
  std::string task;    // "comm:pid", or "workload" for the switch total
  std::string metric;  // share, p50, p99, switches
  double kernel = 0;
  double model = 0;
  double allowed = 0;  // the tolerance, in the metric's unit (pp, ns, count)
  bool within = false;
};

/// Every judged figure of the workload's tasks against the goal.
std::vector<Verdict> judge(const ReplayReport& report, const FidelityGoal& goal);

}  // namespace vlag::replay
