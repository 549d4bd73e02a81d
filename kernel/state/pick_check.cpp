// At a switch, each level where next's chain has an entity prev's does not (the levels where a
// pick chose it; above them the two share entities the pick kept as curr): the pick is eligible
// (INV-PICK-ELIGIBLE) and, against the queue snapshot of that cfs_rq's tree, of the earliest
// deadline among the eligible entities unless it was the next buddy (INV-PICK-EDF); the
// snapshot sums to the kernel's sum_weight and sum_w_vruntime (INV-KERNEL-SUMS); the products
// and sums fit the kernel's s64 (INV-S64-MARGIN); a delayed entity is never picked (INV-DELAY).
//
// The record is taken after put_prev_entity() put prev back in the tree and set_next_entity()
// took the pick out, so the snapshot plus the pick as curr is the set the pick chose from, with
// the V it chose against (kernel/bpf/README.md, "What each tracepoint sees").
#include <fmt/format.h>

#include <set>

#include "kernel/state/arith.h"
#include "kernel/state/check_context.h"
#include "kernel/state/smt_witness.h"
#include "rules/invariants.h"
#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

using bpf::CfsRqState;
using bpf::EntityState;
using bpf::QueuedEntity;
using bpf::QueueSnapshot;
using bpf::StateRecord;

// s64 holds a magnitude of at most 63 bits.
constexpr int kS64Bits = 63;

struct Pick {
  const StateRecord& r;
  const EntityState& picked;
  size_t level;
  Average avg;  // the cfs_rq's sums with the pick added as curr
};

Witness pick_witness(const Pick& p, const QueueSnapshot* q) {
  Witness w = witness_at(p.r);
  w.lines.push_back(fmt::format("level {} of {}:{}", p.level, p.r.tasks[1].comm, p.r.tasks[1].pid));
  w.lines.push_back(cfs_rq_line(p.picked.cfs_rq));
  w.lines.push_back(
      fmt::format("V = {} (from the sums with the pick as curr)", avg_vruntime(p.avg)));
  w.lines.push_back(entity_line(p.picked, "picked"));
  if (q)
    for (const auto& e : q->entities)
      w.lines.push_back(entity_line(e, eligible(p.avg, e.vruntime) ? "tree (eligible)" : "tree"));
  return w;
}

// The next buddy of the pick's cfs_rq just before the pick, as far as the capture shows it:
// nullopt when it cannot say. set_next_entity() clears the buddy it picks, so a cfs_rq whose next
// is clear after the pick had either none or the pick itself; the last record of the cfs_rq says
// which (a buddy stays set until it is picked or dequeued, each of which a record shows).
std::optional<uint64_t> buddy_before(const CheckContext& c, const Pick& p, std::string& why) {
  const CfsRqState& q = p.picked.cfs_rq;
  if (q.next != 0) return q.next;
  const CfsRqView* seen = c.model.cfs_rq(q.id);
  if (!seen) {
    why = "the next buddy before the pick is unknown: the cfs_rq's first record";
    return std::nullopt;
  }
  if (std::string stale = c.model.stale(*seen); !stale.empty()) {
    why = "the next buddy before the pick is unknown: " + stale;
    return std::nullopt;
  }
  if (seen->last.next != 0 && seen->last.next != p.picked.id) {
    why = "the next buddy changed without a record";
    return std::nullopt;
  }
  return seen->last.next;
}

