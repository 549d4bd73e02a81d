// `vlag kernel …`: the options and entry points of its subcommands, one file each
// (kernel_snapshot_command.cpp, kernel_check_command.cpp, kernel_import_command.cpp); `record`
// runs the first two on what it recorded (kernel_command.cpp). They parse arguments and print;
// reading, checking and importing a capture is kernel/'s (SPEC.md §6).
#pragma once

#include <string>
#include <vector>

namespace vlag::cli {

struct SnapshotOptions {
  std::vector<std::string> files;
  bool json = false;
};

struct CheckOptions {
  std::vector<std::string> files;
  std::vector<std::string> snapshots;
  std::string groups;
  int hz = 250;
  bool hz_given = false;
  int cpu = -1;
  double starvation_ms = 1000;
  bool keep_going = false;
  bool json = false;
};

struct ImportOptions {
  std::string file;
  std::vector<std::string> snapshots;
  std::string out;
  int cpu = 0;
  int hz = 250;
  bool keep_going = false;
};

/// `vlag kernel snapshot`: SNAP-* checks (SPEC.md §6.1); 0 all held, 1 a violation.
int run_kernel_snapshot(const SnapshotOptions& o);

/// `vlag kernel check`: the kernel service layer over perf script text (SPEC.md §6.2).
int run_kernel_check(const CheckOptions& o);

/// `vlag kernel import`: one CPU's fair-class events as a spec/TRACE.md trace.
int run_kernel_import(const ImportOptions& o);

}  // namespace vlag::cli
