// What `vlag kernel check --worst N` adds to the report (kernel/worst_wakeups.h): the N worst
// wakeups one by one, as text after the latency table and as the "worst_wakeups" member of the
// file's JSON object.
#pragma once

#include <string>
#include <vector>

#include "kernel/worst_wakeups.h"

namespace vlag::cli {

std::string worst_wakeups_text(const std::vector<kernel::WorstWakeup>& worst, int64_t measured);

std::string worst_wakeups_json(const std::vector<kernel::WorstWakeup>& worst, int64_t measured);

}  // namespace vlag::cli
