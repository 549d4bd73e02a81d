// The lag a task keeps across a sleep, on both ends.
//
// At a switch whose prev left the runqueue (dequeued to sleep): the lag dequeue_entity() saved in
// vlag lies within the clamp (INV-LAG-CLAMP) — and, a figure, equals entity_lag()'s own result
// V − v clamped, V the average when prev was dequeued: the record's sums plus the pick at that
// cfs_rq plus prev as curr. At a switch whose prev stayed queued as delayed: it was not eligible
// then (INV-DELAY).
//
// At a wakeup that placed the wakee (it had left the runqueue, not delayed, not running): its
// vlag is the one its dequeue saved (scaled by the weights if it was reweighted asleep), and the
// lag it has after joining, V − v with V over the queue it joined, is that saved lag within the
// rounding of the kernel's arithmetic (INV-PLACE-LAG; SPEC.md §6.4); a figure says whether v and
// d are place_entity()'s own formula bit for bit. V before the wakee joined needs the numbers of
// the cfs_rq's curr at that moment: the wakeup record's own reading of curr where the capture has
// it (any curr, a group entity too), else a task whose update_curr() the capture recorded at the
// same clock; and whether the wakeup placed the wakee at all needs its state before: its entity at
// sched_waking where the record carries it, else the model's last record of it.
#include <fmt/format.h>

#include "kernel/state/arith.h"
#include "kernel/state/check_context.h"
#include "kernel/state/smt_witness.h"
#include "rules/invariants.h"
#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

using bpf::CfsRqState;
using bpf::EntityState;
using bpf::StateRecord;
using rules::Exact;

constexpr int kS64Bits = 63;

void add_entity(Average& a, const bpf::QueuedEntity& e) {
  const uint64_t w = scale_down(e.weight);
  a.avg += static_cast<__int128>(key_of(e.vruntime, a.v0)) * w;
  a.load += w;
}

std::string at_time(const StateRecord& r) {
  return fmt::format("{}.{:09} s cpu{}", r.time_ns / 1'000'000'000, r.time_ns % 1'000'000'000,
                     StateModel::rq_of(r));
}

// Prev's cfs_rq when prev was dequeued, from the switch record: its sums (prev out of them),
// the pick at that cfs_rq (if next's chain passes through it) back in, and the tree's entities
// where a queue snapshot shows them.
struct Dequeue {
  std::optional<Average> avg;  // without prev; nullopt: not known (`why`)
  std::string why;
  uint64_t max_slice = 0;  // the largest slice of the cfs_rq's entities then, prev included
  bool max_slice_known = false;
};

Dequeue dequeue_scene(const CheckContext& c, const StateRecord& r, const EntityState& prev) {
  const CfsRqState& q = prev.cfs_rq;
  Dequeue d;
  d.max_slice = prev.slice;
  Average a{q.zero_vruntime, q.sum_w_vruntime, static_cast<__int128>(q.sum_weight)};
  const EntityState* picked = nullptr;
  size_t level = 0;
  if (r.tasks[1].fair)
    for (; level < r.tasks[1].chain.size(); ++level)
      if (r.tasks[1].chain[level].cfs_rq.id == q.id) {
        picked = &r.tasks[1].chain[level];
        break;
      }
  const bpf::QueueSnapshot* snapshot = picked ? snapshot_at(r, level) : nullptr;
  if (picked) {
    add_entity(a, *picked);
    d.max_slice = std::max(d.max_slice, picked->slice);
  }
  if (snapshot && !snapshot->truncated) {
    for (const auto& e : snapshot->entities) d.max_slice = std::max(d.max_slice, e.slice);
    d.max_slice_known = true;
  } else {
    // Without a snapshot the tree is known only when it is empty.
    d.max_slice_known = !picked && q.nr_queued == 0;
  }
  if (!picked && q.curr != 0) {
    d.why = "prev's cfs_rq shows a curr the switch does not explain";
    return d;
  }
  if (c.model.arrival_since_local(StateModel::rq_of(r))) {
    d.why = "an entity arrived on the runqueue between prev's dequeue and the pick";
    return d;
  }
  // A group entity reweighted since its last record (update_cfs_group() runs at enqueues,
  // dequeues and ticks of its group, unrecorded) may have moved V after prev's dequeue.
  const auto reweighted = [&](const bpf::QueuedEntity& e) {
    const EntityView* v = e.is_group ? c.model.entity(e.id) : nullptr;
    return v && v->last.weight != e.weight;
  };
  bool moved = picked && reweighted(*picked);
  if (snapshot)
    for (const auto& e : snapshot->entities) moved = moved || reweighted(e);
  if (moved) {
    d.why = "a group entity was reweighted since its last record (update_cfs_group, unrecorded)";
    return d;
  }
  // A delayed entity the pick chose left the cfs_rq before the final pick, unrecorded: V then
  // moved. The model knows the delayed entities its records showed.
  if (picked)
    if (const CfsRqView* view = c.model.cfs_rq(q.id))
      for (const uint64_t id : view->queued) {
        const EntityView* e = c.model.entity(id);
        if (!e || !e->last.sched_delayed || id == prev.id) continue;
        bool still = false;
        if (snapshot)
          for (const auto& s : snapshot->entities) still = still || s.id == id;
        if (!still) {
          d.why = snapshot ? "a delayed entity left the cfs_rq at the pick"
                           : "a delayed entity may have left the cfs_rq at the pick";
          return d;
        }
      }
  d.avg = a;
  return d;
}

