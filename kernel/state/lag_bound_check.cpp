// THM-LAG-BOUND-LINUX on the kernel's own numbers (SPEC.md §6, §6.4): at every decision point —
// each level of a switch where a pick chose next's entity — every entity queued on that cfs_rq
// (the queue snapshot's tree and the pick as curr) has −(r + TICK) ≤ lag ≤ r + TICK, with
// lag = w·(V − v)/1024, w the weight as the kernel sums it and V the kernel's avg_vruntime() of
// the record's sums with the pick as curr. V is floored, so the exact average lies in [V, V + 1):
// a sample is beyond the bound only when it is so for every V' there.
//
// A decision point within the bound holds. One beyond it is a violation only where the theorem
// is promised: the preset promises it (linux-6.18 and later, SPEC.md §6), the cfs_rq holds tasks
// only (a group entity's weight follows its group's load, unrecorded), with a common slice, the
// upper half not where SPEC.md documents its failure (every slice below a tick),
// and the cfs_rq a steady system of CPU-bound entities since the capture saw it fresh
// (kernel/state/steady.h). Elsewhere it is not applicable (not promised) or — where the capture
// cannot say whether the system was steady — inconclusive.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "kernel/state/arith.h"
#include "kernel/state/check_context.h"
#include "kernel/state/smt_witness.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::kernel::state {
namespace {

using bpf::QueuedEntity;

// One entity's lag at a decision point, in the kernel's fixed point: key·w against
// (r + TICK)·1024, both in ns·weight units.
struct Sample {
  const QueuedEntity* e = nullptr;
  __int128 lag = 0;    // (V − v)·w, V floored
  __int128 bound = 0;  // (r + TICK)·1024
  bool below = false;  // lag < −bound for every V' in [V, V + 1)
  bool above = false;  // lag > bound
  double ratio() const { return std::fabs(static_cast<double>(lag)) / static_cast<double>(bound); }
  double lag_ms() const { return static_cast<double>(lag) / 1024.0 / 1e6; }
  double bound_ms() const { return static_cast<double>(bound) / 1024.0 / 1e6; }
};

Sample sample(const QueuedEntity& e, uint64_t V, int64_t tick) {
  Sample s;
  s.e = &e;
  const auto w = static_cast<__int128>(scale_down(e.weight));
  const __int128 key = key_of(V, e.vruntime);
  s.lag = key * w;
  s.bound = (static_cast<__int128>(e.slice) + tick) * kNice0Weight;
  s.below = (key + 1) * w < -s.bound;
  s.above = s.lag > s.bound;
  return s;
}

std::string describe(const CheckContext& c, const bpf::StateRecord& r, const Sample& s) {
  std::string comm;
  for (const auto& t : r.tasks)
    if (t.pid == s.e->pid) comm = t.comm;
  if (const EntityView* v = c.model.entity(s.e->id); comm.empty() && v) comm = v->comm;
  const std::string who = s.e->is_group  ? "group entity " + hex(s.e->id)
                          : comm.empty() ? "pid " + std::to_string(s.e->pid)
                                         : fmt::format("{}:{}", comm, s.e->pid);
  return fmt::format("{} lag {:.3f} ms, bound {:.3f} ms ({:.2f} of it) at {}.{:09} s cpu{}", who,
                     s.lag_ms(), s.bound_ms(), s.ratio(), r.time_ns / 1'000'000'000,
                     r.time_ns % 1'000'000'000, r.cpu);
}

void keep_worst(double& ratio, std::string& text, const CheckContext& c, const bpf::StateRecord& r,
                const Sample& s) {
  if (!text.empty() && s.ratio() <= ratio) return;
  ratio = s.ratio();
  text = describe(c, r, s);
}

// Why a decision point beyond the bound is not a violation, or "" where the theorem is
// promised there and the system is steady; `verdict` says which of n/a and inconclusive.
std::string excused(const CheckContext& c, const std::vector<Sample>& samples, bool only_above,
                    const Steadiness& steady, Verdict& verdict) {
  verdict = Verdict::NotApplicable;
  const Preset& preset = c.kernel.params.preset;
  if (!promised(ids::kThmLagBoundLinux, preset))
    return fmt::format("not promised by the preset {} (SPEC.md 6)", preset.name);
  bool groups = false, one_slice = true;
  for (const Sample& s : samples) {
    groups = groups || s.e->is_group;
    one_slice = one_slice && s.e->slice == samples[0].e->slice;
  }
  if (groups)
    return "group entities in the cfs_rq (reweighted with their group's load): not a steady "
           "system";
  if (!one_slice) return "mixed slices: not promised (SPEC.md 6)";
  if (only_above && static_cast<int64_t>(samples[0].e->slice) < tick_nsec(c.kernel.hz))
    return "the upper half with a slice below a tick: not promised (SPEC.md 6)";
  if (steady.state == Steadiness::State::NotSteady)
    return "not a steady system of CPU-bound entities: " + steady.why;
  verdict = Verdict::Inconclusive;
  if (steady.state == Steadiness::State::Unknown) return steady.why;
  return "";
}

}  // namespace

void judge_lag_bound(CheckContext& c, const bpf::StateRecord& r) {
  const bpf::TaskState& next = r.tasks[1];
  if (!next.fair) return;
  std::set<uint64_t> kept;
  for (const auto& e : r.tasks[0].chain) kept.insert(e.id);
  Tally& tally = c.report.tally(ids::kThmLagBoundLinux);
  Figures& f = c.report.figures;
  for (size_t level = 0; level < next.chain.size(); ++level) {
    const bpf::EntityState& picked = next.chain[level];
    if (kept.contains(picked.id)) break;  // from here up the pick kept prev's entities
    const bpf::CfsRqState& q = picked.cfs_rq;
    const bpf::QueueSnapshot* snapshot = snapshot_at(r, level);
    if (q.curr != picked.id) {
      tally.add(inconclusive("the record shows another curr on the pick's cfs_rq"));
      continue;
    }
    if (std::string why = snapshot_missing(r, snapshot); !why.empty()) {
      tally.add(inconclusive(why));
      continue;
    }
    if (!c.kernel.known) {
      tally.add(inconclusive(c.kernel.unknown_why));
      continue;
    }
    const uint64_t V = avg_vruntime(with_curr(q.zero_vruntime, q.sum_w_vruntime, q.sum_weight, true,
                                              picked.vruntime, picked.weight));
    const int64_t tick = tick_nsec(c.kernel.hz);
    std::vector<const QueuedEntity*> queued{&picked};
    for (const auto& e : snapshot->entities) queued.push_back(&e);
    const Steadiness steady = c.steady.at_decision(q.id, StateModel::rq_of(r), queued, c.model);
    std::vector<Sample> samples;
    const Sample* worst = nullptr;  // the farthest beyond the bound
    for (const QueuedEntity* e : queued) samples.push_back(sample(*e, V, tick));
    bool only_above = true;
    for (const Sample& s : samples) {
      keep_worst(f.lag_bound_ratio, f.lag_bound_worst, c, r, s);
      if (steady.state == Steadiness::State::Steady)
        keep_worst(f.steady_lag_bound_ratio, f.steady_lag_bound_worst, c, r, s);
      if (!s.below && !s.above) continue;
      only_above = only_above && !s.below;
      if (!worst || s.ratio() > worst->ratio()) worst = &s;
    }
    if (steady.state == Steadiness::State::Steady) ++f.steady_decisions;
    if (!worst) {
      tally.add(held());
      continue;
    }
    Verdict verdict = Verdict::Violated;
    if (std::string why = excused(c, samples, only_above, steady, verdict); !why.empty()) {
      tally.add({verdict, why});
      continue;
    }
    Witness w = witness_at(r);
    w.lines.push_back(fmt::format("level {} of {}:{}", level, next.comm, next.pid));
    w.lines.push_back(cfs_rq_line(q));
    w.lines.push_back(fmt::format("V = {} (from the sums with the pick as curr)", V));
    for (const Sample& s : samples)
      w.lines.push_back(entity_line(*s.e, s.e == &picked ? "picked" : "tree") +
                        fmt::format(" lag {:.3f} ms", s.lag_ms()));
    w.smt = lag_bound_smt(q, picked, *worst->e, tick, worst->below);
    tally.add(violated(fmt::format(
                  "{} in a steady system: lag {:.3f} ms beyond {}{:.3f} ms",
                  worst->e->is_group ? "a group entity" : "pid " + std::to_string(worst->e->pid),
                  worst->lag_ms(), worst->below ? "-" : "", worst->bound_ms())),
              std::move(w));
  }
}

}  // namespace vlag::kernel::state
