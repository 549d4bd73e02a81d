// Runs the checker over trace files: the streaming pass of each run — a trace, or one machine's
// per-CPU traces checked as a whole (checker/machine.h), with --keep-going fault skipping — then
// evidence for the first violations — the Z3 arbiter's verdict with an SMT-LIB2 file, and a
// minimal replayable window. Z3 and window work is spent only on violations.
#pragma once

#include <atomic>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "checker/report.h"

namespace vlag::checker {

struct Source {
  std::string name;                                     // used in messages
  std::function<std::unique_ptr<std::istream>()> open;  // a fresh stream over the trace
};

/// How far a check has come, for a progress line; the checking threads add to it.
struct Progress {
  std::atomic<int64_t> events{0};
  std::atomic<int64_t> violations{0};
};

struct CheckOptions {
  bool keep_going = false;       // count and skip faulty lines instead of stopping
  std::string evidence_dir;      // where SMT-LIB2 files and windows go; empty: none written
  size_t max_evidence = 5;       // violations per run that get Z3 and a window
  bool arbiter = true;           // re-check violations with Z3
  int jobs = 1;                  // threads for the traces of one run (checker/machine.h)
  Progress* progress = nullptr;  // kept up to date when given
  const std::atomic<bool>* stop = nullptr;  // once set: stop, and report what was checked
};

/// A trace file, or standard input for "-" (named "<stdin>" in messages).
Source file_source(const std::string& path);
/// A trace file, or every trace (*.jsonl) of a directory in natural order (cpu2 before cpu10).
/// Throws vlag::Error for a directory without traces.
std::vector<Source> trace_sources(const std::string& path);
Source text_source(std::string name, std::string text);

/// Checks each source in turn into one report. Throws trace::InputError for the first fault
/// (unless keep_going) and vlag::Error for an unreadable file.
Report check(const std::vector<Source>& sources, const CheckOptions& options);

}  // namespace vlag::checker
