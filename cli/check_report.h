// Prints a checker report: the human summary (per SPEC.md ID: checked, held, violated, worst
// figure against its bound; then the violations with their evidence, the trace problems and the
// scope notes) or the same as JSON.
#pragma once

#include <string>

#include "checker/report.h"

namespace vlag::cli {

void print_summary(const checker::Report& report);
void print_json(const checker::Report& report);

/// 1 when something was violated, 2 when faulty lines were skipped, else 0.
int exit_code(const checker::Report& report);

}  // namespace vlag::cli
