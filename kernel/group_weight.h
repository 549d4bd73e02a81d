// The weight of a group entity on one CPU (SPEC.md §6.2): calc_group_shares() gives
// tg->shares · load / (load + what the group's other CPUs carry), so it is known only while
// the group's load is (almost) all on that CPU. tg->shares itself is read from a snapshot, or
// from the cgroup knob the user set (a group map's shares line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernel/range.h"
#include "kernel/sched_debug.h"

namespace vlag::kernel {

/// tg->shares (unscaled) of the group of cfs_rq `rq`, from its group entity's printed weight,
/// when this CPU held the group's load: for an autogroup, the largest nice level's weight within
/// the range (its shares are one of them), or the levels from the floor up when none fits;
/// exact when nothing of the group was elsewhere; a range otherwise; nullopt when nothing of
/// the group was queued on this CPU (its entity's weight is then stale).
std::optional<Range> shares_from_snapshot(const CfsRqSnapshot& rq, const std::string& file);

/// tg->shares (unscaled) after writing `value` to cgroup v1's cpu.shares: the kernel stores
/// scale_load(value) clamped to MIN_SHARES..MAX_SHARES (sched_group_set_shares), so any value
/// >= 0 is taken, and reads back clamped.
int64_t shares_of_cpu_shares(int64_t value);

/// The load the group's other CPUs carry (tg_load_avg − this CPU's contribution), as printed.
std::optional<double> other_cpus_load(const CfsRqSnapshot& rq, const std::string& file);

/// The entity's weight where the group's runnable tasks weigh w_run and its other CPUs carry
/// at most `residue` (infinite: unknown): [shares·w_run/(w_run + residue), shares].
Range group_entity_weight(Range shares, double w_run, double residue);

/// An upper bound of the load a task of weight w left on a CPU `since_ns` ago: PELT halves it
/// every 32 periods of 1.024 ms, after the next update of that CPU (allowed 64 ms).
double residue_after(double w, int64_t since_ns);

}  // namespace vlag::kernel
