// Reading a capture's files, written once for `vlag kernel check`, `import` and `snapshot`
// (SPEC.md §6): perf script / trace-cmd text from FILE or "-" (standard input), parsed
// (kernel/perf_script.h) and merged across CPUs in time (kernel/time_merge.h) on its way to a
// consumer, and sched debug snapshots (kernel/sched_debug.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "kernel/events.h"
#include "kernel/perf_script.h"
#include "kernel/sched_debug.h"

namespace vlag::kernel {

/// Events a per-CPU stream may trail the others by and still be merged in time order.
inline constexpr size_t kMergeWindow = 4096;

/// The name a capture's messages give FILE: "<stdin>" for "-".
std::string capture_name(const std::string& file);

/// Parses the perf script text of FILE ("-": standard input) and passes each event to sink in
/// time order, the CPUs merged within kMergeWindow events. Throws vlag::Error when FILE is a
/// directory or cannot be opened, when it holds no event, or, without keep_going, at the first
/// line that does not parse.
PerfParseStats read_perf_capture(const std::string& file,
                                 const std::function<void(const KernelEvent&)>& sink,
                                 const PerfParseOptions& options = {});

/// A sched debug snapshot from FILE, or from standard input for "-". Throws vlag::Error for a
/// directory, a file that cannot be opened, or one that does not parse.
SchedDebugSnapshot load_snapshot(const std::string& file, const SchedDebugOptions& options = {});

}  // namespace vlag::kernel
