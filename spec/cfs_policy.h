// SPEC.md §8: the CFS policies of the simulator. They are not EEVDF presets (preset_by_name does
// not know them), but a trace written by the CFS runqueue names one in its header, so the trace
// reader and the checker accept these names too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/features.h"

namespace vlag {

inline constexpr std::string_view kCfsPolicy = "cfs";
inline constexpr std::string_view kCfsLatencyNicePolicy = "cfs-latency-nice";

bool is_cfs_policy(std::string_view name);

/// The header preset of a CFS trace: no EEVDF feature on, and base_slice_norm_ns =
/// sysctl_sched_min_granularity (0.75 ms before the CPU factor), the quantity that v6.6 renamed
/// sysctl_sched_base_slice. Throws vlag::Error for a name that is not a CFS policy.
Preset cfs_preset(std::string_view name);

}  // namespace vlag