void judge_saved_lag(CheckContext& c, const StateRecord& r, const EntityState& e) {
  Tally& tally = c.report.tally(ids::kInvLagClamp);
  if (!c.kernel.known) {
    tally.add(inconclusive(c.kernel.unknown_why));
    return;
  }
  const Dequeue d = dequeue_scene(c, r, e);
  const bool rule = c.kernel.lag_clamp_max_slice;
  const int64_t span = lag_clamp_span(rule, e.slice, d.max_slice, c.kernel.hz);
  const auto limit = static_cast<int64_t>(calc_delta_fair(span, e.weight, true));
  if (e.vlag >= -limit && e.vlag <= limit) {
    tally.add(held());
  } else if (rule && !d.max_slice_known) {
    tally.add(inconclusive("the cfs_rq's largest slice is not known (no queue snapshot)"));
  } else {
    Witness wit = witness_at(r);
    wit.smt = saved_lag_smt(e, span, limit);
    wit.lines.push_back(cfs_rq_line(e.cfs_rq));
    wit.lines.push_back(entity_line(e, "prev, dequeued"));
    wit.lines.push_back(fmt::format("clamp limit calc_delta_fair({}) = {} ({})", span, limit,
                                    rule ? "largest slice + TICK" : "max(2 slice, TICK)"));
    tally.add(violated(fmt::format("saved lag {} beyond the clamp {}", e.vlag, limit)),
              std::move(wit));
  }
  // A figure: the saved lag against entity_lag() on the V of the dequeue.
  if (!d.avg || (rule && !d.max_slice_known)) return;
  Average a = *d.avg;
  add_entity(a, e);
  const int64_t expect = clamp_lag(avg_vruntime(a), e.vruntime, limit);
  Figures& f = c.report.figures;
  if (expect == e.vlag) {
    ++f.saved_lags_exact;
  } else if (++f.saved_lags_inexact <= Figures::kMaxExamples) {
    f.saved_lag_examples.push_back(fmt::format("{}: {}:{} saved vlag {}, entity_lag gives {}",
                                               at_time(r), r.tasks[0].comm, r.tasks[0].pid, e.vlag,
                                               expect));
  }
}

void judge_became_delayed(CheckContext& c, const StateRecord& r, const EntityState& e) {
  Tally& tally = c.report.tally(ids::kInvDelay);
  const Dequeue d = dequeue_scene(c, r, e);
  const std::optional<Average>& a = d.avg;  // prev went back into the tree: in the sums
  if (!a) {
    tally.add(inconclusive(d.why));
  } else if (!eligible(*a, e.vruntime)) {
    tally.add(held());
  } else {
    Witness w = witness_at(r);
    w.smt = became_delayed_smt(*a, e);
    w.lines.push_back(cfs_rq_line(e.cfs_rq));
    w.lines.push_back(entity_line(e, "prev, delayed"));
    w.lines.push_back(fmt::format("V at the dequeue = {}", avg_vruntime(*a)));
    tally.add(violated("delayed while eligible"), std::move(w));
  }
}

