// Runs the checker over trace files: the streaming pass (with --keep-going fault skipping), then
// evidence for the first violations — the Z3 arbiter's verdict with an SMT-LIB2 file, and a
// minimal replayable window. Z3 and window work is spent only on violations.
#pragma once

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

struct CheckOptions {
  bool keep_going = false;   // count and skip faulty lines instead of stopping
  std::string evidence_dir;  // where SMT-LIB2 files and windows go; empty: none written
  size_t max_evidence = 5;   // violations per run that get Z3 and a window
  bool arbiter = true;       // re-check violations with Z3
};

/// A trace file, or standard input for "-" (named "<stdin>" in messages).
Source file_source(const std::string& path);
Source text_source(std::string name, std::string text);

/// Checks each source in turn into one report. Throws trace::InputError for the first fault
/// (unless keep_going) and vlag::Error for an unreadable file.
Report check(const std::vector<Source>& sources, const CheckOptions& options);

}  // namespace vlag::checker
