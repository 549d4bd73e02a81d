// `vlag kernel …`: the options and entry points of its subcommands, one file each
// (kernel_snapshot_command.cpp, kernel_check_command.cpp, kernel_import_command.cpp); `record`
// runs the first two on what it recorded (kernel_command.cpp). They parse arguments and print;
// reading, checking and importing a capture is kernel/'s (SPEC.md §6). Exit codes, alike for
// all: 2 bad input or usage (and under --keep-going, when a line was skipped), else 1 when a
// check was violated (or, under --strict, inconclusive), else 0 (SPEC.md §6.3).
#pragma once

#include <cstddef>
#include <filesystem>
#include <ios>
#include <string>
#include <vector>

#include "cli/json_envelope.h"
#include "json/writer.h"
#include "spec/error.h"

namespace vlag::cli {

struct SnapshotOptions {
  std::vector<std::string> files;
  bool json = false;
  bool strict = false;
  bool keep_going = false;
};

struct CheckOptions {
  std::vector<std::string> files;
  std::vector<std::string> snapshots;
  std::string groups;
  int hz = 250;
  bool hz_given = false;
  int cpu = -1;
  double starvation_ms = 0;
  size_t worst = 0;  // --worst N: list the N worst wakeups
  bool keep_going = false;
  bool json = false;
  bool strict = false;
};

struct ImportOptions {
  std::string file;
  std::vector<std::string> snapshots;
  std::string out;
  int cpu = 0;
  int hz = 250;
  bool keep_going = false;
  bool json = false;  // the summary as a JSON report on stdout (the trace then needs -o)
};

/// Where a subcommand that `vlag kernel record` runs puts its part of one JSON report: its
/// verdicts and findings into the record's envelope, its files' objects into `files`.
struct JsonPart {
  Envelope& envelope;
  json::Array& files;
};

/// `vlag kernel snapshot`: SNAP-* checks (SPEC.md §6.1). Under --json it prints its own report,
/// or with `part` adds to the caller's.
int run_kernel_snapshot(const SnapshotOptions& o, const JsonPart* part = nullptr);

/// `vlag kernel check`: the kernel service layer over perf script text (SPEC.md §6.2); --json
/// as run_kernel_snapshot.
int run_kernel_check(const CheckOptions& o, const JsonPart* part = nullptr);

/// `vlag kernel import`: one CPU's fair-class events as a spec/TRACE.md trace.
int run_kernel_import(const ImportOptions& o);

/// Runs `body`, turning a filesystem or stream failure into vlag::Error (exit 2, with the
/// message naming the path) instead of an uncaught exception.
template <class Body>
int with_filesystem_errors(const char* command, Body&& body) {
  try {
    return body();
  } catch (const std::filesystem::filesystem_error& e) {
    throw Error(std::string(command) + ": " + e.what());
  } catch (const std::ios_base::failure& e) {
    throw Error(std::string(command) + ": " + e.what());
  }
}

}  // namespace vlag::cli
