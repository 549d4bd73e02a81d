// Errors raised when a caller breaks an operation's precondition (SPEC.md §4) or gives bad input.
// Every layer throws vlag::Error with a message that names what was wrong; the CLI turns it into
// exit code 2. Nothing in vlag signals a rejected call through undefined behaviour or a crash.
#pragma once

#include <stdexcept>
#include <string>

namespace vlag {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vlag
