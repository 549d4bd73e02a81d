#include "reference/hierarchy_invariants.h"

#include <string>

#include "spec/properties.h"

namespace vlag::reference {
namespace {

const Entity& group_entity(const Hierarchy& h, GroupId g) {
  return h.runqueue(h.groups().group(g).parent).entity(group_entity_id(g));
}

std::string where(const Hierarchy& h, GroupId g) {
  return "group " + h.groups().group(g).path + " on CPU " + std::to_string(h.cpu());
}

// INV-GROUP-SHARES on the groups `gs`: each one's entity, while its runqueue holds entities,
// weighs what the instantaneous rule (§10.3) gives on the loads now (S_G itself on one CPU).
std::vector<Violation> shares_violations(const Hierarchy& h, const std::vector<GroupId>& gs) {
  std::vector<Violation> out;
  for (GroupId g : gs) {
    if (g == kRootGroup || !h.has_runqueue(g) || h.runqueue(g).nr_queued() == 0) continue;
    const int64_t want = h.groups().shares_on(g, h.cpu());
    const int64_t w = group_entity(h, g).weight;
    if (w != want)
      out.push_back({ids::kInvGroupShares, where(h, g) + ": weight " + std::to_string(w) +
                                               ", the shares rule gives " + std::to_string(want)});
  }
  return out;
}

}  // namespace

std::vector<Violation> check_hierarchy_state(const Hierarchy& h) {
  std::vector<Violation> out;
  for (GroupId g : h.runqueues()) {
    for (Violation v : check_state(h.runqueue(g))) {
      v.detail = "rq " + std::to_string(g) + ": " + v.detail;
      out.push_back(std::move(v));
    }
    if (g == kRootGroup) continue;
    const Status s = group_entity(h, g).status;
    const bool empty = h.runqueue(g).nr_queued() == 0;
    if ((s == Status::Queued) == empty)
      out.push_back({ids::kInvGroupQueued, where(h, g) + ": its entity is " +
                                               (s == Status::Queued    ? "queued"
                                                : s == Status::Delayed ? "delayed"
                                                                       : "sleeping") +
                                               " with " +
                                               std::to_string(h.runqueue(g).nr_queued()) +
                                               " entities in its runqueue"});
  }
  return out;
}

std::vector<Violation> check_group_shares(const Hierarchy& h) {
  return shares_violations(h, h.shares_updated());
}

std::vector<Violation> check_one_cpu_shares(const Hierarchy& h) {
  if (h.groups().ncpus() != 1) return {};
  return shares_violations(h, h.runqueues());
}

}  // namespace vlag::reference