Outcome judge_edf(const CheckContext& c, const Pick& p, const QueueSnapshot* q, Witness& w) {
  if (std::string why = snapshot_missing(p.r, q); !why.empty()) return inconclusive(why);
  const QueuedEntity* earlier = nullptr;
  for (const auto& e : q->entities)
    if (eligible(p.avg, e.vruntime) && before(e.deadline, p.picked.deadline) &&
        (!earlier || before(e.deadline, earlier->deadline)))
      earlier = &e;
  if (!earlier) return held();
  if (!c.kernel.known) return inconclusive(c.kernel.unknown_why);
  std::string why;
  const std::optional<uint64_t> buddy = buddy_before(c, p, why);
  if (!buddy) return inconclusive(why);
  // The pick is a new curr: curr's protection cannot explain it, only the buddy can.
  const auto id = [](uint64_t se) { return static_cast<TaskId>(se); };
  if (rules::pick_exempt(c.kernel.params.preset, id(p.picked.id), std::nullopt, false,
                         *buddy ? std::optional<TaskId>(id(*buddy)) : std::nullopt)) {
    ++c.report.figures.picks_as_buddy;
    return held();
  }
  w = pick_witness(p, q);
  w.smt = pick_edf_smt(p.picked.cfs_rq, p.picked, *earlier);
  w.lines.push_back(entity_line(*earlier, "earlier eligible deadline"));
  w.lines.push_back("next buddy before the pick: " + (*buddy ? hex(*buddy) : "none"));
  return violated(fmt::format("picked deadline {} while an eligible entity had deadline {}",
                              p.picked.deadline, earlier->deadline));
}

Outcome judge_sums(const Pick& p, const QueueSnapshot* q, Figures& f, Witness& w) {
  if (std::string why = snapshot_missing(p.r, q); !why.empty()) return inconclusive(why);
  const CfsRqState& rq = p.picked.cfs_rq;
  uint64_t weight = 0;
  uint64_t weighted = 0;  // the kernel's s64 sum, wrapping: unsigned here
  mpq_class exact_sum = 0, exact_load = 0;
  const auto take = [&](const QueuedEntity& e) {
    const int64_t key = key_of(e.vruntime, rq.zero_vruntime);
    exact_sum += mpq_class(static_cast<long>(key)) * static_cast<unsigned long>(e.weight);
    exact_load += static_cast<unsigned long>(e.weight);
  };
  for (const auto& e : q->entities) {
    const uint64_t sw = scale_down(e.weight);
    const int64_t key = key_of(e.vruntime, rq.zero_vruntime);
    weight += sw;
    weighted += static_cast<uint64_t>(key) * sw;
    f.key_weight_bits =
        std::max(f.key_weight_bits, magnitude_bits(static_cast<__int128>(key) * sw));
    take(e);
  }
  take(p.picked);
  // V from the kernel's scaled weights against the weighted average of the full ones.
  const mpq_class exact_V = exact_sum / exact_load;
  const mpq_class kernel_V =
      mpq_class(static_cast<long>(key_of(avg_vruntime(p.avg), rq.zero_vruntime)));
  f.v_scaling_error_ns =
      std::max(f.v_scaling_error_ns, std::abs(mpq_class(exact_V - kernel_V).get_d()));
  std::string wrong;
  if (weight != rq.sum_weight)
    wrong = fmt::format("the tree's weights sum to {}, sum_weight is {}", weight, rq.sum_weight);
  else if (static_cast<int64_t>(weighted) != rq.sum_w_vruntime)
    wrong = fmt::format("the tree's keys times weights sum to {}, sum_w_vruntime is {}",
                        static_cast<int64_t>(weighted), rq.sum_w_vruntime);
  else if (q->entities.size() + 1 != rq.nr_queued)
    wrong = fmt::format("{} entities in the tree and curr, nr_queued is {}", q->entities.size() + 1,
                        rq.nr_queued);
  if (wrong.empty()) return held();
  w = pick_witness(p, q);
  w.smt = kernel_sums_smt(rq, p.picked, q->entities);
  return violated(wrong);
}

Outcome judge_margin(const Pick& p, Figures& f, Witness& w) {
  const int64_t key = key_of(p.picked.vruntime, p.avg.v0);
  const int eligibility = magnitude_bits(static_cast<__int128>(key) * p.avg.load);
  const int sum = magnitude_bits(p.avg.avg);
  f.eligibility_bits = std::max(f.eligibility_bits, eligibility);
  f.sum_bits = std::max(f.sum_bits, sum);
  if (eligibility <= kS64Bits && sum <= kS64Bits) return held();
  w = pick_witness(p, nullptr);
  w.smt = eligibility > kS64Bits ? s64_smt("key*load", key, p.avg.load)
                                 : s64_smt("avg_vruntime's sum", p.avg.avg, 1);
  return violated(
      fmt::format("key*load takes {} bits and the sum {}: beyond s64", eligibility, sum));
}

