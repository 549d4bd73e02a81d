// Reading a capture's files, written once for `vlag kernel check`, `import` and `snapshot`
// (SPEC.md §6): one pipeline for every form a capture comes in — perf script / trace-cmd report
// text (kernel/perf_script.h), perf.data (read natively, kernel/perf_data.h) and trace.dat
// (through libtracecmd, kernel/trace_dat.h), told apart by their first bytes — whose events are
// merged across CPUs in time (kernel/time_merge.h) on their way to a consumer; and sched debug
// snapshots (kernel/sched_debug.h). FILE may be "-": standard input.
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

/// Reads the capture in FILE ("-": standard input) — text, perf.data or trace.dat — and passes
/// each event to sink in time order, the CPUs merged within kMergeWindow events. Throws
/// vlag::Error naming FILE when it is a directory or cannot be opened, when it holds no event,
/// when a binary form comes through a pipe (perf and libtracecmd need to seek it), when its
/// reader fails (kernel/perf_data.h, kernel/trace_dat.h), or, without keep_going, at the first
/// line (record) that does not parse.
PerfParseStats read_perf_capture(const std::string& file,
                                 const std::function<void(const KernelEvent&)>& sink,
                                 const PerfParseOptions& options = {});

/// A sched debug snapshot from FILE, or from standard input for "-". Throws vlag::Error for a
/// directory, a file that cannot be opened, a perf.data or trace.dat, or one that does not parse.
SchedDebugSnapshot load_snapshot(const std::string& file, const SchedDebugOptions& options = {});

}  // namespace vlag::kernel
