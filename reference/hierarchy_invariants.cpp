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
  std::vector<Violation> out;
  for (GroupId g : h.shares_updated()) {
    if (!h.has_runqueue(g) || h.runqueue(g).nr_queued() == 0) continue;
    const int64_t want = h.groups().shares_on(g, h.cpu());
    const int64_t w = group_entity(h, g).weight;
    if (w != want)
      out.push_back({ids::kInvGroupShares, where(h, g) + ": weight " + std::to_string(w) +
                                               ", the shares rule gives " + std::to_string(want)});
  }
  return out;
}

std::vector<Violation> check_one_cpu_shares(const Hierarchy& h) {
  std::vector<Violation> out;
  if (h.groups().ncpus() != 1) return out;
  for (GroupId g : h.runqueues()) {
    if (g == kRootGroup || h.runqueue(g).nr_queued() == 0) continue;
    const int64_t want = h.groups().group(g).shares;
    const int64_t w = group_entity(h, g).weight;
    if (w != want)
      out.push_back({ids::kInvGroupShares, where(h, g) + ": weight " + std::to_string(w) +
                                               " on one CPU, S_G is " + std::to_string(want)});
  }
  return out;
}

}  // namespace vlag::reference
