// The Z3 arbiter: re-checks a violation's witness with Z3 over exact integers, reals and 64-bit
// bit-vectors. This folder is the only place in vlag that includes z3++.h.
#pragma once

#include <string>

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
