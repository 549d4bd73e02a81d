#include "checker/shadow.h"

#include <limits>

#include "spec/error.h"
#include "trace/observer.h"

namespace vlag::checker {
namespace {

std::variant<reference::Runqueue, reference::LinuxRunqueue> make_runqueue(const Params& params,
                                                                          Arith arith,
                                                                          RunqueueId rq) {
  if (arith == Arith::Linux64) return reference::LinuxRunqueue(params, rq);
  return reference::Runqueue(params, rq);
}

// A lag the trace gives, in the runqueue's arithmetic.
Exact as_num(const Exact& x, const reference::Runqueue&) { return x; }
LinuxTime as_num(const Exact& x, const reference::LinuxRunqueue&) {
  if (x.get_den() != 1 || !x.get_num().fits_slong_p())
    throw Error("the saved lag " + x.get_str() + " is not an s64 integer (\"arith\":\"linux64\")");
  return LinuxTime(x.get_num().get_si());
}

}  // namespace

Shadow::Shadow(const Params& params, Arith arith, RunqueueId rq)
    : rq_(make_runqueue(params, arith, rq)) {}

void Shadow::apply(const Op& op) {
  std::visit([&](auto& rq) { rq.apply(op); }, rq_);
}

bool Shadow::detach(EntityId id) {
  return std::visit([&](auto& rq) { return rq.detach(id).has_value(); }, rq_);
}

bool Shadow::attach(EntityId id, int64_t weight, int64_t slice, bool custom_slice,
                    const Exact& vlag) {
  return std::visit(
      [&](auto& rq) {
        using Num = typename std::decay_t<decltype(rq)>::Num;
        return rq.attach(Migrant<Num>{id, weight, slice, custom_slice, as_num(vlag, rq)});
      },
      rq_);
}

bool Shadow::has(EntityId id) const {
  return std::visit([&](const auto& rq) { return rq.has(id); }, rq_);
}

ShadowEntity Shadow::entity(EntityId id) const {
  return std::visit(
      [&](const auto& rq) {
        const auto& e = rq.entity(id);
        ShadowEntity s;
        s.weight = e.weight;
        s.slice = e.slice;
        s.vruntime = trace::to_exact(e.vruntime);
        s.deadline = trace::to_exact(e.deadline);
        // As the runqueue's observer reports it: the difference taken in the arithmetic.
        s.vlag =
            trace::to_exact(e.status == Status::Sleeping ? e.vlag : rq.avg_vruntime() - e.vruntime);
        s.status = e.status;
        return s;
      },
      rq_);
}

Exact Shadow::V() const {
  return std::visit([](const auto& rq) { return trace::to_exact(rq.avg_vruntime()); }, rq_);
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
