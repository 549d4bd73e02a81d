// The Z3 arbiter of `vlag check`: decides SMT-LIB2 scripts that the checker writes as plain text
// (checker/witness.h: a violation's witness; checker/infer.cpp: the weights of a trace), over
// exact integers, reals and 64-bit bit-vectors. Takes and returns strings only, so that nothing
// outside smt/ depends on Z3.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vlag::smt {

struct Arbitration {
  bool sat = false;
  std::string model;  // Z3's model when sat
  std::string error;  // Z3's message when the script did not parse or Z3 gave up
};

/// Parses an SMT-LIB2 script (declarations and assertions, no commands) and checks it: `sat`
/// confirms the claim the script asserts.
Arbitration arbitrate(const std::string& script);

struct Answer {
  bool sat = false;
  std::map<std::string, std::string> values;  // the requested constants in Z3's model
  std::vector<std::string> core;              // when unsat: assumptions in an unsat core
  std::string error;
};

/// Checks an SMT-LIB2 script (declarations and assertions) under the given Boolean assumptions,
/// minimising the unsat core. When sat, reads the named constants from the model.
Answer solve(const std::string& script, const std::vector<std::string>& assumptions,
             const std::vector<std::string>& read);

}  // namespace vlag::smt
