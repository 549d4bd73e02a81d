// trace.dat, the file `trace-cmd record` writes (magic 0x17 0x08 'D' "tracing"), read through
// libtracecmd into the one text parser (kernel/perf_script.h): a child process prints each record
// of its top buffer as `trace-cmd report -t -N` does — `cpus=N` first, a line per event, every
// CPU merged in time order, times in ns, each event in the kernel's own format, a line before
// the first event after a loss — so the events, their line numbers and the messages are those of
// that text (SPEC.md §6.2), and a corrupt file that crashes the library is an error, not a crash.
// Built where libtracecmd is found (kernel/CMakeLists.txt); elsewhere a trace.dat is refused,
// saying so.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "kernel/events.h"
#include "kernel/perf_script.h"

namespace vlag::kernel {

/// Whether a file starting with `head` is a trace.dat.
inline bool is_trace_dat(std::string_view head) {
  return head.substr(0, 10) == std::string_view(
                                   "\x17\x08"
                                   "Dtracing",
                                   10);
}

/// Whether this build reads trace.dat (libtracecmd was found).
bool trace_dat_supported();

/// Parses the trace.dat at `path` (`name` in messages) and passes each event to sink in time
/// order. Throws vlag::Error naming `name` when libtracecmd cannot open the file or dies reading
/// it, when the text parser refuses a record's line, or when trace.dat support is not built.
PerfParseStats read_trace_dat(const std::string& path, const std::string& name,
                              const std::function<void(KernelEvent&)>& sink,
                              const PerfParseOptions& options = {});

}  // namespace vlag::kernel
