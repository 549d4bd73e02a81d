// v6.5's CFS hierarchy (cfs/hierarchy.h, SPEC.md §8.6) over random trees of task groups and
// random operation sequences on one CPU: after every operation INV-GROUP-QUEUED (SPEC.md §10.5),
// INV-GROUP-SHARES in its one-CPU form (w = S_G while the group's runqueue holds entities), the
// CPU's h_nr_running against its tasks' states, and CFS-MIN-VRUNTIME-MONOTONIC on every level, a
// rejected operation included. Case counts come from RC_PARAMS.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cfs/hierarchy.h"
#include "spec/cfs_policy.h"
#include "spec/error.h"
#include "tests/support/op_gen.h"

namespace vlag::cfs {
namespace {

using reference::group_entity_id;
using reference::kRootGroup;

// What must hold between the levels; "" when it does.
std::string broken(const Hierarchy& h, const reference::TaskGroups& groups, int ntasks,
                   std::map<GroupId, LinuxTime>& min_v) {
  for (GroupId g = 0; static_cast<size_t>(g) < groups.size(); ++g) {
    if (!h.has_runqueue(g)) continue;
    const Runqueue& rq = h.runqueue(g);
    if (const auto it = min_v.find(g); it != min_v.end() && rq.min_vruntime() < it->second)
      return "CFS-MIN-VRUNTIME-MONOTONIC: rq " + std::to_string(g);
    min_v[g] = rq.min_vruntime();
    if (g == kRootGroup) continue;
    const Entity& ge = h.runqueue(groups.group(g).parent).entity(group_entity_id(g));
    if ((ge.status == Status::Queued) != (rq.nr_queued() > 0))
      return "INV-GROUP-QUEUED: group " + groups.group(g).path;
    if (rq.nr_queued() > 0 && ge.weight != groups.group(g).shares)
      return "INV-GROUP-SHARES: group " + groups.group(g).path;
  }
  int64_t queued = 0;
  for (TaskId t = 1; t <= ntasks; ++t) queued += h.status(t) == Status::Queued;
  if (h.nr_queued() != queued) return "h_nr_running " + std::to_string(h.nr_queued());
  if (const auto c = h.curr(); c && h.status(*c) != Status::Queued)
    return "curr " + std::to_string(*c) + " is not queued";
  return "";
}

RC_GTEST_PROP(CfsHierarchyProperties, LevelsAgreeAfterEveryOperation, ()) {
  const bool latency_nice = *rc::gen::arbitrary<bool>();
  const auto parents = *rc::gen::container<std::vector<int>>(*rc::gen::inRange<size_t>(1, 5),
                                                             rc::gen::inRange(0, 8));
  reference::TaskGroups groups(1);
  std::vector<GroupId> ids{kRootGroup};
  for (size_t i = 0; i < parents.size(); ++i) {
    const GroupId parent = ids[static_cast<size_t>(parents[i]) % ids.size()];
    const std::string base = parent == kRootGroup ? "" : groups.group(parent).path;
    ids.push_back(groups.add(base + "/g" + std::to_string(i + 1), *testing::gen_weight()));
  }
  const int group_latency = *rc::gen::inRange(-20, 20);
  Hierarchy h(make_params(cfs_preset(latency_nice ? kCfsLatencyNicePolicy : kCfsPolicy), 250, 1),
              groups, 0, CfsOptions{.latency_nice = latency_nice},
              [&](GroupId) { return std::optional<int>(group_latency); });
  const int ntasks = *rc::gen::inRange(1, 7);
  std::map<TaskId, GroupId> home;
  for (TaskId t = 1; t <= ntasks; ++t) {
    home[t] = ids[*rc::gen::inRange<size_t>(0, ids.size())];
    h.apply({OpKind::Create, t, *testing::gen_weight(), 0}, home[t]);
  }
  std::map<GroupId, LinuxTime> min_v;
  for (const Op& o : *rc::gen::container<std::vector<Op>>(testing::gen_op(ntasks))) {
    try {
      if (o.kind == OpKind::Detach) {  // a round trip through a migrant, as a migration makes
        if (const auto m = h.detach(o.se)) RC_ASSERT(h.attach(*m, home[o.se]));
      } else {
        h.apply(o);
      }
    } catch (const Error&) {
      // Rejected: the levels must still agree.
    }
    if (const std::string why = broken(h, groups, ntasks, min_v); !why.empty())
      RC_FAIL(to_string(o) + ": " + why);
  }
}

}  // namespace
}  // namespace vlag::cfs
