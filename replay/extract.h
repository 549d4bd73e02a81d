// What each task of a real capture did, as a script the simulator can run (sim/script.h), and
// the figures the kernel gave it — the first half of `vlag kernel replay` (replay/replay.h).
//
// From the sched tracepoints (a capture in any form kernel/capture_reader.h reads; each line's
// leading task is the one running on its CPU, which places the switches the trace leaves out,
// docs/fidelity.md): per task its start, its bursts (the CPU time between a wakeup
// and the next sleep, and the wall-clock span from the first run to the sleep), its sleeps and what
// ended each (the wakeup's time and the task that ran on the waking CPU, or on the other CPUs when
// the wakeup came in an idle CPU's interrupt), its nice value from the prio fields (a change is a
// renice), its exit. From the sched debug snapshots: custom slices, task groups, the base slice and
// the CPU count the kernel sees. Which tasks are the workload's: --pids, else the "started PID:",
// "pid=PID" and "NAME PID:" lines of the workload's output and their children (sched_process_fork),
// else the tasks of the command that used the most CPU (kernel threads and perf aside). Other fair
// tasks are replayed too, every wakeup at its recorded time, and reported apart; real-time tasks
// (prio < 100) are not modelled.
//
// A workload task's sleeps are ended in the model by the task that woke it in the capture, at
// the same point of that task's burst (causal), unless its wakeups come on a grid or after
// sleeps of one length (a timer: then at the recorded time), or the waker is not a workload
// task. A task whose preempted bursts got less CPU than its other bursts works on the clock
// (wall-clock bursts, SPEC.md §9.5); a task that never sleeps is a wall-clock hog until its
// exit or the capture's end.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/script.h"

namespace vlag::replay {

/// A capture's files: a directory holding perf.txt (or perf.data, or trace.dat), sched-debug.N.txt
/// and stdout.txt (the suite's layout, scripts/capture-kernel), or NAME.perf.txt (NAME.perf.data,
/// NAME.trace.dat) beside NAME.sched-debug.N.txt and NAME.stdout.txt (NAME may drop one
/// "-suffix": hackbench-head.perf.txt, hackbench.stdout.txt).
struct CaptureFiles {
  std::string perf;
  std::vector<std::string> snapshots;
  std::string workload_output;  // "" when there is none
};

/// Throws vlag::Error when path is neither a directory with a capture nor a readable file.
CaptureFiles find_capture(const std::string& path);

struct ExtractOptions {
  std::vector<int64_t> pids;  // the workload's tasks; empty: from the workload's output
  bool open_loop = false;     // every wakeup at its recorded time, none tied to a task
  int hz = 250;
  bool keep_going = false;  // skip malformed lines
};

struct KernelTaskFigures {
  int64_t runtime_ns = 0;
  std::map<int, int64_t> runtime_on_cpu_ns;  // by kernel CPU
  int64_t switches = 0;                      // times switched in
  std::vector<int64_t> wake_to_run_ns;       // sched_wakeup(_new) → its next switch in
};

struct ExtractedTask {
  int64_t pid = 0;
  std::string comm;
  int nice = 0;          // at its start; renices are actions of its script
  int final_nice = 0;    // after its last renice
  int64_t slice_ns = 0;  // custom slice from a snapshot; 0: the base slice
  std::string group = "/";
  bool workload = false;
  bool wall = false;
  int64_t timer_sleeps = 0;  // sleeps ended at a recorded time in the model
  int64_t task_sleeps = 0;   // sleeps ended by another task's burst in the model
  int64_t renices = 0;
  int cpu = 0;  // the model CPU it starts on
  KernelTaskFigures kernel;
};

/// A context switch as the kernel recorded it (fair tasks and idle only: pid 0 is idle).
struct KernelSwitch {
  int64_t t = 0;  // model time: ns since Extraction::t0
  int64_t prev_pid = 0;
  int64_t next_pid = 0;
  std::string prev_state;
};

struct Extraction {
  std::string file;
  sim::Script script;                // script.tasks[i] is tasks[i]
  std::vector<ExtractedTask> tasks;  // the workload's first, in pid order, then the others
  std::vector<int> cpus;             // the recorded CPUs: model CPU i is kernel CPU cpus[i]
  int64_t t0 = 0;                    // kernel time of model time 0, on a tick
  int64_t end_ns = 0;                // model time of the capture's last event
  int kernel_cpus = 0;               // CPUs the kernel counted for its base slice (0: unknown)
  int64_t base_slice_ns = 0;         // the snapshot's sysctl_sched_base_slice (0: none)
  int64_t rt_ns = 0;                 // CPU time of real-time tasks, not modelled
  std::string workload_source;       // how the workload's tasks were found
  std::map<int, std::vector<KernelSwitch>> switches;  // by model CPU
  std::vector<std::string> notes;
};

/// Reads and extracts; throws vlag::Error on unreadable or malformed files (with keep_going:
/// skips malformed lines), or when no workload task ran.
Extraction extract_capture(const CaptureFiles& files, const ExtractOptions& options);

}  // namespace vlag::replay
