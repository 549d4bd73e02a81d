// Scheduling policies of the simulated machine: which per-CPU runqueue each CPU runs and the
// few decisions the machine makes around it (a task's slice at creation, whether a wakeup may
// preempt at all). The first three run the EEVDF runqueue of SPEC.md; the variants come from LKML
// proposals the simulator can compare against the preset, and CFS as it was before them:
//   eevdf                 the preset as it is;
//   eevdf-latency-nice    TaskAttrs::latency_nice becomes a custom slice by SPEC.md §1.2
//                         (P. Zijlstra's 2023 latency-nice series);
//   no-same-prio-preempt  no wakeup preemption between two SCHED_OTHER tasks of equal priority
//                         ("sched/fair: Do not wakeup-preempt same-prio SCHED_OTHER tasks");
//   cfs                   the pre-6.6 fair class (cfs/, SPEC.md §8), not EEVDF;
//   cfs-latency-nice      cfs with the v9 latency-nice series: TaskAttrs::latency_nice is the
//                         task's latency_nice there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/task_groups.h"
#include "sim/cpu_runqueue.h"
#include "sim/task.h"
#include "spec/arith.h"
#include "spec/features.h"

namespace vlag::sim {

enum class Policy : uint8_t { Eevdf, EevdfLatencyNice, NoSamePrioPreempt, Cfs, CfsLatencyNice };

/// "eevdf", "eevdf-latency-nice", "no-same-prio-preempt", "cfs", "cfs-latency-nice"; throws
/// vlag::Error otherwise.
Policy policy_by_name(std::string_view name);
std::string_view policy_name(Policy p);
std::vector<std::string> policy_names();

/// Whether the policy runs the CFS runqueue (its traces name the policy as their preset).
bool is_cfs(Policy p);

/// The runqueue one CPU runs under the policy. The EEVDF policies run it in `arith`:
/// Linux64, optimized::Runqueue (Linux's 64-bit integers, Linux presets only); Exact,
/// reference::Runqueue (the model's rationals, every preset, paper ones included; it cannot
/// migrate, so it suits one-CPU runs). Throws vlag::Error for a CFS policy in exact arithmetic
/// (CFS has no exact model).
std::unique_ptr<CpuRunqueue> make_cpu_runqueue(Policy p, Arith arith, const Params& params);
/// CPU `cpu`'s runqueue as a hierarchy of the machine's task groups (sim/group_runqueue.h):
/// SPEC.md §10's for the EEVDF policies, in `arith` as above; v6.5's (cfs/hierarchy.h, SPEC.md
/// §8.6) for the CFS policies, where cfs-latency-nice gives each group entity its group's
/// latency_nice (`group_latency_nice`, none: 0).
std::unique_ptr<CpuRunqueue> make_group_cpu_runqueue(
    Policy p, Arith arith, const Params& params, reference::TaskGroups& groups, int cpu,
    std::function<int64_t(TaskId)> group_of,
    std::function<std::optional<int>(reference::GroupId)> group_latency_nice = {});

/// The custom slice a task is created with (0: the base slice). An explicit slice_ns wins; under
/// eevdf-latency-nice a non-zero latency_nice gives the SPEC.md §1.2 slice.
int64_t creation_slice(Policy p, const TaskAttrs& attrs, const Params& params);

/// Whether the machine hands the task's latency_nice to the runqueue after creating it.
bool runqueue_takes_latency_nice(Policy p, const TaskAttrs& attrs);

/// Whether waking `wakee` may preempt the running `curr` at all (the runqueue then decides).
/// All simulated tasks are SCHED_OTHER, so equal priority is equal nice.
bool may_wakeup_preempt(Policy p, const TaskAttrs& wakee, const TaskAttrs& curr);

}  // namespace vlag::sim
