// INV-DEADLINE on the kernel's numbers: every queued task entity, not delayed, has
// 0 < d − v ≤ calc_delta_fair(r, w) in the kernel's own arithmetic, r the largest slice since its
// request may have been set (a custom slice changed meanwhile keeps the deadline the old one set,
// SPEC.md §4.10). Where the weight changed since the request was set, d − v was rescaled (§4.8) and
// the bound is not promised in integer arithmetic (§7.3); where the entity is seen for the first
// time, a reweight or slice change before the capture may have done the same: inconclusive.
// Judged at every record the kernel took under the runqueue lock: the tasks of the record and the
// entities of its queue snapshots. Group entities are left out: their slice follows the tasks
// queued below them.
#include <fmt/format.h>

#include <unordered_set>

#include "kernel/state/arith.h"
#include "kernel/state/check_context.h"
#include "kernel/state/smt_witness.h"
#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

Outcome judge_one(const CheckContext& c, const bpf::QueuedEntity& e, Witness& w,
                  const bpf::StateRecord& r) {
  const EntityView* view = c.model.entity(e.id);
  const bool known = view && c.model.stale(*view).empty();
  const uint64_t request = known ? std::max(view->request_slice, e.slice) : e.slice;
  const bool rescaled = known && (view->rescaled || view->last.weight != e.weight);
  const int64_t rest = key_of(e.deadline, e.vruntime);
  const auto bound = static_cast<int64_t>(calc_delta_fair(request, e.weight, true));
  if (rest > 0 && rest <= bound) return held();
  if (rest > 0 && rescaled)
    return not_applicable("reweighted since its request was set: d - v rescaled (SPEC.md 7.3)");
  if (rest > 0 && !known)
    return inconclusive(view ? c.model.stale(*view)
                             : "seen mid-life: a reweight or slice change before the capture "
                               "may have rescaled its request");
  w = witness_at(r);
  w.smt = deadline_smt(e, request, bound);
  w.lines.push_back(entity_line(e, "entity"));
  if (known) w.lines.push_back(entity_line(view->last, "as last seen"));
  return violated(rest <= 0
                      ? fmt::format("d - v = {}: no request left", rest)
                      : fmt::format("d - v = {} beyond vdelta({}) = {}", rest, request, bound));
}

}  // namespace

void judge_deadlines(CheckContext& c, const bpf::StateRecord& r) {
  if (r.kind == bpf::RecordKind::Exit || r.kind == bpf::RecordKind::SetAttr) return;  // unlocked
  std::unordered_set<uint64_t> judged;
  Tally& tally = c.report.tally(ids::kInvDeadline);
  const auto judge = [&](const bpf::QueuedEntity& e) {
    if (e.pid == 0 || e.is_group || !e.on_rq || e.sched_delayed || !judged.insert(e.id).second)
      return;
    Witness w;
    const Outcome o = judge_one(c, e, w, r);
    tally.add(o, std::move(w));
  };
  for (const auto& t : r.tasks)
    if (t.fair && !t.chain.empty()) judge(t.chain[0]);
  for (const auto& q : r.queues)
    for (const auto& e : q.entities) judge(e);
}

}  // namespace vlag::kernel::state
