// Long, valid, state-rich operation sequences for the central properties (SPEC.md §4, §6). A
// Step names what happens — a wakeup, a sleep, a pick when the runqueue asks for one, a
// migration — and resolve() turns it into the SPEC.md operations it stands for on the
// runqueue's state at that moment, choosing the entity among those the state makes valid, so
// that nearly every step is accepted and queues fill, drain and refill. Raw operations of
// gen_op (tests/support/op_gen.h), invalid ones included, stay in the mix. Lengths scale with
// VLAG_PROPERTY_SCALE (tests/support/property_scale.h).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <vector>

#include "reference/entity.h"
#include "tests/support/op_gen.h"
#include "tests/support/property_scale.h"

namespace vlag::testing {

enum class StepKind : uint8_t {
  Wake,      // enqueue a sleeping or delayed entity, then the wakeup-preemption decision
  Sleep,     // dequeue a queued entity with SLEEP; curr two times in three
  Migrate,   // a queued entity dequeued without SLEEP, or a sleeping one, out and back in
  Change,    // sched_setattr on a queued entity: dequeue without SLEEP, reweight (a > 0) or
             // set_slice (a <= 0, slice -a), enqueue
  Pick,      // pick_next_entity
  Resched,   // pick_next_entity if the runqueue asks for it or the CPU is idle
  Run,       // update_curr(a)
  Tick,      // entity_tick
  Reweight,  // reweight_entity(some entity, a)
  SetSlice,  // set_slice(some entity, a)
  Yield,     // yield_task, if something runs
  Raw,       // `raw` as it is, valid or not
};

inline const char* step_name(StepKind k) {
  constexpr const char* kNames[] = {"wake", "sleep", "migrate",  "change",    "pick",  "resched",
                                    "run",  "tick",  "reweight", "set_slice", "yield", "raw"};
  return kNames[static_cast<size_t>(k)];
}

struct Step {
  StepKind kind = StepKind::Pick;
  uint32_t choice = 0;  // which of the valid entities, modulo their number
  int64_t a = 0;        // Run: δ; Reweight: the weight; SetSlice: the slice
  Op raw{};
};

inline void showValue(const Step& s, std::ostream& os) {
  os << step_name(s.kind);
  if (s.kind == StepKind::Raw)
    os << " " << to_string(s.raw);
  else
    os << " #" << s.choice << (s.a ? " " + std::to_string(s.a) : "");
}

inline rc::Gen<Step> gen_step(int ntasks) {
  const auto choice = rc::gen::arbitrary<uint32_t>();
  const auto with = [choice](StepKind kind, rc::Gen<int64_t> a) {
    return rc::gen::apply(
        [kind](uint32_t c, int64_t x) {
          return Step{kind, c, x, {}};
        },
        choice, std::move(a));
  };
  const auto plain = [with](StepKind kind) { return with(kind, rc::gen::just<int64_t>(0)); };
  return rc::gen::weightedOneOf<Step>({
      {8, plain(StepKind::Wake)},
      {5, plain(StepKind::Sleep)},
      {1, plain(StepKind::Migrate)},
      {1,
       with(StepKind::Change, rc::gen::weightedOneOf<int64_t>(
                                  {{2, gen_weight()},
                                   {1, rc::gen::map(gen_slice(), [](int64_t r) { return -r; })}}))},
      {3, plain(StepKind::Pick)},
      {8, plain(StepKind::Resched)},
      {10, with(StepKind::Run, gen_delta())},
      {4, plain(StepKind::Tick)},
      {2, with(StepKind::Reweight, gen_weight())},
      {1, with(StepKind::SetSlice, gen_slice())},
      {1, plain(StepKind::Yield)},
      {2, rc::gen::map(gen_op(ntasks),
                       [](const Op& op) {
                         return Step{StepKind::Raw, 0, 0, op};
                       })},
  });
}

/// 1 to 600·scale steps, every task woken first so that the queue starts full — but in one case
/// in three the last task is woken only after a pick, so that its first wakeup (WF_FORK, which
/// must not make it the next buddy) comes while another task runs.
inline rc::Gen<std::vector<Step>> gen_steps(int ntasks) {
  const size_t longest = 600 * static_cast<size_t>(property_scale());
  return rc::gen::apply(
      [ntasks](std::vector<Step> tail, bool hold_one) {
        const int woken = hold_one && ntasks > 1 ? ntasks - 1 : ntasks;
        std::vector<Step> steps;
        for (int i = 0; i < woken; ++i) steps.push_back(Step{StepKind::Wake});
        if (woken < ntasks) {
          steps.push_back(Step{StepKind::Pick});
          steps.push_back(Step{StepKind::Wake});  // the only task not queued
        }
        steps.insert(steps.end(), tail.begin(), tail.end());
        return steps;
      },
      rc::gen::container<std::vector<Step>>(*rc::gen::inRange<size_t>(1, longest + 1),
                                            gen_step(ntasks)),
      rc::gen::weightedElement<bool>({{2, false}, {1, true}}));
}

/// The operations a step stands for on `rq` (a reference::BasicRunqueue of any queue) as it is
/// now; none where nothing fits (a sleep with nothing queued).
template <class Rq>
std::vector<Op> resolve(const Rq& rq, const Step& step) {
  const auto among = [&](auto wanted) {
    std::vector<EntityId> ids;
    rq.queue().for_each([&](const auto& e) {
      if (wanted(e)) ids.push_back(e.id);
    });
    return ids;
  };
  const auto one_of = [&](const std::vector<EntityId>& ids) {
    return ids[step.choice % ids.size()];
  };
  const auto curr = rq.curr();
  switch (step.kind) {
    case StepKind::Wake: {
      const auto ids = among([](const auto& e) { return e.status != Status::Queued; });
      if (ids.empty()) return {};
      const EntityId x = one_of(ids);
      return {Op{OpKind::Enqueue, x}, Op{OpKind::WakeupPreempt, x}};
    }
    case StepKind::Sleep: {
      if (curr && step.choice % 3 != 0) return {Op{OpKind::Dequeue, *curr, 0, 0, kDequeueSleep}};
      const auto ids = among([](const auto& e) { return e.status == Status::Queued; });
      if (ids.empty()) return {};
      return {Op{OpKind::Dequeue, one_of(ids), 0, 0, kDequeueSleep}};
    }
    case StepKind::Migrate: {
      const auto ids = among([](const auto& e) { return e.status != Status::Delayed; });
      if (ids.empty()) return {};
      const EntityId x = one_of(ids);
      if (rq.entity(x).status == Status::Sleeping) return {Op{OpKind::Detach, x}};
      return {Op{OpKind::Dequeue, x}, Op{OpKind::Detach, x}};
    }
    case StepKind::Change: {
      const auto ids = among([](const auto& e) { return e.status == Status::Queued; });
      if (ids.empty()) return {};
      const EntityId x = one_of(ids);
      const Op change =
          step.a > 0 ? Op{OpKind::Reweight, x, step.a} : Op{OpKind::SetSlice, x, -step.a};
      return {Op{OpKind::Dequeue, x}, change, Op{OpKind::Enqueue, x}};
    }
    case StepKind::Pick:
      return {Op{OpKind::Pick}};
    case StepKind::Resched:
      if (rq.need_resched() || !curr) return {Op{OpKind::Pick}};
      return {};
    case StepKind::Run:
      return {Op{OpKind::Run, 0, step.a}};
    case StepKind::Tick:
      return {Op{OpKind::Tick}};
    case StepKind::Reweight:
    case StepKind::SetSlice: {
      const auto ids = among([](const auto&) { return true; });
      if (ids.empty()) return {};
      return {Op{step.kind == StepKind::Reweight ? OpKind::Reweight : OpKind::SetSlice, one_of(ids),
                 step.a}};
    }
    case StepKind::Yield:
      if (!curr) return {};
      return {Op{OpKind::Yield}};
    case StepKind::Raw:
      return {step.raw};
  }
  return {};
}

}  // namespace vlag::testing
