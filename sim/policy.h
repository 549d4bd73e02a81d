// Scheduling policies of the simulated machine: which per-CPU runqueue each CPU runs and the
// few decisions the machine makes around it (a task's slice at creation, whether a wakeup may
// preempt at all). All three run the EEVDF runqueue of SPEC.md; the variants come from LKML
// proposals the simulator can compare against the preset:
//   eevdf                 the preset as it is;
//   eevdf-latency-nice    TaskAttrs::latency_nice becomes a custom slice by SPEC.md §1.2
//                         (P. Zijlstra's 2023 latency-nice series);
//   no-same-prio-preempt  no wakeup preemption between two SCHED_OTHER tasks of equal priority
//                         ("sched/fair: Do not wakeup-preempt same-prio SCHED_OTHER tasks").
// A runqueue of another scheduling class (CFS) is added in make_cpu_runqueue.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cpu_runqueue.h"
#include "sim/task.h"
#include "spec/features.h"

namespace vlag::sim {

enum class Policy : uint8_t { Eevdf, EevdfLatencyNice, NoSamePrioPreempt };

/// "eevdf", "eevdf-latency-nice", "no-same-prio-preempt"; throws vlag::Error otherwise.
Policy policy_by_name(std::string_view name);
std::string_view policy_name(Policy p);
std::vector<std::string> policy_names();

/// The runqueue one CPU runs under the policy.
std::unique_ptr<CpuRunqueue> make_cpu_runqueue(Policy p, const Params& params);

/// The custom slice a task is created with (0: the base slice). An explicit slice_ns wins; under
/// eevdf-latency-nice a non-zero latency_nice gives the SPEC.md §1.2 slice.
int64_t creation_slice(Policy p, const TaskAttrs& attrs, const Params& params);

/// Whether waking `wakee` may preempt the running `curr` at all (the runqueue then decides).
/// All simulated tasks are SCHED_OTHER, so equal priority is equal nice.
bool may_wakeup_preempt(Policy p, const TaskAttrs& wakee, const TaskAttrs& curr);

}  // namespace vlag::sim
