// Prints a checker report: the human summary (per SPEC.md ID: checked, and the verdicts of
// SPEC.md §6.3 — held, violated, inconclusive, not promised — with the worst figure against its
// bound where it has one; then the violations with their evidence, the inconclusive and
// not-promised findings, the trace problems, each list saying how many it leaves out, and the
// scope notes) or the same as JSON in the envelope of docs/json-schema.md.
#pragma once

#include <string>

#include "checker/report.h"

namespace vlag::cli {

void print_summary(const checker::Report& report);
/// The report as JSON, in the envelope of `command` with its exit code.
/// `worst_wakeups`: the array of cli/check_worst.h (--worst), or empty for none.
std::string report_json(const checker::Report& report, const std::string& command, int exit_code,
                        const std::string& worst_wakeups = "");

/// 2 when faulty lines were skipped (--keep-going), else by the worst verdict (SPEC.md §6.3):
/// 1 for a violation, and under strict for an inconclusive verdict too, else 0.
int exit_code(const checker::Report& report, bool strict);

}  // namespace vlag::cli
