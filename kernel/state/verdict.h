// What a check on the kernel's own numbers (SPEC.md §6.4) says about one case — a pick, a
// placement, a saved lag, a cfs_rq's sums — and the tally a report prints per ID: how many cases
// held, were violated, were inconclusive (the capture cannot show it: records lost, a CPU not
// captured, an entity seen mid-life, a snapshot cut short) or not applicable (nothing of the kind
// happened, or the property is not promised there), each inconclusive or not-applicable case with
// its reason, and each violation with its witness. The verdicts are SPEC.md §6.3's lattice
// (spec/verdict.h); a reason here is the capture's own words, finer than §6.3's classes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/witness.h"
#include "spec/verdict.h"

namespace vlag::kernel::state {

using vlag::Verdict;

/// A verdict on one case, with why where it is not held.
struct Outcome {
  Verdict verdict = Verdict::Held;
  std::string reason;  // inconclusive, not applicable: why; violated: what failed
};

inline Outcome held() { return {}; }
inline Outcome violated(std::string what) { return {Verdict::Violated, std::move(what)}; }
inline Outcome inconclusive(std::string why) { return {Verdict::Inconclusive, std::move(why)}; }
inline Outcome not_applicable(std::string why) { return {Verdict::NotApplicable, std::move(why)}; }

/// The entities and values that show a violation, as lines a person reads and as SMT-LIB2
/// assertions (kernel/state/smt_witness.h), with the evidence kernel/state/evidence.h adds.
struct Witness {
  uint64_t time_ns = 0;
  int cpu = -1;
  size_t record = SIZE_MAX;             // the record's index in the capture (time order)
  std::string what;                     // one line: what failed
  std::vector<std::string> lines;       // the entities and the cfs_rq's numbers
  std::optional<checker::Witness> smt;  // the violated case's numbers and the claim
  // Evidence, for the first violations: Z3's verdict on `smt`, the SMT-LIB2 file, and the
  // minimal window (the last records up to this one, a capture `vlag kernel check --state`
  // reads, that shows the violation again at its last record), or why there is none.
  std::optional<bool> z3_sat;
  std::string z3_error;
  std::string smt_file;
  std::string window_file;
  std::string window_note;
};

/// Every case of one ID. `cases` counts each case once, whatever its verdict.
struct Tally {
  uint64_t cases = 0;
  uint64_t held = 0;
  uint64_t violated = 0;
  uint64_t inconclusive = 0;
  uint64_t not_applicable = 0;
  std::map<std::string, uint64_t> inconclusive_reasons;
  std::map<std::string, uint64_t> not_applicable_reasons;
  std::vector<Witness> witnesses;  // the first kMaxWitnesses violations
  static constexpr size_t kMaxWitnesses = 20;

  /// Counts an outcome; a violation keeps `witness` (its `what` set from the outcome's reason).
  void add(const Outcome& o, Witness witness = {});
};

}  // namespace vlag::kernel::state
