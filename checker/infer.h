// Parameter inference (spec/TRACE.md §6): for a trace whose `new` events leave weights unknown
// ("weight":null), asks Z3 whether some choice of weights in [2, 2^18] makes every pick an
// EEVDF decision — eligible (v_p ≤ V) and of earliest eligible deadline — and, when none does,
// names the picks of an unsat core.
//
// Scope: one CPU; every task wakes before any task has run and never sleeps, is reweighted or
// changes slice; slices known (given or the base slice). Then v_i = N·s_i/w_i and d_i =
// N·D_i/w_i with the service s_i and the request end D_i known from the trace alone, and both
// rules are linear in the weights: eligible(i) ⇔ Σ_j (w_j·s_i − w_i·s_j) ≤ 0, and
// d_p ≤ d_e ⇔ D_p·w_e ≤ D_e·w_p. A re-pick of the running task is exempt from the deadline
// rule under presets with slice protection (SPEC.md §4.5), as in INV-PICK-EDF.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "checker/run.h"
#include "spec/ops.h"

namespace vlag::checker {

struct Inference {
  bool consistent = false;
  int64_t picks = 0;
  std::map<TaskId, int64_t> weights;  // a witness choice when consistent
  std::vector<int64_t> core_lines;    // the picks (line numbers) of an unsat core otherwise
  std::string smt_file;               // the query, replayable with `z3 FILE`
};

/// Throws trace::InputError for faults and for events outside the scope above.
Inference infer_weights(const Source& source, const std::string& evidence_dir);

}  // namespace vlag::checker
