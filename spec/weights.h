// SPEC.md §1.1–1.2: the kernel's nice→weight table, weight validation and the latency-nice
// mapping to a request size.
#pragma once

#include <array>
#include <cstdint>

namespace vlag {

/// NICE_0_LOAD in unscaled units (SPEC.md §1: N).
inline constexpr int64_t kNice0Weight = 1024;
/// MIN_SHARES..MAX_SHARES: the range a raw weight may take.
inline constexpr int64_t kMinWeight = 2;
inline constexpr int64_t kMaxWeight = int64_t{1} << 18;
/// Custom slice range of sched_attr.sched_runtime (0.1 ms .. 100 ms), SPEC.md §4.10.
inline constexpr int64_t kMinCustomSliceNs = 100'000;
inline constexpr int64_t kMaxCustomSliceNs = 100'000'000;

/// sched_prio_to_weight[], index nice + 20.
extern const std::array<int64_t, 40> kPrioToWeight;
/// sched_prio_to_wmult[]: the kernel's 2^32/w for each entry of kPrioToWeight (SPEC.md §7). It is
/// a table, not a formula: most entries are 2^32/w rounded to nearest, a few truncated.
extern const std::array<int64_t, 40> kPrioToWmult;

/// Weight of a nice value in −20..19; throws vlag::Error otherwise.
int64_t nice_to_weight(int nice);

/// Throws vlag::Error unless w is in [kMinWeight, kMaxWeight].
void validate_weight(int64_t w);

/// Throws vlag::Error unless r == 0 (base slice) or r is in the custom slice range.
void validate_slice(int64_t r);

/// Clamps a requested sched_runtime to the custom slice range, as the syscall does (0 stays 0).
int64_t clamp_custom_slice(int64_t r);

/// SPEC.md §10.1: `cpu.weight` 1..10000 as a task group's shares, c·1024/100 rounded to the
/// nearest; throws vlag::Error outside 1..10000 (the kernel refuses those writes).
int64_t cgroup_weight_to_shares(int64_t cpu_weight);

/// SPEC.md §1.2: r(ℓ) = b·N / prio_to_weight[ℓ+20], clamped to the custom slice range.
int64_t latency_nice_slice(int latency_nice, int64_t base_slice_ns);

}  // namespace vlag
