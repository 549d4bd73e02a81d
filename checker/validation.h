// The preconditions an event must meet before it is checked (spec/TRACE.md §5): that the task it
// names exists (or, for `new`, does not yet), is in the state the event needs, runs when the
// event says so, and that time does not go backwards. A failure is a fault of the trace — a
// trace::InputError naming file, line and field, exit 2 or skipped under --keep-going — never a
// scheduler violation, and the event is then not applied.
#pragma once

#include <cstdint>
#include <string>

#include "checker/view.h"
#include "trace/event.h"
#include "trace/input_error.h"

namespace vlag::checker {

/// Where the checker is in its trace.
struct TracePosition {
  const std::string& file;
  int64_t line = 0;
  int64_t index = 0;    // events applied so far
  int64_t now = 0;      // the clock after them
  bool window = false;  // the trace starts mid-run ("window":true): entity lines first
};

[[noreturn]] void fault(const TracePosition& at, trace::Fault f, const std::string& field,
                        const std::string& what);

/// Throws trace::InputError when `e` cannot follow the events the view was built from.
void validate(const trace::Event& e, const View& view, const TracePosition& at);

}  // namespace vlag::checker