// The cfs_rq's curr when the wakee was placed, if the capture knows its numbers then.
struct CurrAtPlacement {
  bool present = false;
  uint64_t vruntime = 0, weight = 0;
};

std::optional<CurrAtPlacement> curr_at(const CheckContext& c, const StateRecord& r,
                                       const CfsRqState& q, std::string& why) {
  if (q.curr == 0) return CurrAtPlacement{};
  if (const auto& currs = r.tasks[0].level_curr; !currs.empty()) {
    // The record's own reading of curr is place_entity()'s: the wakeup charges curr at the
    // wakee's level before the placement, and at that level nothing after it moves curr (the
    // update_curr() of wakeup_preempt runs at the same clock, the group reweights are above).
    if (currs[0].id != q.curr) {
      why = "the record's curr entity is not its cfs_rq's curr";
      return std::nullopt;
    }
    return CurrAtPlacement{currs[0].on_rq, currs[0].vruntime, currs[0].weight};
  }
  const EntityView* v = c.model.entity(q.curr);
  if (!v) {
    why = "the cfs_rq's curr was not seen before";
    return std::nullopt;
  }
  if (std::string stale = c.model.stale(*v); !stale.empty()) {
    why = stale;
    return std::nullopt;
  }
  if (v->pid == 0) {
    why = "the cfs_rq's curr is a group entity: its vruntime moves without records";
    return std::nullopt;
  }
  if (!v->curr || v->clock_task != r.rq_clock_task) {
    why = "the cfs_rq's curr was not recorded at the wakeup's clock";
    return std::nullopt;
  }
  return CurrAtPlacement{v->last.on_rq, v->last.vruntime, v->last.weight};
}

// place_entity() of the wakee into a cfs_rq whose average before it joins is `a`.
struct Placement {
  uint64_t v = 0, d = 0;
  bool matches(const bpf::QueuedEntity& e) const { return e.vruntime == v && e.deadline == d; }
};

Placement place(const CheckContext& c, const StateRecord& r, const EntityState& e,
                const bpf::QueuedEntity* before, const Average& a) {
  const bool has_lag = c.kernel.has(Feature::PLACE_LAG) && a.load > 0 && e.vlag != 0;
  const int64_t lag = has_lag ? inflated_lag(e.vlag, a.load, scale_down(e.weight)) : 0;
  uint64_t vslice = calc_delta_fair(e.slice, e.weight, true);
  if (r.kind == bpf::RecordKind::WakeupNew && c.kernel.has(Feature::PLACE_DEADLINE_INITIAL))
    vslice /= 2;
  Placement p;
  p.v = avg_vruntime(a) - static_cast<uint64_t>(lag);
  const bool rel = before && before->rel_deadline;
  p.d = p.v + (rel ? before->deadline : vslice);
  return p;
}

// Whether the placement is place_entity()'s with some of the delayed entities the model knows
// queued on the cfs_rq still there, when the record holds fewer than the model knows: their
// dequeue completed inside the wakeup, after the placement and before the tracepoint, with no
// record of it. Tries every subset of up to kMaxDelayed of them.
bool explained_by_delayed_exit(const CheckContext& c, const StateRecord& r, const EntityState& e,
                               const bpf::QueuedEntity* before, const Average& a) {
  constexpr size_t kMaxDelayed = 8;
  const CfsRqView* view = c.model.cfs_rq(e.cfs_rq.id);
  if (!view || !c.model.stale(*view).empty() || view->queued.size() < e.cfs_rq.nr_queued)
    return false;
  std::vector<const bpf::EntityState*> delayed;
  for (const uint64_t id : view->queued)
    if (const EntityView* d = c.model.entity(id); id != e.id && d && d->last.sched_delayed)
      delayed.push_back(&d->last);
  if (delayed.empty() || delayed.size() > kMaxDelayed) return false;
  for (uint32_t subset = 1; subset < (1u << delayed.size()); ++subset) {
    Average with = a;
    for (size_t i = 0; i < delayed.size(); ++i)
      if (subset & (1u << i)) add_entity(with, *delayed[i]);
    if (place(c, r, e, before, with).matches(e)) return true;
  }
  return false;
}

