// SPEC.md §8: the CFS policies of the simulator. They are not EEVDF presets (preset_by_name does
// not know them), but a trace written by the CFS runqueue names one in its header, so the trace
// reader and the checker accept these names too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/features.h"

namespace vlag {

inline constexpr std::string_view kCfsPolicy = "cfs";
inline constexpr std::string_view kCfsLatencyNicePolicy = "cfs-latency-nice";

bool is_cfs_policy(std::string_view name);

/// The largest slice r an entity of a CFS trace may carry. sched_slice is a share of
/// sched_period, which grows with the runnable tasks (nr × min_granularity past sched_nr_latency)
/// and, under task groups, is the whole hierarchy's: a group entity alone at the root takes all
/// of it (320 hackbench tasks in one cgroup: 240 ms). The bound is the period of a million tasks
/// at the largest CPU factor's min_granularity (0.75 ms × 4).
inline constexpr int64_t kMaxCfsSliceNs = 1'000'000 * int64_t{3'000'000};

/// The header preset of a CFS trace: no EEVDF feature on, and base_slice_norm_ns =
/// sysctl_sched_min_granularity (0.75 ms before the CPU factor), the quantity that v6.6 renamed
/// sysctl_sched_base_slice. Throws vlag::Error for a name that is not a CFS policy.
Preset cfs_preset(std::string_view name);

}  // namespace vlag
