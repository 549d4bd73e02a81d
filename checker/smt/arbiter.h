// The Z3 arbiter: re-checks a violation's witness with Z3 over exact integers, reals and 64-bit
// bit-vectors. This folder is the only place in vlag that includes z3++.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "checker/witness.h"

namespace vlag::checker::smt {

struct Verdict {
  bool sat = false;
  std::string model;  // Z3's model when sat
  std::string error;  // Z3's message when the script did not parse or Z3 gave up
};

/// Parses the witness's SMT-LIB2 script with Z3 and checks it.
Verdict arbitrate(const Witness& w);

}  // namespace vlag::checker::smt

namespace vlag::checker::smt {

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

}  // namespace vlag::checker::smt