// The model's last record of the wakee's entity, if of the same task (an exited task's
// sched_entity address is reused by a new one).
const EntityView* seen_before(const CheckContext& c, const EntityState& e) {
  const EntityView* seen = c.model.entity(e.id);
  return seen && seen->pid == e.pid ? seen : nullptr;
}

// The wakee's state just before its wakeup ran, where it matters: the later of its entity at
// sched_waking (which the record carries) and the model's last record of it. A record later than
// sched_waking is of a wakee still being dequeued on its CPU then (a wakeup racing its sleep):
// after sched_waking it can only have left the queue, so that record is taken whatever the
// history of its CPU since. Returns held() with `before` set where the wakeup placed the wakee.
Outcome placed_from_sleep(const CheckContext& c, const StateRecord& r, const EntityState& e,
                          const bpf::QueuedEntity*& before) {
  before = nullptr;
  if (e.cfs_rq.curr == e.id) return not_applicable("woken while running: nothing placed");
  if (!e.on_rq) return inconclusive("the wakee is not queued at its wakeup record");
  if (r.kind == bpf::RecordKind::WakeupNew) return held();
  const EntityView* seen = seen_before(c, e);
  const std::optional<bpf::WakingState>& waking = r.tasks[0].waking;
  if (waking && (!seen || seen->seen_ns <= waking->time_ns)) {
    before = &waking->entity;
  } else if (!seen) {
    return inconclusive("the wakee was not seen before its wakeup (mid-life)");
  } else {
    if (std::string stale = c.model.stale(*seen); !stale.empty() && !waking)
      return inconclusive(stale);
    before = &seen->last;
  }
  if (before->on_rq)
    return not_applicable(before->sched_delayed
                              ? "requeued from a delayed dequeue: no placement (SPEC.md 4.9)"
                              : "woken while still queued: nothing placed");
  return held();
}

// The lag the wakee carried into place_entity() against what the capture saw it save: its
// dequeue's record (where the model's view of it is whole) and its state at sched_waking, each
// where it showed the wakee off the queue with the weight it has now (a reweight scales vlag).
// `text` says which (empty: unchanged; kTruncatedUnseen: a change the capture cannot judge), and
// the function gives the saved value it differs from.
constexpr const char* kTruncatedUnseen =
    "a saved lag > 0 found 0 at the wakeup: DELAY_ZERO's truncation at a delayed dequeue that "
    "completed unrecorded could explain it";

int64_t vlag_changed(const CheckContext& c, const StateRecord& r, const EntityState& e,
                     std::string& text) {
  text.clear();
  if (r.kind != bpf::RecordKind::Wakeup) return 0;  // a new task has saved no lag
  const EntityView* seen = seen_before(c, e);
  if (seen && c.model.stale(*seen).empty() && !seen->last.on_rq && !seen->dequeue_unrecorded &&
      seen->last.weight == e.weight && seen->last.vlag != e.vlag) {
    // DELAY_ZERO truncates a positive lag when a delayed dequeue completes, which no record
    // shows: seen on a live hackbench capture, a saved lag > 0 found 0 at the wakeup.
    if (c.kernel.has(Feature::DELAY_ZERO) && seen->last.vlag > 0 && e.vlag == 0) {
      text = kTruncatedUnseen;
      return seen->last.vlag;
    }
    text = fmt::format("vlag {} at the wakeup, its dequeue saved {}", e.vlag, seen->last.vlag);
    return seen->last.vlag;
  }
  const std::optional<bpf::WakingState>& waking = r.tasks[0].waking;
  if (waking && !waking->entity.on_rq && waking->entity.weight == e.weight &&
      waking->entity.vlag != e.vlag) {
    text = fmt::format("vlag {} at the wakeup, {} at sched_waking", e.vlag, waking->entity.vlag);
    return waking->entity.vlag;
  }
  return 0;
}

}  // namespace

void judge_switch_out(CheckContext& c, const StateRecord& r) {
  const bpf::TaskState& prev = r.tasks[0];
  if (!prev.fair || prev.chain.empty()) return;
  const EntityState& e = prev.chain[0];
  if (!e.on_rq)
    judge_saved_lag(c, r, e);
  else if (e.sched_delayed)
    judge_became_delayed(c, r, e);
}

