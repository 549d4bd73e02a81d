#include "sim/policy.h"

#include "cfs/hierarchy.h"
#include "cfs/runqueue.h"
#include "optimized/runqueue.h"
#include "reference/runqueue.h"
#include "sim/group_runqueue.h"
#include "sim/name_table.h"
#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::sim {
namespace {

constexpr NameTable<Policy, 5> kPolicies = {{
    {Policy::Eevdf, "eevdf"},
    {Policy::EevdfLatencyNice, "eevdf-latency-nice"},
    {Policy::NoSamePrioPreempt, "no-same-prio-preempt"},
    {Policy::Cfs, "cfs"},
    {Policy::CfsLatencyNice, "cfs-latency-nice"},
}};

}  // namespace

Policy policy_by_name(std::string_view name) {
  if (const auto p = value_named(kPolicies, name)) return *p;
  throw Error("unknown policy '" + std::string(name) +
              "' (eevdf, eevdf-latency-nice, no-same-prio-preempt, cfs or cfs-latency-nice)");
}

std::string_view policy_name(Policy p) { return name_of(kPolicies, p); }

std::vector<std::string> policy_names() { return names_of(kPolicies); }

bool is_cfs(Policy p) { return p == Policy::Cfs || p == Policy::CfsLatencyNice; }

// The EEVDF variants act in the machine (creation_slice, may_wakeup_preempt) around the same
// runqueue, exact or Linux; the CFS policies run their own.
std::unique_ptr<CpuRunqueue> make_cpu_runqueue(Policy p, Arith arith, const Params& params) {
  if (is_cfs(p)) {
    if (arith == Arith::Exact)
      throw Error("policy " + std::string(policy_name(p)) +
                  " has no exact runqueue: use Linux arithmetic");
    return std::make_unique<CpuRunqueueAdapter<cfs::Runqueue>>(
        params, cfs::CfsOptions{.latency_nice = p == Policy::CfsLatencyNice});
  }
  if (arith == Arith::Exact)
    return std::make_unique<CpuRunqueueAdapter<reference::Runqueue>>(params);
  return std::make_unique<CpuRunqueueAdapter<optimized::Runqueue>>(params);
}

std::unique_ptr<CpuRunqueue> make_group_cpu_runqueue(
    Policy p, Arith arith, const Params& params, reference::TaskGroups& groups, int cpu,
    std::function<int64_t(TaskId)> group_of,
    std::function<std::optional<int>(reference::GroupId)> group_latency_nice) {
  if (is_cfs(p)) {
    if (arith == Arith::Exact)
      throw Error("policy " + std::string(policy_name(p)) +
                  " has no exact runqueue: use Linux arithmetic");
    return std::make_unique<GroupRunqueue<cfs::Hierarchy>>(
        params, groups, cpu, std::move(group_of),
        cfs::CfsOptions{.latency_nice = p == Policy::CfsLatencyNice},
        std::move(group_latency_nice));
  }
  if (arith == Arith::Exact)
    return std::make_unique<GroupRunqueue<reference::BasicHierarchy<reference::Runqueue>>>(
        params, groups, cpu, std::move(group_of));
  return std::make_unique<GroupRunqueue<reference::BasicHierarchy<optimized::Runqueue>>>(
      params, groups, cpu, std::move(group_of));
}

bool runqueue_takes_latency_nice(Policy p, const TaskAttrs& attrs) {
  return p == Policy::CfsLatencyNice && attrs.latency_nice != 0;
}

int64_t creation_slice(Policy p, const TaskAttrs& attrs, const Params& params) {
  if (attrs.slice_ns != 0 || p != Policy::EevdfLatencyNice || attrs.latency_nice == 0)
    return attrs.slice_ns;
  return latency_nice_slice(attrs.latency_nice, params.base_slice_ns());
}

bool may_wakeup_preempt(Policy p, const TaskAttrs& wakee, const TaskAttrs& curr) {
  return p != Policy::NoSamePrioPreempt || wakee.nice != curr.nice;
}

}  // namespace vlag::sim
