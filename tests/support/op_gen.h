// rapidcheck generators for SPEC.md operations over a small set of tasks: the one source of
// random operation sequences for the property tests.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "spec/features.h"
#include "spec/ops.h"
#include "spec/weights.h"

namespace vlag::testing {

inline const std::vector<std::string>& all_presets() {
  static const std::vector<std::string> p = presets_of();
  return p;
}

/// A preset and the tasks 1..n created in it (weight, slice).
struct Setup {
  std::string preset;
  std::vector<std::pair<int64_t, int64_t>> tasks;
};

rc::Gen<int64_t> gen_weight();
rc::Gen<int64_t> gen_slice();

inline rc::Gen<Setup> gen_setup(const std::vector<std::string>& presets, size_t max_tasks) {
  return rc::gen::apply(
      [](std::string preset, std::vector<std::pair<int64_t, int64_t>> tasks) {
        return Setup{std::move(preset), std::move(tasks)};
      },
      rc::gen::elementOf(presets),
      rc::gen::container<std::vector<std::pair<int64_t, int64_t>>>(
          *rc::gen::inRange<size_t>(1, max_tasks + 1), rc::gen::pair(gen_weight(), gen_slice())));
}

/// Creates the setup's tasks in any runqueue.
template <class Rq>
void create_tasks(Rq& rq, const Setup& s) {
  for (size_t i = 0; i < s.tasks.size(); ++i)
    rq.create(static_cast<TaskId>(i + 1), s.tasks[i].first, s.tasks[i].second);
}

inline rc::Gen<int64_t> gen_weight() {
  return rc::gen::weightedOneOf<int64_t>(
      {{4, rc::gen::map(rc::gen::inRange(-20, 20), [](int n) { return nice_to_weight(n); })},
       {1, rc::gen::inRange<int64_t>(kMinWeight, kMaxWeight + 1)}});
}

inline rc::Gen<int64_t> gen_slice() {
  return rc::gen::weightedOneOf<int64_t>(
      {{3, rc::gen::just<int64_t>(0)},
       {2, rc::gen::inRange<int64_t>(kMinCustomSliceNs, 3'000'000)},
       {1, rc::gen::inRange<int64_t>(kMinCustomSliceNs, kMaxCustomSliceNs + 1)}});
}

inline rc::Gen<int64_t> gen_delta() {
  return rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 1'000'000)},
                                          {3, rc::gen::inRange<int64_t>(0, 10'000'000)},
                                          {1, rc::gen::element<int64_t>(1, 4'000'000)}});
}

/// One operation on tasks 1..ntasks; invalid ones (dequeue of a sleeper, …) are part of the mix
/// on purpose: the model must reject them and stay unchanged.
inline rc::Gen<Op> gen_op(int ntasks) {
  const auto id = rc::gen::inRange<TaskId>(1, ntasks + 1);
  const auto with_id = [id](OpKind kind, uint32_t flags = 0) {
    return rc::gen::map(id, [kind, flags](TaskId i) { return Op{kind, i, 0, 0, flags}; });
  };
  return rc::gen::weightedOneOf<Op>({
      {6, with_id(OpKind::Enqueue)},
      {3, with_id(OpKind::Dequeue, kDequeueSleep)},
      {1, with_id(OpKind::Dequeue)},
      {6, rc::gen::just(Op{OpKind::Pick})},
      {8, rc::gen::map(gen_delta(),
                       [](int64_t d) {
                         return Op{OpKind::Run, 0, d};
                       })},
      {2, rc::gen::just(Op{OpKind::Tick})},
      {2, rc::gen::apply(
              [](TaskId i, int64_t w) {
                return Op{OpKind::Reweight, i, w};
              },
              id, gen_weight())},
      {1, rc::gen::apply(
              [](TaskId i, int64_t s) {
                return Op{OpKind::SetSlice, i, s};
              },
              id, gen_slice())},
      {1, rc::gen::just(Op{OpKind::Yield})},
      {3, with_id(OpKind::WakeupPreempt)},
      {1, with_id(OpKind::Detach)},  // with reference/round_trip.h: detach, then attach back
  });
}

/// A long mixed sequence for the differential properties: every task enqueued first (so trees
/// are populated from the start), then up to 400 operations of gen_op.
inline rc::Gen<std::vector<Op>> gen_busy_ops(int ntasks) {
  return rc::gen::map(
      rc::gen::container<std::vector<Op>>(*rc::gen::inRange<size_t>(1, 401), gen_op(ntasks)),
      [ntasks](std::vector<Op> tail) {
        std::vector<Op> ops;
        for (TaskId i = 1; i <= ntasks; ++i) ops.push_back(Op{OpKind::Enqueue, i});
        ops.insert(ops.end(), tail.begin(), tail.end());
        return ops;
      });
}

}  // namespace vlag::testing
