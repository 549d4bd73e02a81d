// Exports a spec/TRACE.md trace in the Chrome JSON trace-event format, which the Perfetto UI
// (ui.perfetto.dev) and chrome://tracing open: one process per CPU holding the CPU's track, a
// complete event ("X") for each stretch a task ran, instants for wakeups, sleeps, ticks and the
// other events, and counter tracks ("C") for V, W and each task's lag when the trace carries state.
// Streams: memory grows with the live tasks and CPUs, not with the trace.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "trace/reader.h"

namespace vlag::trace {

struct PerfettoCounts {
  int64_t events = 0;    // trace events read
  int64_t slices = 0;    // run slices written
  int64_t counters = 0;  // counter samples written
};

/// Reads every event of `reader` and writes one JSON object {"traceEvents":[…]} to `out`. A run
/// stretch follows the checker's reading of time (spec/TRACE.md §3): the task a `pick` made
/// current runs until the next pick or its own sleep, dequeue, exit or migration on that CPU.
/// Throws the reader's InputError on bad input; what was written before is then incomplete.
PerfettoCounts export_perfetto(Reader& reader, std::ostream& out);

/// Nanoseconds as the format's microseconds, exactly: 1234567 → "1234.567".
std::string micros(int64_t ns);

}  // namespace vlag::trace
