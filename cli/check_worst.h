// What `vlag check --worst N` adds to the report: the N worst wakeups of each model trace one by
// one (task, CPU, times, what ran meanwhile), as `vlag kernel check --worst N` lists the real
// kernel's — the trace read as the tracepoints a kernel would have recorded
// (kernel/model_tracepoints.h) through the same stream (kernel/worst_wakeups.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "checker/run.h"

namespace vlag::cli {

/// Text after the summary: per trace, the table of cli/kernel_worst_report.h.
std::string model_worst_text(const std::vector<checker::Source>& sources, size_t n);

/// The "worst_wakeups" member of check's JSON: an array of {"file", "measured", "wakeups"}.
std::string model_worst_json(const std::vector<checker::Source>& sources, size_t n);

}  // namespace vlag::cli
