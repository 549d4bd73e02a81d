// rapidcheck generators for SPEC.md operations over a small set of tasks: the one source of
// random operation sequences for the property tests.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "spec/ops.h"
#include "spec/weights.h"

namespace vlag::testing {

inline const std::vector<std::string>& all_presets() {
  static const std::vector<std::string> p = {"linux-6.18", "linux-6.12", "linux-6.6",
                                             "paper-1",    "paper-2",    "paper-3"};
  return p;
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
  });
}

}  // namespace vlag::testing
