// A bug of the checker itself, found by one of its self-checks: an incremental sum that a full
// recomputation does not give back (checker/view.h, checker/shadow.h). Not a fault of the trace:
// `vlag check` stops with the message and exit code 70 (EX_SOFTWARE) rather than judge a trace
// on numbers it no longer trusts.
#pragma once

#include <stdexcept>
#include <string>

namespace vlag::checker {

class CheckerBug : public std::logic_error {
 public:
  explicit CheckerBug(const std::string& what) : std::logic_error("checker bug: " + what) {}
};

/// The exit code of a run stopped by a CheckerBug.
inline constexpr int kCheckerBugExit = 70;

}  // namespace vlag::checker
