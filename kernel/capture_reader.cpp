#include "kernel/capture_reader.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include "kernel/time_merge.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

std::ifstream open_input(const std::string& file, const char* what) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw Error(file + ": is a directory, not " + std::string(what));
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  return in;
}

}  // namespace

std::string capture_name(const std::string& file) { return file == "-" ? "<stdin>" : file; }

PerfParseStats read_perf_capture(const std::string& file,
                                 const std::function<void(const KernelEvent&)>& sink,
                                 const PerfParseOptions& options) {
  TimeMerger merge(kMergeWindow, sink);
  const auto push = [&](KernelEvent& e) { merge.push(std::move(e)); };
  PerfParseStats stats;
  if (file == "-") {
    stats = parse_perf_script(std::cin, capture_name(file), push, options);
  } else {
    std::ifstream in = open_input(file, "perf script text");
    stats = parse_perf_script(in, file, push, options);
  }
  merge.flush();
  return stats;
}

SchedDebugSnapshot load_snapshot(const std::string& file, const SchedDebugOptions& options) {
  if (file == "-") return parse_sched_debug(std::cin, capture_name(file), options);
  std::ifstream in = open_input(file, "a sched debug snapshot");
  return parse_sched_debug(in, file, options);
}

}  // namespace vlag::kernel
