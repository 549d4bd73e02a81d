#include "prove/group_replay.h"

#include <map>
#include <optional>

#include "reference/group_driver.h"
#include "trace/hierarchy_writer.h"

namespace vlag::prove {
namespace {

using reference::GroupDriver;
using reference::Hierarchy;
using reference::Runqueue;
using reference::Violation;

bool hierarchy_id(const std::string& id) {
  return id == ids::kInvGroupQueued || id == ids::kInvGroupShares;
}

}  // namespace

Replay replay_groups(const Options& o, const std::vector<Op>& ops) {
  GroupDriver d(o.params);
  Hierarchy& h = d.hierarchy();
  std::map<RunqueueId, reference::History> history;  // each runqueue's judge (INV-NEXT-BUDDY)
  std::optional<Violation> found;
  h.set_step_hook([&](const Runqueue& before, const Op& op, const Runqueue& after) {
    reference::History& seen = history[op.rq];
    for (Violation& v : check_step(before, op, after, &seen))
      if (!found && v.id == o.invariant) {
        v.detail = "rq " + std::to_string(op.rq) + ": " + v.detail;
        found = std::move(v);
      }
    seen.saw(op);
  });
  Replay out;
  for (size_t k = 0; k < ops.size(); ++k) {
    h.clear_shares_updated();
    d.apply(ops[k]);
    if (!found && hierarchy_id(o.invariant)) {
      std::vector<Violation> all = reference::check_hierarchy_state(h);
      for (std::vector<Violation> more : {check_group_shares(h), check_one_cpu_shares(h)})
        all.insert(all.end(), more.begin(), more.end());
      for (Violation& v : all)
        if (!found && v.id == o.invariant) found = std::move(v);
    }
    if (found) {
      out.step = static_cast<int>(k);
      out.detail = found->detail;
      out.promised = found->promised;
      return out;
    }
  }
  return out;
}

void write_group_trace(const Options& o, const std::vector<Op>& ops, std::ostream& out) {
  trace::Header header;
  header.producer = "vlag prove --groups --invariant " + o.invariant;
  header.params = o.params;
  GroupDriver d(o.params);
  const reference::TaskGroups& groups = d.groups();
  trace::HierarchyWriter<reference::Num, reference::HierarchyObserver<reference::Num>> writer(
      out, header, {}, [&groups](EntityId se) -> std::optional<std::string> {
        if (!reference::is_group_entity(se)) return std::nullopt;
        return groups.group(reference::group_of_entity(se)).path;
      });
  d.hierarchy().set_observer(&writer);
  for (const Op& op : ops)
    d.apply(op,
            [&](reference::GroupId g) { writer.shares_written(reference::group_entity_id(g)); });
}

}  // namespace vlag::prove