// Prev's entity at the pick's cfs_rq, if prev was queued there: the curr the pick replaced.
const EntityState* replaced_curr(const StateRecord& r, const Pick& p) {
  for (const auto& e : r.tasks[0].chain)
    if (e.cfs_rq.id == p.picked.cfs_rq.id && e.on_rq) return &e;
  return nullptr;
}

void note_protection(CheckContext& c, const Pick& p) {
  const EntityState* prev = replaced_curr(p.r, p);
  if (!prev || prev->sched_delayed || !c.kernel.has(Feature::RUN_TO_PARITY)) return;
  if (!eligible(p.avg, prev->vruntime) || !before(prev->vruntime, prev->vprot)) return;
  Figures& f = c.report.figures;
  if (++f.protection_overridden <= Figures::kMaxExamples)
    f.protection_examples.push_back(fmt::format(
        "{}.{:09} s cpu{}: {}:{} replaced {}:{} with v {} < vprot {}", p.r.time_ns / 1'000'000'000,
        p.r.time_ns % 1'000'000'000, p.r.cpu, p.r.tasks[1].comm, p.r.tasks[1].pid,
        p.r.tasks[0].comm, p.r.tasks[0].pid, prev->vruntime, prev->vprot));
}

}  // namespace

void judge_picks(CheckContext& c, const StateRecord& r) {
  const bpf::TaskState& next = r.tasks[1];
  if (!next.fair) return;
  std::set<uint64_t> kept;
  for (const auto& e : r.tasks[0].chain) kept.insert(e.id);
  Figures& f = c.report.figures;
  for (size_t level = 0; level < next.chain.size(); ++level) {
    const EntityState& picked = next.chain[level];
    if (kept.contains(picked.id)) break;  // from here up the pick kept prev's entities
    const CfsRqState& q = picked.cfs_rq;
    const Pick p{r, picked, level,
                 with_curr(q.zero_vruntime, q.sum_w_vruntime, q.sum_weight, true, picked.vruntime,
                           picked.weight)};
    const QueueSnapshot* snapshot = snapshot_at(r, level);
    Witness w;
    if (q.curr != picked.id) {
      c.report.tally(ids::kInvPickEligible)
          .add(inconclusive("the record shows another curr on the pick's cfs_rq"));
      continue;
    }
    Outcome eligible_pick = eligible(p.avg, picked.vruntime)
                                ? held()
                                : violated(fmt::format("picked with v {} > V {}", picked.vruntime,
                                                       avg_vruntime(p.avg)));
    if (eligible_pick.verdict == Verdict::Violated) {
      w = pick_witness(p, snapshot);
      w.smt = pick_ineligible_smt(q, picked);
    }
    c.report.tally(ids::kInvPickEligible).add(eligible_pick, w);
    // Each outcome before its witness is passed: the witness is filled in by the judge.
    Witness edf_w;
    const Outcome edf = judge_edf(c, p, snapshot, edf_w);
    c.report.tally(ids::kInvPickEdf).add(edf, std::move(edf_w));
    Witness sums_w;
    const Outcome sums = judge_sums(p, snapshot, f, sums_w);
    c.report.tally(ids::kInvKernelSums).add(sums, std::move(sums_w));
    Witness margin_w;
    const Outcome margin = judge_margin(p, f, margin_w);
    c.report.tally(ids::kInvS64Margin).add(margin, std::move(margin_w));
    if (picked.sched_delayed) {
      Witness delay_w = pick_witness(p, nullptr);
      delay_w.smt = delayed_pick_smt();
      c.report.tally(ids::kInvDelay)
          .add(violated("a delayed entity was picked"), std::move(delay_w));
    } else {
      c.report.tally(ids::kInvDelay).add(held());
    }
    note_protection(c, p);
  }
  if (next.chain_truncated)
    c.report.tally(ids::kInvPickEligible)
        .add(inconclusive("next's chain is deeper than a record keeps: upper picks not seen"));
}

}  // namespace vlag::kernel::state
