// The arithmetic behind one violation, as SMT-LIB2 text that the Z3 arbiter (smt/arbiter.h)
// re-checks: constants with the values read from the trace, the SPEC.md definitions relating
// them, and the claim that the invariant fails. `sat` confirms the violation. Built from plain
// strings so that nothing outside smt/ depends on Z3.
#pragma once

#include <string>
#include <vector>

#include "trace/event.h"

namespace vlag::checker {

using trace::Exact;

enum class Sort : uint8_t { Int, Real, BitVec64 };

struct Witness {
  struct Const {
    std::string name;
    Sort sort = Sort::Real;
    trace::Exact value;
  };
  std::vector<Const> consts;
  std::vector<std::pair<std::string, Sort>> derived;  // declared, defined by `definitions`
  std::vector<std::string> definitions;  // SMT-LIB terms asserted as SPEC.md definitions
  std::string claim;                     // SMT-LIB term: the invariant is violated
  std::string statement;                 // the invariant in words, for the file's comment

  void add(std::string name, Sort sort, const trace::Exact& value) {
    consts.push_back({std::move(name), sort, value});
  }
};

/// A number as an SMT-LIB literal of the given sort: 5, (- 5), (/ 7 3), (_ bv5 64).
std::string smt_literal(Sort sort, const trace::Exact& x);

}  // namespace vlag::checker

namespace vlag::checker {

/// The witness as a self-contained SMT-LIB2 script: comments (what is claimed, where it comes
/// from), declarations, the values read from the trace, the definitions, the claim. With
/// `commands`, ends in (check-sat) and (get-model) so that `z3 FILE` prints the verdict.
std::string smt_script(const Witness& w, const std::string& origin, bool commands);

}  // namespace vlag::checker
