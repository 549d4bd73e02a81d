// Parser for the text that `perf script` (default layout, or -F comm,pid[,tid],cpu,time,event,
// trace) and `trace-cmd report` (its `cpus=N` first line; the sched_switch / sched_wakeup
// plugins' pretty form "comm:pid [prio] S ==> comm:pid [prio]"; `-N` key=value fields; `-R`
// raw numbers; `--ts-diff`) print for the sched tracepoints (SPEC.md §6.2). A line whose task
// names contain spaces or are shown as <...> is handled: values are split at the known keys of
// each event. Every field is range-checked: a bad one is an error naming file, line and field.
// Files and standard input are opened by kernel/capture_reader.h.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "kernel/events.h"

namespace vlag::kernel {

struct PerfParseOptions {
  /// Skip (and count) malformed lines and unknown events instead of stopping at the first.
  bool keep_going = false;
};

struct PerfParseStats {
  int64_t events = 0;
  int64_t skipped = 0;      // with keep_going: lines that did not parse
  std::string first_error;  // the first skipped line's message
  std::optional<int> cpus;  // trace-cmd report's "cpus=N" line: the machine's CPU count
};

/// Parses one line; throws vlag::Error "FILE:LINE: field …" when it is not a sched event.
KernelEvent parse_perf_line(const std::string& text, const std::string& file, int line);

/// Streams a whole file, calling sink for each event in file order (the sink may move from the
/// event). Blank lines, '#' comments and a first "cpus=N" line are not events; trace-cmd's
/// "CPU:N [K EVENTS DROPPED]" line is an error of its own, saying so. Throws "FILE: no sched
/// events" when nothing parsed (an empty file; with keep_going, only garbage).
PerfParseStats parse_perf_script(std::istream& in, const std::string& file,
                                 const std::function<void(KernelEvent&)>& sink,
                                 const PerfParseOptions& options = {});

}  // namespace vlag::kernel
