// `vlag kernel record`: perf record on the sched tracepoints around a command, sched debug
// snapshots while it runs, then perf script; the files it leaves are checked like any capture
// (SPEC.md §6.1, §6.2).
#pragma once

#include <string>
#include <vector>

namespace vlag::kernel {

struct RecordOptions {
  std::vector<std::string> command;  // empty: sleep for duration
  double duration_s = 0;             // 0 with a command: until it exits
  int cpu = -1;                      // -1: all CPUs
  std::string out_dir;               // empty: a new directory under /tmp
};

struct RecordedFiles {
  std::string dir;
  std::string perf_text;
  std::vector<std::string> snapshots;
};

/// What is missing to record here (not root, no perf, no debugfs), or empty when nothing is.
std::vector<std::string> record_prerequisites();

/// Records; throws vlag::Error when a step fails, naming the step.
RecordedFiles record(const RecordOptions& options);

}  // namespace vlag::kernel
