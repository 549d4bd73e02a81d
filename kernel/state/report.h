// The report of the checks on a capture of the kernel's own state (SPEC.md §6.4), as
// `vlag kernel check --state` and `vlag kernel record --state` print it: the capture (kernel,
// CPUs, lost records, gaps), one line per ID with its cases held / violated / inconclusive /
// not applicable, the reasons, the figures, the replay through the model (its decisions per kind
// agreed, differed and not judged, and the first differences in full: kernel/state/replay.h),
// and a witness per violation — as text or as one JSON object.
#pragma once

#include <string>

#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"

namespace vlag::kernel::state {

std::string report_text(const StateCapture& capture, const StateReport& report);
std::string report_json(const StateCapture& capture, const StateReport& report);

}  // namespace vlag::kernel::state
