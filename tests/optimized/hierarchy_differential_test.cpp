// The optimized hierarchy (one augmented tree per group runqueue, SPEC.md §10, §7.2) against the
// reference hierarchy in Linux arithmetic: the same random trees of groups and the same
// operations, accepted or rejected alike, leave bit-identical state on every runqueue.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "optimized/differential.h"
#include "optimized/runqueue.h"
#include "reference/hierarchy.h"
#include "reference/runqueue.h"
#include "spec/error.h"
#include "tests/support/op_gen.h"

namespace vlag::optimized {
namespace {

using reference::GroupId;
using reference::TaskGroups;

RC_GTEST_PROP(HierarchyDifferentialProperties, OptimizedMatchesLinuxReferenceAtEveryLevel, ()) {
  const std::string preset =
      *rc::gen::element<std::string>("linux-6.6", "linux-6.12", "linux-6.18");
  const int ngroups = *rc::gen::inRange(1, 5);
  const int ntasks = *rc::gen::inRange(1, 7);
  // Two machines of one CPU with the same groups: each hierarchy records its own loads.
  TaskGroups ref_groups(1), opt_groups(1);
  std::vector<GroupId> ids{reference::kRootGroup};
  for (int i = 0; i < ngroups; ++i) {
    const GroupId parent = ids[static_cast<size_t>(*rc::gen::inRange(0, i + 1))];
    const std::string base = parent == reference::kRootGroup ? "" : ref_groups.group(parent).path;
    const int64_t shares = reference::cgroup_weight_to_shares(*rc::gen::inRange(1, 10001));
    ids.push_back(ref_groups.add(base + "/g" + std::to_string(i), shares));
    opt_groups.add(base + "/g" + std::to_string(i), shares);
  }
  const Params params = make_params(preset_by_name(preset));
  reference::BasicHierarchy<reference::LinuxRunqueue> ref(params, ref_groups);
  reference::BasicHierarchy<Runqueue> opt(params, opt_groups);
  for (int t = 1; t <= ntasks; ++t) {
    const int64_t w = *testing::gen_weight(), s = *testing::gen_slice();
    const GroupId g = ids[static_cast<size_t>(*rc::gen::inRange(0, ngroups + 1))];
    ref.create(t, w, s, g);
    opt.create(t, w, s, g);
  }
  const auto ops = *rc::gen::container<std::vector<std::pair<Op, int>>>(
      rc::gen::pair(testing::gen_op(ntasks), rc::gen::inRange(0, 100)));
  // Named members, not a structured binding: clang before 16 cannot capture bindings in a lambda.
  for (const auto& op_and_extra : ops) {
    const Op& o = op_and_extra.first;
    const int extra = op_and_extra.second;
    const auto step = [&](auto& h) -> std::string {
      try {
        if (o.kind == OpKind::Detach)
          h.move(o.se, ids[static_cast<size_t>(extra) % ids.size()]);
        else
          h.apply(o);
        return "accepted";
      } catch (const Error& e) {
        return std::string("rejected: ") + e.what();
      }
    };
    const std::string a = step(ref), b = step(opt);
    RC_ASSERT(a == b);
    RC_ASSERT(ref.curr() == opt.curr());
    RC_ASSERT(ref.runqueues() == opt.runqueues());
    for (GroupId g : ref.runqueues())
      if (const auto d = state_difference(ref.runqueue(g), opt.runqueue(g)))
        RC_FAIL(preset + ": rq " + std::to_string(g) + " after " + to_string(o) + ": " + *d);
  }
}

}  // namespace
}  // namespace vlag::optimized
