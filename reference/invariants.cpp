#include "reference/invariants.h"

#include <algorithm>

#include "spec/weights.h"

namespace vlag::reference {
namespace {

std::string str(const Num& x) { return x.get_str(); }

Num clamp_limit(const Runqueue& rq, const Entity& e) {
  Num l = Num(std::max(2 * e.slice, rq.params().tick_ns())) * static_cast<long>(kNice0Weight) /
          static_cast<long>(e.weight);
  l.canonicalize();
  return l;
}

void add(std::vector<Violation>& out, const char* id, std::string detail, bool promised = true) {
  out.push_back({id, std::move(detail), promised});
}

// INV-PICK-ELIGIBLE, INV-PICK-EDF.
void check_pick(const Runqueue& before, const Runqueue& after, std::vector<Violation>& out) {
  const auto picked = after.curr();
  const auto q = after.queued();
  if (!picked) {
    if (!q.empty()) add(out, "INV-PICK-ELIGIBLE", "pick returned nothing with a non-empty queue");
    return;
  }
  const Entity& p = after.entity(*picked);
  if (!after.entity_eligible(p)) {
    add(out, "INV-PICK-ELIGIBLE",
        "picked " + std::to_string(p.id) + " with v=" + str(p.vruntime) +
            " > V=" + str(after.avg_vruntime()));
    return;
  }
  const bool protected_curr = before.curr() == p.id && before.protect_slice();
  const bool buddy = before.next_buddy() == p.id && before.params().preset.has(Feature::PICK_BUDDY);
  if (protected_curr || buddy) return;
  for (const Entity* e : q) {
    if (e->id != p.id && after.entity_eligible(*e) && e->deadline < p.deadline)
      add(out, "INV-PICK-EDF",
          "picked " + std::to_string(p.id) + " (d=" + str(p.deadline) + ") but eligible " +
              std::to_string(e->id) + " has d=" + str(e->deadline));
  }
}

// INV-PLACE-LAG: after a wakeup placement the measured lag is the saved lag (TR join: shared).
void check_place(const Runqueue& before, const Op& op, const Runqueue& after,
                 std::vector<Violation>& out) {
  const Entity& b = before.entity(op.id);
  if (b.status != Status::Sleeping) return;
  const Entity& a = after.entity(op.id);
  const Preset& p = before.params().preset;
  const int64_t W = before.total_weight();
  Num expect = 0;
  if (p.has(Feature::PLACE_LAG) && W != 0) {
    expect = b.vlag;
    if (p.join == JoinRule::Paper)
      expect = expect * static_cast<long>(W) / static_cast<long>(W + a.weight);
  }
  expect.canonicalize();
  const Num got = after.avg_vruntime() - a.vruntime;
  if (got != expect)
    add(out, "INV-PLACE-LAG",
        "task " + std::to_string(op.id) + " saved vlag " + str(b.vlag) +
            ": expected V-v=" + str(expect) + ", got " + str(got));
}

// INV-REWEIGHT: V unchanged and w·vlag preserved, unless the clamp cut the lag.
void check_reweight(const Runqueue& before, const Op& op, const Runqueue& after,
                    std::vector<Violation>& out) {
  const Entity& b = before.entity(op.id);
  const Entity& a = after.entity(op.id);
  const Preset& p = before.params().preset;
  const Num Vb = before.avg_vruntime(), Va = after.avg_vruntime();
  const bool queued = b.status != Status::Sleeping;
  Num lag_b = queued ? Num(Vb - b.vruntime) : b.vlag;
  Num lag_a = queued ? Num(Va - a.vruntime) : a.vlag;
  if (queued && p.clamp == LagClamp::TwiceSlice && abs(lag_b) > clamp_limit(before, b)) return;
  bool promised = p.reweight != ReweightRule::KeepV;
  if (p.reweight == ReweightRule::Place && before.curr() == op.id) promised = false;
  if (queued && Va != Vb)
    add(out, "INV-REWEIGHT",
        "reweight of " + std::to_string(op.id) + " moved V from " + str(Vb) + " to " + str(Va),
        promised);
  if (lag_b * static_cast<long>(b.weight) != lag_a * static_cast<long>(a.weight))
    add(out, "INV-REWEIGHT",
        "reweight of " + std::to_string(op.id) + ": w*vlag " +
            str(lag_b * static_cast<long>(b.weight)) + " became " +
            str(lag_a * static_cast<long>(a.weight)),
        promised);
}

// INV-LAG-CLAMP and the DELAY_ZERO half of it, for every entity that left Q in this step. A
// preset without the clamp (paper) is judged too, as not promised: a saved lag beyond the limit
// is its documented behaviour, and `vlag prove` shows one.
void check_saved_lags(const Runqueue& before, const Runqueue& after, std::vector<Violation>& out) {
  const Preset& p = before.params().preset;
  for (const Entity& b : before.entities()) {
    if (b.status == Status::Sleeping || !after.has(b.id)) continue;
    const Entity& a = after.entity(b.id);
    if (a.status != Status::Sleeping) continue;
    if (abs(a.vlag) > clamp_limit(after, a))
      add(out, "INV-LAG-CLAMP",
          "task " + std::to_string(a.id) + " saved vlag " + str(a.vlag) + " beyond " +
              str(clamp_limit(after, a)),
          p.clamp == LagClamp::TwiceSlice);
    if (b.status == Status::Delayed && p.has(Feature::DELAY_ZERO) && a.vlag > 0)
      add(out, "INV-LAG-CLAMP",
          "task " + std::to_string(a.id) + " left a delayed dequeue with vlag " + str(a.vlag) +
              " > 0 under DELAY_ZERO");
  }
}

// INV-DELAY: only an ineligible sleeper becomes delayed.
void check_delay(const Runqueue& before, const Op& op, const Runqueue& after,
                 std::vector<Violation>& out) {
  const Entity& a = after.entity(op.id);
  if (a.status == Status::Delayed && before.entity_eligible(before.entity(op.id)))
    add(out, "INV-DELAY", "eligible task " + std::to_string(op.id) + " was delayed");
}

}  // namespace

std::vector<Violation> check_state(const Runqueue& rq) {
  std::vector<Violation> out;
  const auto q = rq.queued();
  if (q.empty()) return out;
  const Num V = rq.avg_vruntime();
  if (rq.fluid_clock() != V)
    add(out, "INV-LAG-SUM",
        "fluid clock " + str(rq.fluid_clock()) + " != weighted average " + str(V));
  if (std::none_of(q.begin(), q.end(), [&](const Entity* e) { return rq.entity_eligible(*e); }))
    add(out, "INV-ELIGIBLE-EXISTS", "no queued entity is eligible");
  if (rq.curr() && rq.entity(*rq.curr()).status != Status::Queued)
    add(out, "INV-DELAY", "running task " + std::to_string(*rq.curr()) + " is not queued");
  for (const Entity* e : q) {
    Num remaining = (e->deadline - e->vruntime) * static_cast<long>(e->weight) /
                    static_cast<long>(kNice0Weight);
    remaining.canonicalize();
    if (remaining <= 0 || remaining > e->request)
      add(out, "INV-DEADLINE",
          "task " + std::to_string(e->id) + " remaining request " + str(remaining) +
              " ns not in (0, " + str(e->request) + "]",
          !e->request_cut);
  }
  return out;
}

std::vector<Violation> check_step(const Runqueue& before, const Op& op, const Runqueue& after) {
  std::vector<Violation> out = check_state(after);
  switch (op.kind) {
    case OpKind::Pick:
      check_pick(before, after, out);
      break;
    case OpKind::Enqueue:
      check_place(before, op, after, out);
      break;
    case OpKind::Reweight:
      check_reweight(before, op, after, out);
      break;
    case OpKind::Dequeue:
      check_delay(before, op, after, out);
      break;
    default:
      break;
  }
  check_saved_lags(before, after, out);
  return out;
}

std::vector<Violation> promised_only(std::vector<Violation> all) {
  std::erase_if(all, [](const Violation& v) { return !v.promised; });
  return all;
}

std::vector<Violation> check_paper_lag_bound(const Runqueue& rq) {
  std::vector<Violation> out;
  const int64_t q = rq.params().tick_ns();
  for (const Entity* e : rq.queued()) {
    const Num lag = rq.lag(*e);
    if (!(lag > -e->slice && lag < std::max(e->slice, q)))
      add(out, "THM-LAG-BOUND",
          "task " + std::to_string(e->id) + " lag " + str(lag) + " ns outside (-" +
              std::to_string(e->slice) + ", " + std::to_string(std::max(e->slice, q)) + ")");
  }
  return out;
}

}  // namespace vlag::reference
