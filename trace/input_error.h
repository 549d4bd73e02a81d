// Bad input in a trace, located: every fault names the file, the line and the JSON field, and
// carries its class so that --keep-going can count faults by class and tests can assert them.
#pragma once

#include <cstdint>
#include <string>

#include "spec/error.h"

namespace vlag::trace {

/// Classes of input fault (spec/TRACE.md §5). The first five make a line unreadable; a trace
/// fault is a readable line that contradicts the trace so far (a missing or truncated part).
enum class Fault : uint8_t {
  Malformed,      // not JSON, a required field missing, a field of the wrong type
  UnknownEvent,   // "ev" names no event of the format
  Range,          // a number that does not fit its field
  TimeBackwards,  // "t" smaller than the previous event's
  NotRunnable,    // a pick of a task that is not runnable
  TraceFault,     // a task seen without its `new`, a dequeue of a task not queued, …
};

const char* fault_name(Fault f);

class InputError : public Error {
 public:
  InputError(Fault fault, std::string file, int64_t line, std::string field, std::string what)
      : Error(file + ":" + std::to_string(line) + ": " +
              (field.empty() ? std::string() : "field '" + field + "': ") + what + " [" +
              fault_name(fault) + "]"),
        fault_(fault),
        file_(std::move(file)),
        line_(line),
        field_(std::move(field)) {}

  Fault fault() const { return fault_; }
  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }
  const std::string& field() const { return field_; }

 private:
  Fault fault_;
  std::string file_;
  int64_t line_;
  std::string field_;
};

}  // namespace vlag::trace