void judge_placement(CheckContext& c, const StateRecord& r) {
  const bpf::TaskState& t = r.tasks[0];
  if (!t.fair || t.chain.empty()) return;
  const EntityState& e = t.chain[0];
  Tally& tally = c.report.tally(ids::kInvPlaceLag);
  const bpf::QueuedEntity* before = nullptr;
  if (Outcome o = placed_from_sleep(c, r, e, before); o.verdict != Verdict::Held) {
    tally.add(o);
    return;
  }
  if (!c.kernel.known) {
    tally.add(inconclusive(c.kernel.unknown_why));
    return;
  }
  const CfsRqState& q = e.cfs_rq;
  std::string why;
  const auto curr = curr_at(c, r, q, why);
  if (!curr) {
    tally.add(inconclusive(why));
    return;
  }
  // The cfs_rq before the wakee joined: its sums without it, curr added as avg_vruntime adds it.
  const uint64_t ws = scale_down(e.weight);
  const int64_t key = key_of(e.vruntime, q.zero_vruntime);
  const Average before_join =
      with_curr(q.zero_vruntime,
                static_cast<int64_t>(static_cast<uint64_t>(q.sum_w_vruntime) -
                                     static_cast<uint64_t>(key) * ws),
                q.sum_weight - ws, curr->present, curr->vruntime, curr->weight);
  const Placement p = place(c, r, e, before, before_join);
  Figures& f = c.report.figures;
  if (!p.matches(e) && explained_by_delayed_exit(c, r, e, before, before_join)) {
    // The placement is place_entity()'s with a delayed entity still queued, which then left the
    // cfs_rq inside the wakeup, unrecorded: the queue the wakee joined is not the record's.
    ++f.placements_beside_delayed_exit;
    tally.add(inconclusive("a delayed entity left the cfs_rq during the wakeup, unrecorded"));
    return;
  }
  if (p.matches(e)) {
    ++f.placements_exact;
  } else if (++f.placements_inexact <= Figures::kMaxExamples) {
    f.placement_examples.push_back(
        fmt::format("{}: {}:{} placed at v {} d {}, place_entity gives v {} d {}", at_time(r),
                    t.comm, t.pid, e.vruntime, e.deadline, p.v, p.d));
  }
  const int product = magnitude_bits(static_cast<__int128>(e.vlag) * (before_join.load + ws));
  f.lag_product_bits = std::max(f.lag_product_bits, product);
  if (product <= kS64Bits)
    c.report.tally(ids::kInvS64Margin).add(held());
  else {
    Witness w = witness_at(r);
    w.smt = s64_smt("vlag*(load+w)", e.vlag, before_join.load + ws);
    c.report.tally(ids::kInvS64Margin)
        .add(violated(fmt::format("vlag*(load+w) takes {} bits", product)), std::move(w));
  }

  // The promise: after joining, V − v is the saved lag (within 2: V floored before, the
  // inflation truncated, SPEC.md §6.4).
  Average after = before_join;
  add_entity(after, e);
  const Exact lag_after = exact_of(after.avg) / exact_of(after.load) - Exact(key);
  const Exact expect =
      rules::expected_place_lag(c.kernel.params.preset, Exact(e.vlag),
                                static_cast<int64_t>(before_join.load), static_cast<int64_t>(ws));
  std::string wrong;
  Witness w = witness_at(r);
  if (const int64_t saved = vlag_changed(c, r, e, wrong); wrong == kTruncatedUnseen) {
    tally.add(inconclusive(wrong));
    return;
  } else if (!wrong.empty()) {
    w.smt = kept_vlag_smt(e.vlag, saved);
  } else if (!rules::within(lag_after, expect, Exact(2))) {
    wrong = fmt::format("lag after joining {:.1f}, the saved lag is {}", lag_after.get_d(), e.vlag);
    w.smt = place_lag_smt(after, e, expect);
  }
  if (wrong.empty()) {
    tally.add(held());
    return;
  }
  w.lines.push_back(cfs_rq_line(q));
  w.lines.push_back(entity_line(e, "wakee"));
  if (before) w.lines.push_back(entity_line(*before, "wakee before"));
  w.lines.push_back(fmt::format("V before joining {}, curr {}", avg_vruntime(before_join),
                                curr->present ? std::to_string(curr->vruntime) : "none"));
  tally.add(violated(wrong), std::move(w));
}

}  // namespace vlag::kernel::state
