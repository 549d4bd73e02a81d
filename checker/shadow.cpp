#include "checker/shadow.h"

#include <limits>

#include "checker/checker_bug.h"
#include "spec/error.h"
#include "trace/observer.h"
#include "trace/small_exact.h"

namespace vlag::checker {
namespace {

// A lag the trace gives, in the runqueue's arithmetic.
Exact as_num(const Exact& x, const reference::Runqueue&) { return x; }
LinuxTime as_num(const Exact& x, const optimized::Runqueue&) {
  if (x.get_den() != 1 || !x.get_num().fits_slong_p())
    throw Error("the saved lag " + x.get_str() + " is not an s64 integer (\"arith\":\"linux64\")");
  return LinuxTime(x.get_num().get_si());
}

// A number of the shadow's arithmetic into an exact one's storage.
void read_into(Exact& into, const Exact& x) { trace::assign_exact(into, x); }
void read_into(Exact& into, LinuxTime x) { trace::assign_s64(into, x.value()); }

// V as read by Shadow::V() back in the runqueue's arithmetic, in which a lag is taken: the
// reading is exact both ways (a Linux V is an s64).
const Exact& in_arith(const Exact& V, const reference::Runqueue&) { return V; }
LinuxTime in_arith(const Exact& V, const optimized::Runqueue&) {
  return LinuxTime(*trace::s64_of(V));
}

}  // namespace

// The tree queue cannot move: both alternatives are built in place.
Shadow::Shadow(const Params& params, Arith arith, RunqueueId rq)
    : rq_(std::in_place_type<reference::Runqueue>, params, rq) {
  if (arith == Arith::Linux64) rq_.emplace<optimized::Runqueue>(params, rq);
}

void Shadow::apply(const Op& op) {
  ++changes_;  // before the operation, which may change the runqueue and then throw
  std::visit([&](auto& rq) { rq.apply(op); }, rq_);
  if (--until_audit_ == 0) {
    until_audit_ = kAuditPeriod;
    audit();
  }
}

void Shadow::audit() const {
  if (const auto* tree = std::get_if<optimized::Runqueue>(&rq_))
    if (const auto problem = tree->queue().check_tree())
      throw CheckerBug("the shadow's tree after " + std::to_string(tree->last_seq()) +
                       " insertions: " + *problem);
}

bool Shadow::detach(EntityId id) {
  ++changes_;
  return std::visit([&](auto& rq) { return rq.detach(id).has_value(); }, rq_);
}

bool Shadow::attach(EntityId id, int64_t weight, int64_t slice, bool custom_slice,
                    const Exact& vlag) {
  ++changes_;
  return std::visit(
      [&](auto& rq) {
        using Num = typename std::decay_t<decltype(rq)>::Num;
        return rq.attach(Migrant<Num>{id, weight, slice, custom_slice, as_num(vlag, rq)});
      },
      rq_);
}

bool Shadow::has(EntityId id) const {
  if (entity_at_ == changes_ && entity_id_ == id) return true;  // entity() answered for it
  return std::visit([&](const auto& rq) { return rq.has(id); }, rq_);
}

const ShadowEntity& Shadow::entity(EntityId id) const {
  if (entity_at_ == changes_ && entity_id_ == id) return entity_;
  entity_at_ = -1;  // until the answer is read
  std::visit(
      [&](const auto& rq) {
        const auto& e = rq.entity(id);
        entity_.weight = e.weight;
        entity_.slice = e.slice;
        read_into(entity_.vruntime, e.vruntime);
        read_into(entity_.deadline, e.deadline);
        // As the runqueue's observer reports it: the difference taken in the arithmetic, from
        // the V kept for this state (avg_vruntime divides: once per change, not per question).
        if (e.status == Status::Sleeping)
          read_into(entity_.vlag, e.vlag);
        else
          read_into(entity_.vlag, in_arith(V(), rq) - e.vruntime);
        entity_.status = e.status;
      },
      rq_);
  entity_at_ = changes_;
  entity_id_ = id;
  return entity_;
}

const Exact& Shadow::V() const {
  if (V_at_ == changes_) return V_;
  std::visit([&](const auto& rq) { read_into(V_, rq.avg_vruntime()); }, rq_);
  V_at_ = changes_;
  return V_;
}

int64_t Shadow::W() const {
  return std::visit([](const auto& rq) { return rq.total_weight(); }, rq_);
}

std::optional<EntityId> Shadow::curr() const {
  return std::visit([](const auto& rq) { return rq.curr(); }, rq_);
}

std::optional<EntityId> Shadow::next_buddy() const {
  return std::visit([](const auto& rq) { return rq.next_buddy(); }, rq_);
}

bool Shadow::protect_slice() const {
  return std::visit([](const auto& rq) { return rq.protect_slice(); }, rq_);
}

}  // namespace vlag::checker
