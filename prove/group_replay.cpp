#include "prove/group_replay.h"

#include <map>
#include <optional>

#include "reference/hierarchy_invariants.h"
#include "spec/error.h"
#include "trace/hierarchy_writer.h"

namespace vlag::prove {
namespace {

using reference::GroupId;
using reference::Hierarchy;
using reference::Runqueue;
using reference::Violation;

// One CPU's hierarchy and its task groups, driven by a counterexample's operations.
class Driver {
 public:
  explicit Driver(const Options& o) : groups_(1), h_(o.params, groups_) {}

  void apply(const Op& op) {
    if (op.kind == OpKind::Create && reference::is_group_entity(op.se)) {
      const GroupId g = reference::group_of_entity(op.se);
      if (groups_.add("/g" + std::to_string(g), op.a) != g)
        throw Error("prove: the groups of a counterexample come in order");
      return;
    }
    if (op.kind == OpKind::Reweight && reference::is_group_entity(op.se)) {
      const GroupId g = reference::group_of_entity(op.se);
      groups_.set_shares(g, op.a);
      h_.shares_changed(g);
      return;
    }
    h_.apply(op, op.rq);
  }

  Hierarchy& hierarchy() { return h_; }
  const reference::TaskGroups& groups() const { return groups_; }

 private:
  reference::TaskGroups groups_;
  Hierarchy h_;
};

bool hierarchy_id(const std::string& id) {
  return id == ids::kInvGroupQueued || id == ids::kInvGroupShares;
}

}  // namespace

Replay replay_groups(const Options& o, const std::vector<Op>& ops) {
  Driver d(o);
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
  Driver d(o);
  trace::HierarchyWriter<reference::Num> writer(out, header, {}, d.groups());
  d.hierarchy().set_observer(&writer);
  for (const Op& op : ops) d.apply(op);
}

}  // namespace vlag::prove
