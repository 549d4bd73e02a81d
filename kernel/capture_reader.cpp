#include "kernel/capture_reader.h"

#include <fstream>
#include <iostream>
#include <utility>

#include "kernel/time_merge.h"
#include "spec/error.h"

namespace vlag::kernel {

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
    std::ifstream in(file);
    if (!in) throw Error(file + ": cannot open");
    stats = parse_perf_script(in, file, push, options);
  }
  merge.flush();
  return stats;
}

SchedDebugSnapshot load_snapshot(const std::string& file) {
  if (file == "-") return parse_sched_debug(std::cin, capture_name(file));
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  return parse_sched_debug(in, file);
}

}  // namespace vlag::kernel
