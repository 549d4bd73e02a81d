// rapidcheck generators for SPEC.md operations over a small set of tasks: the one source of
// random operation sequences for the property tests.
#pragma once

#include <rapidcheck.h>

#include <ostream>
#include <string>
#include <vector>

#include "spec/features.h"
#include "spec/ops.h"
#include "spec/weights.h"

namespace vlag {
/// How rapidcheck prints an operation in a counterexample.
inline void showValue(const Op& op, std::ostream& os) { os << to_string(op); }
}  // namespace vlag

namespace vlag::testing {

inline const std::vector<std::string>& all_presets() {
  static const std::vector<std::string> p = presets_of();
  return p;
}

/// A preset, the feature flags switched on top of it, and the tasks 1..n created in it (weight,
/// slice).
struct Setup {
  std::string preset;
  std::string features;  // overrides (spec/features.h): "-RUN_TO_PARITY,NEXT_BUDDY"; "" none
  std::vector<std::pair<int64_t, int64_t>> tasks;

  Preset preset_value() const {
    Preset p = preset_by_name(preset);
    apply_feature_overrides(p, features);
    return p;
  }
  Params params(int hz = 250) const { return make_params(preset_value(), hz); }
  /// "linux-6.18" or "linux-6.18 [-RUN_TO_PARITY,NEXT_BUDDY]", for failure messages.
  std::string name() const { return features.empty() ? preset : preset + " [" + features + "]"; }
};

inline void showValue(const Setup& s, std::ostream& os) {
  os << s.name() << ", tasks (weight, slice):";
  for (const auto& [w, r] : s.tasks) os << " (" << w << ", " << r << ")";
}

rc::Gen<int64_t> gen_weight();
rc::Gen<int64_t> gen_slice();

/// The flags a preset runs with (SPEC.md §5: any flag on or off on top of any preset): its own
/// half the time, otherwise each flag flipped with probability 1/3, so that every combination
/// a preset can take comes up.
inline rc::Gen<std::string> gen_features(const std::string& preset) {
  const Preset p = preset_by_name(preset);
  return rc::gen::weightedOneOf<std::string>(
      {{1, rc::gen::just(std::string())},
       {1, rc::gen::map(rc::gen::container<std::vector<int>>(
                            kFeatureCount, rc::gen::weightedElement<int>({{2, 0}, {1, 1}})),
                        [p](const std::vector<int>& flip) {
                          std::string out;
                          for (size_t i = 0; i < kFeatureCount; ++i) {
                            if (!flip[i]) continue;
                            const auto f = static_cast<Feature>(i);
                            out += (out.empty() ? "" : ",") + std::string(p.has(f) ? "-" : "") +
                                   std::string(feature_name(f));
                          }
                          return out;
                        })}});
}

/// The tasks of a setup, biased to the boundaries: usually 1..max_tasks tasks of any weight and
/// slice; sometimes one lone task; sometimes a crowd of 16–64 nice-0 tasks beside one of the
/// least weight (2), where one entity's share of W is 2^-15 and the sums are at their largest.
inline rc::Gen<std::vector<std::pair<int64_t, int64_t>>> gen_tasks(size_t max_tasks) {
  using Tasks = std::vector<std::pair<int64_t, int64_t>>;
  return rc::gen::weightedOneOf<Tasks>(
      {{6, rc::gen::mapcat(rc::gen::inRange<size_t>(1, max_tasks + 1),
                           [](size_t n) {
                             return rc::gen::container<Tasks>(
                                 n, rc::gen::pair(gen_weight(), gen_slice()));
                           })},
       {1, rc::gen::container<Tasks>(1, rc::gen::pair(gen_weight(), gen_slice()))},
       {1, rc::gen::map(rc::gen::pair(rc::gen::inRange<size_t>(16, 65), gen_slice()),
                        [](const std::pair<size_t, int64_t>& crowd) {
                          Tasks t{{kMinWeight, crowd.second}};
                          t.resize(crowd.first + 1, {kNice0Weight, 0});
                          return t;
                        })}});
}

inline rc::Gen<Setup> gen_setup(const std::vector<std::string>& presets, size_t max_tasks) {
  return rc::gen::mapcat(rc::gen::elementOf(presets), [max_tasks](const std::string& preset) {
    return rc::gen::apply(
        [preset](std::string features, std::vector<std::pair<int64_t, int64_t>> tasks) {
          return Setup{preset, std::move(features), std::move(tasks)};
        },
        gen_features(preset), gen_tasks(max_tasks));
  });
}

/// Creates the setup's tasks in any runqueue.
template <class Rq>
void create_tasks(Rq& rq, const Setup& s) {
  for (size_t i = 0; i < s.tasks.size(); ++i)
    rq.create(static_cast<TaskId>(i + 1), s.tasks[i].first, s.tasks[i].second);
}

// Weights, slices and run lengths, each with its boundaries in the mix: the least and greatest
// weight, the shortest and longest custom slice, runs of 1 ns and of whole seconds.
inline rc::Gen<int64_t> gen_weight() {
  return rc::gen::weightedOneOf<int64_t>(
      {{8, rc::gen::map(rc::gen::inRange(-20, 20), [](int n) { return nice_to_weight(n); })},
       {2, rc::gen::inRange<int64_t>(kMinWeight, kMaxWeight + 1)},
       {1, rc::gen::element(kMinWeight + 0, kMinWeight + 1, kMaxWeight + 0)}});
}

inline rc::Gen<int64_t> gen_slice() {
  return rc::gen::weightedOneOf<int64_t>(
      {{6, rc::gen::just<int64_t>(0)},
       {4, rc::gen::inRange<int64_t>(kMinCustomSliceNs, 3'000'000)},
       {2, rc::gen::inRange<int64_t>(kMinCustomSliceNs, kMaxCustomSliceNs + 1)},
       {1, rc::gen::element(kMinCustomSliceNs + 0, kMaxCustomSliceNs + 0)}});
}

inline rc::Gen<int64_t> gen_delta() {
  return rc::gen::weightedOneOf<int64_t>(
      {{12, rc::gen::inRange<int64_t>(0, 1'000'000)},
       {6, rc::gen::inRange<int64_t>(0, 10'000'000)},
       {2, rc::gen::element<int64_t>(1, 4'000'000)},
       {1, rc::gen::inRange<int64_t>(1'000'000'000, int64_t{1} << 33)}});
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
