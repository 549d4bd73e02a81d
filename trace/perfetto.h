// Exports a spec/TRACE.md trace in the Chrome JSON trace-event format, which the Perfetto UI
// (ui.perfetto.dev) and chrome://tracing open: one process per CPU holding the CPU's track, a
// complete event ("X") for each stretch a task ran, instants for wakeups, sleeps, ticks and the
// other events, counter tracks ("C") for V, W and each task's lag when the trace carries state,
// and marks a caller places on given lines (`vlag trace export --check`: the checker's
// violations and inconclusive verdicts). Tasks are named by the trace's `name` (version 2) as
// "NAME:ID", else "task ID". Streams: memory grows with the live tasks and CPUs and the marks,
// not with the trace.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "json/writer.h"
#include "trace/reader.h"

namespace vlag::trace {

struct PerfettoCounts {
  int64_t events = 0;    // trace events read
  int64_t slices = 0;    // run slices written
  int64_t counters = 0;  // counter samples written
  int64_t marks = 0;     // marks written
};

/// An instant on the track of the CPU of the event at a line of the trace (a global instant at
/// the trace's end where that line holds no event).
struct PerfettoMark {
  std::string name;      // what the timeline shows: "VIOLATION INV-PICK-EDF"
  std::string category;  // the event's "cat"
  json::Object args;     // shown when the instant is selected
};

/// Marks by the 1-based line of the trace they belong to.
using PerfettoMarks = std::multimap<int64_t, PerfettoMark>;

/// Reads every event of `reader` and writes one JSON object {"traceEvents":[…]} to `out`. A run
/// stretch follows the checker's reading of time (spec/TRACE.md §3): the task a `pick` made
/// current runs until the next pick or its own sleep, dequeue, exit or migration on that CPU.
/// Throws the reader's InputError on bad input; what was written before is then incomplete.
PerfettoCounts export_perfetto(Reader& reader, std::ostream& out, const PerfettoMarks& marks = {});

/// Nanoseconds as the format's microseconds, exactly: 1234567 → "1234.567".
std::string micros(int64_t ns);

}  // namespace vlag::trace
