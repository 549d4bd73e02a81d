// /sys/kernel/debug/sched/debug (SPEC.md §6.1), parsed by its headers: per CPU, its ".key :
// value" fields (.curr->pid …), each cfs_rq's fields and the "runnable tasks" table, whose
// columns differ between kernel versions and are therefore looked up by their header names.
// Times are printed as ms with six decimals and are kept as exact nanoseconds. Every field the
// kernel prints is range-checked when it is read (counts ≥ 0, a positive base slice and task
// slice, pids and prios in Linux's ranges, one value per key): a bad one is an error naming
// file, line and field.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vlag::kernel {

struct SnapshotField {
  std::string value;
  int line = 0;
};

struct CfsRqSnapshot {
  int cpu = 0;
  std::string path;                             // "/" or "/autogroup-1"
  int line = 0;                                 // the "cfs_rq[N]:/path" header
  std::map<std::string, SnapshotField> fields;  // "left_deadline", "se->vruntime", …

  /// A time field ("avg_vruntime", …) in ns; nullopt when absent.
  std::optional<int64_t> time_ns(const std::string& key, const std::string& file) const;
  /// An integer field ("nr_queued", "load", "se->load.weight"); nullopt when absent.
  std::optional<int64_t> integer(const std::string& key, const std::string& file) const;
};

struct TaskRowSnapshot {
  int line = 0;
  bool current = false;  // '>' marker: the task running on that CPU when its row was printed
  char state = '?';      // R, S, I, D, …
  std::string comm;
  int64_t pid = 0;
  std::optional<int64_t> vruntime_ns;
  std::optional<bool> eligible;  // the E/N column (6.6+)
  std::optional<int64_t> deadline_ns;
  std::optional<int64_t> slice_ns;
  bool custom_slice = false;  // the 'S' flag printed before the slice (6.12+)
  std::optional<int64_t> switches;
  std::optional<int64_t> sum_exec_ns;
  std::optional<int> prio;
  std::string group_path;  // "/" when the kernel prints no group column
};

struct CpuSnapshot {
  int id = 0;
  int line = 0;
  std::map<std::string, SnapshotField> fields;  // ".curr->pid", ".nr_running", …
  std::vector<CfsRqSnapshot> cfs_rqs;
  std::vector<TaskRowSnapshot> tasks;
  bool has_task_table = false;

  /// .curr->pid: the task running when the CPU's section was printed.
  std::optional<int64_t> curr_pid(const std::string& file) const;
};

struct SchedDebugSnapshot {
  std::string file;
  std::string version;  // "v0.11, 6.18.44-… #1"
  std::optional<int64_t> base_slice_ns;
  std::optional<int64_t> clock_ns;  // cpu_clk: local_clock(), the clock of perf's timestamps
  std::vector<CpuSnapshot> cpus;
  int64_t skipped = 0;  // with keep_going: malformed lines skipped
  std::string first_error;
};

struct SchedDebugOptions {
  /// Skip (and count) malformed field lines and task rows instead of stopping at the first.
  bool keep_going = false;
};

/// Exact ns from a printed "[-]ms.nnnnnn" value; throws vlag::Error naming file, line, field.
int64_t parse_ms_as_ns(const std::string& text, const std::string& file, int line,
                       const std::string& field);

/// pid → slice ns of the tasks printed with the custom-slice flag (a pid listed twice keeps
/// its last).
std::map<int64_t, int64_t> custom_slices(const SchedDebugSnapshot& snap);

/// Parses a whole snapshot. Throws vlag::Error "FILE:LINE: field …" on malformed input, and
/// "FILE: …" when it is not a snapshot at all (empty, no cpu# section, a CPU without its task
/// table: truncated).
SchedDebugSnapshot parse_sched_debug(std::istream& in, const std::string& file,
                                     const SchedDebugOptions& options = {});

}  // namespace vlag::kernel
