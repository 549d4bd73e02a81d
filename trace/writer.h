// Writes the trace format of spec/TRACE.md: a header line, then one JSON object per event.
// Producers call it through TraceObserver (trace/observer.h) or directly (hand-made traces,
// windows cut from a trace by the checker).
#pragma once

#include <ostream>

#include "trace/event.h"

namespace vlag::trace {

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}

  void header(const Header& h);
  void event(const Event& e);

 private:
  std::ostream& out_;
};

/// One event as its JSON line (without the newline).
std::string event_line(const Event& e);
std::string header_line(const Header& h);

}  // namespace vlag::trace
