// What `vlag kernel check` prints (SPEC.md §6.2, §6.3): per task the layout of
// `perf sched latency`; the CPU share of every task that ran inside its group and of every group
// inside its parent, against the renormalised fluid ideal, with its weight phases; per ID the
// subjects held, inconclusive (by reason), violated and not applicable, and the findings; what
// the trace did not record. The same as one JSON object per file, whose verdict counts and
// findings go to the report's envelope (cli/json_envelope.h). `extra` is what an option adds
// (cli/kernel_worst_report.h): text after the latency table, a member of the JSON object.
#pragma once

#include <string>

#include "cli/json_envelope.h"
#include "kernel/perf_script.h"
#include "kernel/service.h"

namespace vlag::cli {

void print_kernel_text(const kernel::KernelReport& r, const kernel::PerfParseStats& stats,
                       bool hz_given, const std::string& extra = "");

/// The file's verdicts (its tallies) and findings, into the report's envelope.
void add_to_envelope(const kernel::KernelReport& r, Envelope& envelope);

/// The file's object (findings apart: add_to_envelope). With `extra_key` not empty, `extra`
/// (JSON) is the object's member of that name.
std::string kernel_json(const kernel::KernelReport& r, const kernel::PerfParseStats& stats,
                        const std::string& extra_key = "", const std::string& extra = "");

}  // namespace vlag::cli
