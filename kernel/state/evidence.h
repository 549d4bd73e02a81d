// Evidence for the violations a capture of the kernel's own state shows (SPEC.md §6.4), as
// `vlag check` gives it for a trace (checker/run.h): for each of the first violations, Z3's
// verdict on its SMT-LIB2 witness (kernel/state/smt_witness.h; sat confirms that the record's
// numbers violate the ID), the witness as a self-contained SMT-LIB2 file, and a minimal window:
// the fewest last records up to the violating one (1, 2, 4, … up to kMaxWindowRecords) that,
// checked as a capture of their own, show the same ID violated at that record again, written as
// JSON Lines `vlag kernel check --state` reads (the capture's parameters and facts, then the
// records).
#pragma once

#include <cstddef>
#include <string>

#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"

namespace vlag::kernel::state {

inline constexpr size_t kMaxWindowRecords = 4096;

struct EvidenceOptions {
  std::string dir;  // where the files go (made when the first is due); empty: none written
  size_t max = 5;   // violations that get evidence
  bool z3 = true;   // re-check the witnesses with Z3
};

/// Fills in the evidence of the first `options.max` witnesses of `report`, in table order.
/// Throws vlag::Error when a file cannot be written.
void add_evidence(const StateCapture& capture, StateReport& report, const EvidenceOptions& options);

}  // namespace vlag::kernel::state
