// Varied settings that changed nothing: `vlag compare --vary latency_nice=0,-20,19` under the
// default policy prints "+0.0 % same" everywhere, because only the latency-nice policies read
// latency_nice. Two kinds of warning: a setting the chosen configuration is known to ignore
// (latency_nice outside eevdf-latency-nice and cfs-latency-nice; placement and balancing on one
// CPU; kernel_cpus once base_slice_us is set), said before the runs, and a variant whose every
// run gave exactly the baseline's figures on the same seed, found after them.
#pragma once

#include <string>
#include <vector>

#include "compare/grid.h"

namespace vlag::compare {

/// Settings of the rows and variants that the cells they apply to ignore, one message each.
std::vector<std::string> ignored_settings(const GridSpec& spec);

/// Variants (not the baseline) whose runs all reported exactly the baseline's metrics on the
/// same row and seed, one message each.
std::vector<std::string> variants_without_effect(const RunResults& results);

}  // namespace vlag::compare
