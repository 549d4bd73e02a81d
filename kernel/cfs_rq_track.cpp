#include "kernel/cfs_rq_track.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel/starvation_bound.h"
#include "spec/properties.h"

namespace vlag::kernel {
namespace {

constexpr const char* kShare = ids::kThmShare;
constexpr const char* kLag = ids::kThmLagBoundLinux;
constexpr const char* kStarvation = ids::kInvNoStarvation;

// A weight known this closely takes part in the pair checks as it is (SPEC.md §6.2).
bool tight(Range w) { return w.bounded() && w.hi - w.lo <= 0.02 * w.lo; }

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

// A whole number of at most 2^50: sums of such are exact in double, in any order. Told by a
// round trip through int64_t, which holds any such, where std::floor is a call into libm.
bool whole_number(double x) {
  return std::abs(x) <= 0x1p50 && x == static_cast<double>(static_cast<int64_t>(x));
}

bool whole(Range w) { return whole_number(w.lo) && whole_number(w.hi); }

Reasons inexact(Range weight, Range slice) {
  Reasons r;
  if (!weight.is_exact()) r |= Reason::WeightUnknown;
  if (!slice.is_exact()) r |= Reason::MissingSnapshot;
  return r;
}

}  // namespace

void CfsRqTrack::set_info(Member& m, const EntityInfo& e) {
  if (m.counted) count(m, -1);
  if (m.fluid) loose_fluid_ -= !tight(m.info.weight);
  m.info = e;
  if (m.fluid) loose_fluid_ += !tight(m.info.weight);
  m.deficit_lo = lag_deficit(e.slice.lo, ctx_->tick_ns);
  m.deficit_hi = lag_deficit(e.slice.hi, ctx_->tick_ns);
  count(m, 1);
  m.counted = true;
}

// What a wait's start needs of all members, kept as they come and go: the members of inexact
// weight, the sum of the whole weights (exact: while no other is a member it is the walk's sum)
// and the others, and each end's lag deficits by value.
void CfsRqTrack::count(const Member& m, int by) {
  if (!m.info.weight.is_exact()) inexact_weights_ += by;
  if (whole(m.info.weight)) {
    const double k = by;
    whole_weights_ = {whole_weights_.lo + k * m.info.weight.lo,
                      whole_weights_.hi + k * m.info.weight.hi};
  } else {
    odd_weights_ += by;
  }
  deficits_lo_.add(m.deficit_lo, by);
  deficits_hi_.add(m.deficit_hi, by);
}

void CfsRqTrack::join(const EntityInfo& e, int64_t t, JoinKind kind, bool woken, int64_t earliest,
                      Reasons start_unknown) {
  if (members_.count(e.id)) return;
  const bool steady = e.weight.is_exact();
  // What the waits in progress take of the join (joined_since() and the rest of judge_wait).
  ++joins_;
  if (!steady) ++unsteady_joins_;  // their weight changed
  const uint64_t seq = ++join_seq_;
  note_peak(peak_lo_, seq, lag_deficit(e.slice.lo, ctx_->tick_ns));
  note_peak(peak_hi_, seq, lag_deficit(e.slice.hi, ctx_->tick_ns));
  if (joined_exact_ && !add_joined(e.weight)) joined_to_waits();
  if (!joined_exact_)
    for (auto& [id, o] : members_)
      if (o.wait) o.wait->joined += e.weight;
  // V moves while an entity here runs (its service is accounted only later): a join then
  // lands at another V than the previous one.
  if (running_ > 0) ++epoch_;
  Member& m = members_[e.id];
  if (!spare_lists_.empty()) {
    m.windows = std::move(spare_lists_.back().windows);
    m.holds = std::move(spare_lists_.back().holds);
    spare_lists_.pop_back();
  }
  if (free_slots_.empty()) {
    m.slot = static_cast<uint32_t>(by_slot_.size());
    by_slot_.push_back(&m);
  } else {
    m.slot = free_slots_.back();
    free_slots_.pop_back();
    by_slot_[m.slot] = &m;
  }
  const uint8_t* noted = noted_.find(e.id);
  m.sleeper_noted = noted && (*noted & kNotedSleeper) != 0;
  m.blocked_noted = noted && (*noted & kNotedBlocked) != 0;
  if (!m.sleeper_noted) ++unnoted_;
  set_info(m, e);
  m.fresh_new = kind == JoinKind::New;
  m.new_epoch = epoch_;
  if (kind != JoinKind::New) ++epoch_;  // placed with a lag: V moves (SPEC.md §3)
  m.tau_seen = tau_;
  fluid_join(m);
  start_wait(m, e.id, t, kind != JoinKind::Appeared, kind == JoinKind::Appeared ? earliest : t,
             start_unknown, woken);
  open_windows(e.id, m, t);
}

void CfsRqTrack::start_wait(Member& m, int64_t id, int64_t t, bool known, int64_t from, Reasons why,
                            bool woken) {
  Wait w;
  w.from = known ? t : from;
  w.start_known = known;
  w.start_why = why;
  w.woken = woken;
  w.tau0 = tau_;
  w.unknown0 = *ctx_->cpu_unknown_ns;
  // One walk, in ascending order as the sum's rounding was: the cfs_rq's weight, the others'
  // largest lag deficits, and whether a weight is not known exactly (it may change while its
  // entity runs, and Linux 6.13..7.0 moves V when it reweights the running entity, SPEC.md
  // §4.8: the bound is not promised then).
  if (odd_weights_ == 0)
    w.W0 = whole_weights_;
  else
    for (const auto& [oid, o] : members_) w.W0 += o.info.weight;
  w.m_lo = deficits_lo_.largest_but(m.deficit_lo);
  w.m_hi = deficits_hi_.largest_but(m.deficit_hi);
  if (inexact_weights_ > 0) w.weight_changed = true;
  w.leaves0 = leaves_;
  w.unsteady0 = unsteady_joins_;
  w.joins0 = joins_;
  w.outsiders0 = outsider_joins_;
  w.join_seq0 = join_seq_;
  w.joined0 = joined_sum_;
  w.W0.hi += maybe_members(id);
  const double others = static_cast<double>(members_.size() - 1);
  w.n0 = {others, others + static_cast<double>(sleepers_.size() + possible_.size())};
  if (!sleepers_.empty() || !possible_.empty())
    w.m_hi = std::max(w.m_hi, lag_deficit(1e8, ctx_->tick_ns));
  w.outsiders = !possible_.empty();
  m.wait = w;
}

void CfsRqTrack::judge_wait(int64_t id, Member& m, int64_t t, int line, bool o_lo_valid,
                            std::optional<int64_t> end_lo, Reasons end_why) {
  const Wait& w = *m.wait;
  const double served = tau_ - w.tau0;
  const double unknown = *ctx_->cpu_unknown_ns - w.unknown0;
  Range O;
  if (w.start_known)
    O = {o_lo_valid ? std::max(0.0, served - w.own_maybe) : 0, served + unknown + w.outsiders_ran};
  else  // its start is unknown: at most the wall time since, and at most all this cfs_rq got
    O = {0, std::min(static_cast<double>(t - w.from),
                     tau_ + (*ctx_->cpu_unknown_ns - unknown_at_creation_))};
  const int64_t end_at = end_lo.value_or(t);
  const Range real{w.start_known && o_lo_valid ? static_cast<double>(end_at - w.from) : 0,
                   static_cast<double>(t - w.from)};
  StarvationInputs in;
  in.w_k = m.info.weight;
  in.r_k = m.info.slice;
  in.W = w.W0 + joined_since(w);
  in.n_others = w.n0;
  in.joins = static_cast<int>(joins_ - w.joins0);
  in.leaves = static_cast<int>(leaves_ - w.leaves0);
  const double m_lo = std::max(w.m_lo, peak_since(peak_lo_, w.join_seq0));
  const double m_hi = std::max(w.m_hi, peak_since(peak_hi_, w.join_seq0));
  const bool outsiders = w.outsiders || outsider_joins_ > w.outsiders0;
  in.m_others = {m_lo, m_hi};
  in.tick_ns = ctx_->tick_ns;
  const Range B = starvation_bound(in);
  const double threshold = static_cast<double>(ctx_->user_threshold_ns);
  if (w.start_known && o_lo_valid && !end_lo && !finishing_ && ctx_->on_wait)
    ctx_->on_wait(id, {w.from, t, true, w.woken});
  const auto describe = [&] {
    const std::string waited =
        w.start_known ? "waited " + ms(real.hi)
                      : "was queued at most " + ms(real.hi) + " (its arrival is not in the trace)";
    return fmt::format(
        "{} {} on cpu{} from {:.6f} s while cfs_rq {} served the others {}; EEVDF allows "
        "{} for weight {:.0f} among {:.0f} (the bound B of SPEC.md §6.2)",
        ctx_->name(id), waited, ctx_->cpu, static_cast<double>(w.from) / 1e9, path_,
        O.is_exact() ? ms(O.lo) : ms(O.lo) + " to " + ms(O.hi),
        B.bounded() ? (B.is_exact() ? ms(B.lo) : ms(B.lo) + " to " + ms(B.hi)) : "any amount",
        m.info.weight.mid(), in.W.mid());
  };
  const bool sure_measure = w.start_known && o_lo_valid && !end_lo;
  const bool weight_changed = w.weight_changed || unsteady_joins_ > w.unsteady0;
  if (sure_measure && O.lo > B.hi + w.late && real.lo > threshold && !weight_changed) {
    ctx_->book->sure(kStarvation, id, O.lo - B.hi - w.late, ctx_->cpu, line, describe);
  } else if (O.hi > B.lo && real.hi > threshold) {
    // Name what keeps it from a verdict: the measurement's spread, the bound's, or both.
    Reasons why;
    if (w.late > 0 && O.lo > B.hi) why |= Reason::LateTick;
    if (O.lo <= B.hi || !sure_measure) {
      why |= w.start_why | end_why;
      if (unknown > 0) why |= Reason::UnrecordedSwitch;
      if (w.own_maybe > 0 || outsiders) why |= Reason::MembershipUnknown;
    }
    if (O.lo > B.lo || O.hi > B.hi) {
      if (!m.info.weight.is_exact() || !in.W.is_exact() || !B.bounded())
        why |= Reason::WeightUnknown;
      if (!m.info.slice.is_exact() || m_hi > m_lo) why |= Reason::MissingSnapshot;
      if (w.n0.hi > w.n0.lo) why |= Reason::QueuedSetUnknown;
    }
    if (weight_changed && O.lo > B.hi) why |= Reason::WeightChanged;
    if (why.empty()) why = w.start_why | end_why | inexact(m.info.weight, m.info.slice);
    ctx_->book->possible(kStarvation, id, why, O.hi - B.lo, ctx_->cpu, line, describe);
  } else {
    ctx_->book->judged(kStarvation, id);
  }
  m.wait.reset();
}

void CfsRqTrack::pick(int64_t id, int64_t t, int line, std::optional<int64_t> uncertain_from) {
  Member* const picked = members_.get(id);
  if (!picked) return;
  Member& m = *picked;
  if (m.wait)
    judge_wait(id, m, t, line, true, uncertain_from,
               uncertain_from ? Reasons(Reason::UnrecordedSwitch) : Reasons());
  if (!m.running) ++running_;
  m.running = true;
  m.sigma_at_pick = m.sigma;
  m.run_ns = m.overrun_ns = 0;
  m.tau_seen = tau_;
  fluid_extremes(m);
  const auto establish = [&](Window& w, int64_t other, const Member& o) {
    // Both picked since the window opened: from here each one's lead over the other is held
    // inside the band of SPEC.md §6.2, so the window is measured from now.
    w.a0 = (id < other ? m : o).sigma;
    w.b0 = (id < other ? o : m).sigma;
    w.established = true;
    w.t0 = t;
    w.max_x = w.min_x = {0, 0};
    w.t_max_lo = w.t_min_hi = t;
  };
  for (const auto& [oid, window, partner] : m.windows) {
    Window& w = *window;
    (id < oid ? w.picked_a : w.picked_b) = true;
    if (!w.established && w.picked_a && w.picked_b) establish(w, oid, *partner);
  }
  // The implied windows whose other end was picked since they opened are established now. Those
  // that were so at its last pick hold state since; any other is implied still, and its other
  // end is picked since only by a stop after that pick (or it runs now, as m does: then all).
  const auto implied_picked = [&](int64_t oid, Member& o) {
    if (oid == id || !picked_since(o, std::max(m.open_seq, o.open_seq))) return;
    if (!holds(m, o.slot) && !settled(m, o)) establish(*materialize(id, m, oid, o), oid, o);
  };
  if (running_ > 1) {
    for (auto& [oid, o] : members_) implied_picked(oid, o);
  } else {
    const uint64_t since = std::max(m.open_seq, m.last_pick_seq);
    // A stop's slot holds the member that stopped if its last stop is that one (sequence
    // numbers are never reused, and a member that joins later has stopped later or never).
    for (auto s = stops_.rbegin(); s != stops_.rend() && s->seq > since; ++s) {
      Member* const o = by_slot_[s->slot];
      if (o != nullptr && o->last_stop_seq == s->seq) implied_picked(s->id, *o);
    }
  }
  m.last_pick_seq = ++seq_;
}

void CfsRqTrack::repicked(int64_t id) {
  Member* const m = members_.get(id);
  if (m && m->running) m->run_ns = m->overrun_ns = 0;
}

void CfsRqTrack::stop(int64_t id, int64_t t) {
  Member* const stopped = members_.get(id);
  if (!stopped || !stopped->running) return;
  Member& m = *stopped;
  m.running = false;
  --running_;
  m.last_stop_seq = ++seq_;
  stops_.push_back({m.last_stop_seq, id, m.slot});
  if (stops_.size() > 2 * members_.size() + 64)  // keep only each member's last stop
    stops_.erase(std::remove_if(stops_.begin(), stops_.end(),
                                [&](const Stop& s) {
                                  const Member* o = by_slot_[s.slot];
                                  return o == nullptr || o->last_stop_seq != s.seq;
                                }),
                 stops_.end());
  m.tau_seen = tau_;
  fluid_extremes(m);
  start_wait(m, id, t, true, t, {}, false);
}

void CfsRqTrack::run(int64_t id, int64_t dt, bool kernel_accounted) {
  Member* const ran = members_.get(id);
  if (!ran || dt <= 0) return;
  Member& m = *ran;
  const double d = static_cast<double>(dt);
  m.sigma.lo += d / m.info.weight.hi;
  m.sigma.hi += d / m.info.weight.lo;
  tau_ += d;
  ++epoch_;
  m.fresh_new = false;
  m.run_ns += d;
  const double past = m.run_ns - m.info.slice.hi - static_cast<double>(ctx_->tick_ns);
  if (kernel_accounted && past > m.overrun_ns) {
    overrun(id, past - m.overrun_ns);
    m.overrun_ns = past;
  }
  if (m.fluid && w_fluid_ > 0) {
    v_ += d / w_fluid_;
    m.received += d;
    // V moved by a sum of weights one of which is a guess: no member's ideal is a figure now.
    if (loose_fluid_ > 0) ++taints_;
  }
  update_extremes(id, m);
}

// The pick rule lets a running entity overrun its request until the next tick notices, at most
// TICK. A run longer than its request plus a tick is beyond that rule: the tick came late (a
// stalled vCPU, interrupts held off), the kernel could not preempt (preempt=none or voluntary:
// a task in the kernel runs on until it returns to user space or reaches cond_resched()), or
// the pick chose the same entity again (no switch is recorded then). What it got past that
// widens the bounds of the pairs it is in and of the others' waits, with the reason.
void CfsRqTrack::overrun(int64_t id, double excess) {
  if (members_.size() < 2 || !members_.count(id) || excess <= 0) return;
  uncertain(id, excess, Reason::LateTick);
  for (auto& [oid, o] : members_)
    if (oid != id && o.wait) o.wait->late += excess;
}

Range CfsRqTrack::x_of(const Window& w, Range sa, Range sb) const {
  const Range da{sa.lo - w.a0.lo, sa.hi - w.a0.hi};
  const Range db{sb.lo - w.b0.lo, sb.hi - w.b0.hi};
  return {da.lo - db.hi, da.hi - db.lo};
}

void CfsRqTrack::update_extremes(int64_t id, const Member& m) {
  for (const auto& [other, window, partner] : m.windows) {
    if (!window->established) continue;
    const Range so = partner->sigma;
    note_extremes(*window, id < other ? x_of(*window, m.sigma, so) : x_of(*window, so, m.sigma));
  }
}

void CfsRqTrack::note_extremes(Window& w, Range x) {
  if (x.lo > w.max_x.lo) {
    w.max_x.lo = x.lo;
    w.t_max_lo = ++w.order;
  }
  w.max_x.hi = std::max(w.max_x.hi, x.hi);
  w.min_x.lo = std::min(w.min_x.lo, x.lo);
  if (x.hi < w.min_x.hi) {
    w.min_x.hi = x.hi;
    w.t_min_hi = ++w.order;
  }
}

void CfsRqTrack::uncertain(int64_t id, double ns, Reasons why) {
  Member* const m = members_.get(id);
  if (!m || ns <= 0) return;
  materialize_all(id, *m);
  const double per_weight = ns / m->info.weight.lo;
  for (const auto& [other, w, partner] : m->windows) {
    w->u += per_weight;
    w->why |= why;
  }
}

double CfsRqTrack::maybe_members(int64_t except) const {
  if (maybe_sums_exact_) {
    const double* w = sleepers_.find(except);
    return (sleepers_sum_ - (w ? *w : 0)) + possible_sum_;
  }
  double maybe = 0;
  for (const auto& [sid, sw] : sleepers_.ascending())
    if (sid != except) maybe += sw;
  for (const auto& [pid, pw] : possible_.ascending()) maybe += pw;
  return maybe;
}

void CfsRqTrack::add_sleeper(int64_t id, double weight) {
  const auto [w, fresh] = sleepers_.emplace(id, weight);
  if (!fresh) {
    sleepers_sum_ -= *w;
    *w = weight;
  }
  sleepers_sum_ += weight;
  note_maybe_weight(weight);
}

void CfsRqTrack::forget_sleeper(int64_t id) {
  const double* w = sleepers_.find(id);
  if (!w) return;
  sleepers_sum_ -= *w;
  sleepers_.erase(id);
}

void CfsRqTrack::forget_possible_member(int64_t pid) {
  const double* w = possible_.find(pid);
  if (!w) return;
  possible_sum_ -= *w;
  possible_.erase(pid);
}

void CfsRqTrack::note_maybe_weight(double weight) {
  if (!whole_number(weight)) maybe_sums_exact_ = false;
}

void CfsRqTrack::add_possible_member(int64_t pid, double weight) {
  const auto [held, fresh] = possible_.emplace(pid, weight);
  const double added = fresh ? weight : weight - *held;  // a renice while queued: heavier
  if (fresh) {
    possible_sum_ += weight;
    note_maybe_weight(weight);
  }
  if (added <= 0) return;
  if (!fresh) {
    possible_sum_ += added;
    note_maybe_weight(weight);
  }
  *held = weight;
  // The waits in progress take it as a join of up to `added` (judge_wait).
  if (fresh) ++joins_;
  ++outsider_joins_;
  note_peak(peak_hi_, ++join_seq_, lag_deficit(1e8, ctx_->tick_ns));
  if (joined_exact_ && !add_joined(Range{0, added})) joined_to_waits();
  if (!joined_exact_)
    for (auto& [id, o] : members_)
      if (o.wait) o.wait->joined += Range{0, added};
}

// A wait's share of what joined the cfs_rq: the peaks of the lag deficits since it began are
// kept as a stack of falling values, so the first one after its start is their maximum.
void CfsRqTrack::note_peak(std::vector<Peak>& peaks, uint64_t seq, double value) {
  while (!peaks.empty() && peaks.back().value <= value) peaks.pop_back();
  peaks.push_back({seq, value});
}

double CfsRqTrack::peak_since(const std::vector<Peak>& peaks, uint64_t seq) {
  const auto at = std::upper_bound(peaks.begin(), peaks.end(), seq,
                                   [](uint64_t s, const Peak& p) { return s < p.seq; });
  return at == peaks.end() ? 0 : at->value;
}

// The joined weight summed once for all waits while every term is a whole number below 2^50
// (task weights are): such sums are exact, so a wait's difference of two of them is the sum of
// its own terms in any order. False, and nothing added, when a term is not one, or the sum
// would grow past 2^52.
bool CfsRqTrack::add_joined(Range w) {
  if (!whole(w) || joined_sum_.hi + w.hi > 0x1p52) return false;  // not added then
  joined_sum_ = {joined_sum_.lo + w.lo, joined_sum_.hi + w.hi};
  return true;
}

Range CfsRqTrack::joined_since(const Wait& w) const {
  if (!joined_exact_) return w.joined;
  return {w.joined.lo + (joined_sum_.lo - w.joined0.lo),
          w.joined.hi + (joined_sum_.hi - w.joined0.hi)};
}

// From here on each wait sums its own joined weight, term by term, as it comes.
void CfsRqTrack::joined_to_waits() {
  for (auto& [id, o] : members_)
    if (o.wait) o.wait->joined = joined_since(*o.wait);
  joined_exact_ = false;
}

void CfsRqTrack::possible_member_ran(double ns) {
  for (auto& [id, m] : members_)
    if (m.wait) m.wait->outsiders_ran += ns;
}

void CfsRqTrack::groups_may_have_run(double ns, const std::function<bool(int64_t)>& may_hold) {
  if (ns <= 0) return;
  for (auto& [id, m] : members_) {
    if (id >= 0) break;  // group entities (negative ids) come first
    if (!may_hold(id)) continue;
    uncertain(id, ns, Reason::MembershipUnknown);
    if (m.wait) m.wait->own_maybe += ns;
  }
}

// Its windows with every other member open, implied (SPEC.md §6.2's pair windows hold no state
// until both were picked), but for those that start from zero.
void CfsRqTrack::open_windows(int64_t id, Member& m, int64_t t) {
  m.open_seq = ++seq_;
  if (!m.fresh_new) return;
  for (auto& [oid, o] : members_) {
    // Both placed new (zero lag) at one value of V, and neither has run: their vruntimes are
    // equal, so the gap starts at 0 and is bounded from the start (SPEC.md §6.2).
    if (oid == id || !o.fresh_new || o.new_epoch != m.new_epoch || settled(m, o)) continue;
    Window& w = *materialize(id, m, oid, o);
    w.from_zero = w.established = true;
    w.t0 = t;
  }
}

CfsRqTrack::Window* CfsRqTrack::materialize(int64_t a, Member& ma, int64_t b, Member& mb) {
  if (b < a) return materialize(b, mb, a, ma);
  const uint64_t open = std::max(ma.open_seq, mb.open_seq);
  Window w;
  w.a0 = ma.sigma;
  w.b0 = mb.sigma;
  w.wa = ma.info.weight;
  w.wb = mb.info.weight;
  w.ra = ma.info.slice;
  w.rb = mb.info.slice;
  w.picked_a = picked_since(ma, open);
  w.picked_b = picked_since(mb, open);
  Window* node = new_window();
  *node = w;
  const auto by_other = [](const Link& l, int64_t x) { return l.other < x; };
  ma.windows.insert(std::lower_bound(ma.windows.begin(), ma.windows.end(), b, by_other),
                    {b, node, &mb});
  mb.windows.insert(std::lower_bound(mb.windows.begin(), mb.windows.end(), a, by_other),
                    {a, node, &ma});
  set_holds(ma, mb.slot, true);
  set_holds(mb, ma.slot, true);
  return node;
}

void CfsRqTrack::materialize_all(int64_t id, Member& m) {
  if (m.windows.size() + 1 == members_.size()) return;
  size_t k = 0;
  for (auto& [oid, o] : members_) {
    if (oid == id) continue;
    if (k >= m.windows.size() || m.windows[k].other != oid) materialize(id, m, oid, o);
    ++k;
  }
}

void CfsRqTrack::note_sleeper(int64_t id, Member& m) {
  if (m.sleeper_noted) return;
  m.sleeper_noted = true;
  --unnoted_;
  noted_[id] |= kNotedSleeper;
  ctx_->book->not_applicable(kShare, id, Reason::Sleeper);
  ctx_->book->not_applicable(kLag, id, Reason::Sleeper);
}

CfsRqTrack::Window* CfsRqTrack::new_window() {
  if (free_.empty()) return &pool_.emplace_back();
  Window* w = free_.back();
  free_.pop_back();
  return w;
}

void CfsRqTrack::set_holds(Member& m, uint32_t slot, bool on) {
  if (slot / 64 >= m.holds.size()) {
    if (!on) return;
    m.holds.resize(slot / 64 + 1, 0);
  }
  const uint64_t bit = uint64_t{1} << (slot % 64);
  m.holds[slot / 64] = on ? m.holds[slot / 64] | bit : m.holds[slot / 64] & ~bit;
}

void CfsRqTrack::unlink(Member& m, int64_t other, uint32_t other_slot) {
  const auto at = std::lower_bound(m.windows.begin(), m.windows.end(), other,
                                   [](const Link& l, int64_t x) { return l.other < x; });
  if (at != m.windows.end() && at->other == other) m.windows.erase(at);
  set_holds(m, other_slot, false);
}

void CfsRqTrack::close_windows(int64_t id, Member& m, int64_t t, int line, bool without_run) {
  // The implied windows need a walk of all members only while one of their ends is not noted
  // yet; the windows that hold state come in the same order either way.
  const bool implied = m.windows.size() + 1 < members_.size();
  if (implied) note_sleeper(id, m);
  const bool walk = implied && unnoted_ > 0;
  auto link = m.windows.begin();
  for (auto o_it = walk ? members_.begin() : members_.end(); o_it != members_.end(); ++o_it) {
    auto& [other, o] = *o_it;
    if (other == id) continue;
    if (link == m.windows.end() || link->other != other)  // implied: never established
      note_sleeper(other, o);
    else
      ++link;
  }
  for (const auto& [other, window, partner] : m.windows) {
    Member& o = *partner;
    const int64_t a = std::min(id, other), b = std::max(id, other);
    Member& ma = a == id ? m : o;
    Member& mb = b == id ? m : o;
    const Range sa = without_run && a == id && ma.running ? ma.sigma_at_pick : ma.sigma;
    const Range sb = without_run && b == id && mb.running ? mb.sigma_at_pick : mb.sigma;
    judge_window(a, ma, b, mb, *window, t, line, sa, sb);
    unlink(o, id, m.slot);
    free_.push_back(window);
  }
  m.windows.clear();
  m.holds.clear();
}

bool CfsRqTrack::settled(const Member& a, const Member& b) {
  return a.sleeper_noted && a.blocked_noted && b.sleeper_noted && b.blocked_noted &&
         (!tight(a.info.weight) || !tight(b.info.weight));
}

void CfsRqTrack::note_blocked(int64_t id, Member& m) {
  if (m.blocked_noted) return;
  m.blocked_noted = true;
  noted_[id] |= kNotedBlocked;
  ctx_->book->blocked(kShare, id, Reason::WeightUnknown);
  ctx_->book->blocked(kLag, id, Reason::WeightUnknown);
}

// A window that cannot be judged notes the same for its two ends every time: note_sleeper() and
// note_blocked() note it once.
void CfsRqTrack::judge_window(int64_t a, Member& ma, int64_t b, Member& mb, Window& w, int64_t t,
                              int line, Range sa, Range sb) {
  VerdictBook& book = *ctx_->book;
  if (!w.established) {
    note_sleeper(a, ma);
    note_sleeper(b, mb);
    return;
  }
  const double T = static_cast<double>(ctx_->tick_ns);
  const double dur = static_cast<double>(t - w.t0);
  // B_ab: how far a may lead b in vruntime once both were picked (per unit weight):
  // a vslice of b plus a tick of a's overrun (SPEC.md §6.2).
  const Range B_ab{w.rb.lo / w.wb.hi + T / w.wa.hi, w.rb.hi / w.wb.lo + T / w.wa.lo};
  const Range B_ba{w.ra.lo / w.wa.hi + T / w.wb.hi, w.ra.hi / w.wa.lo + T / w.wb.lo};
  const Range S = B_ab + B_ba;
  if (dur / std::min(w.wa.lo, w.wb.lo) <= S.lo) {  // too short for the bound to say anything
    note_sleeper(a, ma);
    note_sleeper(b, mb);
    return;
  }
  if (!tight(w.wa) || !tight(w.wb)) {
    note_blocked(a, ma);
    note_blocked(b, mb);
    return;
  }
  const double eps = std::max((w.wa.hi - w.wa.lo) / w.wa.lo, (w.wb.hi - w.wb.lo) / w.wb.lo);
  const double u = w.u + 2 * eps * S.hi;  // PELT moves a group entity's weight (and its v)
  Reasons why = w.why | inexact(w.wa, w.ra) | inexact(w.wb, w.rb);
  // A group entity whose weight is not exactly its shares is reweighted as its load moves, and
  // Linux 6.13..7.0 misplaces the running entity when it reweights it (SPEC.md §4.8): its gap
  // to the other is then not bounded by the pick rule alone.
  const bool promised = w.wa.is_exact() && w.wb.is_exact();
  if (!promised) why |= Reason::WeightChanged;
  const Range x = x_of(w, sa, sb);
  note_extremes(w, x);
  if (ctx_->on_window)
    ctx_->on_window({a,
                     b,
                     w.wa,
                     w.wb,
                     {sa.lo - w.a0.lo, sa.hi - w.a0.hi},
                     {sb.lo - w.b0.lo, sb.hi - w.b0.hi},
                     u,
                     S,
                     w.t0,
                     t});
  const double N = 1024;  // figures at nice-0 weight
  const auto where = [&] {
    return fmt::format("{} and {} (cfs_rq {} on cpu{}, weights {:.0f} : {:.0f})", ctx_->name(a),
                       ctx_->name(b), path_, ctx_->cpu, w.wa.mid(), w.wb.mid());
  };

  // THM-SHARE: over the window, service per unit weight differs by at most S.
  const Range gap = x.abs();
  const auto share_msg = [&] {
    return fmt::format(
        "{} were runnable together for {}: their service differs by {} at weight 1024 "
        "from their weights' proportion (bound {})",
        where(), ms(dur), ms(gap.mid() * N), ms(S.hi * N));
  };
  if (gap.lo - u > S.hi && promised) {
    for (const int64_t s : {a, b})
      book.sure(kShare, s, (gap.lo - u - S.hi) * N, ctx_->cpu, line, share_msg);
  } else if (gap.hi + u > S.lo) {
    for (const int64_t s : {a, b})
      book.possible(kShare, s, why, (gap.hi + u - S.lo) * N, ctx_->cpu, line, share_msg);
  } else {
    book.judged(kShare, a);
    book.judged(kShare, b);
  }

  // THM-LAG-BOUND-LINUX: the lead of one over the other stays within the band all along.
  book.judged(kLag, a);
  book.judged(kLag, b);
  const auto lag_msg = [&](int64_t ahead, int64_t behind, double lead, double band) {
    return [=, &where, this] {
      return fmt::format("{}: {} got ahead of {} by {} at weight 1024 within {} (band {})", where(),
                         ctx_->name(ahead), ctx_->name(behind), ms(lead * N), ms(dur),
                         ms(band * N));
    };
  };
  if (w.from_zero) {
    if (w.max_x.lo - u > B_ab.hi && promised)
      book.sure(kLag, a, (w.max_x.lo - u - B_ab.hi) * N, ctx_->cpu, line,
                lag_msg(a, b, w.max_x.lo, B_ab.hi));
    else if (w.max_x.hi + u > B_ab.lo)
      book.possible(kLag, a, why, (w.max_x.hi + u - B_ab.lo) * N, ctx_->cpu, line,
                    lag_msg(a, b, w.max_x.hi, B_ab.lo));
    if (-w.min_x.hi - u > B_ba.hi && promised)
      book.sure(kLag, b, (-w.min_x.hi - u - B_ba.hi) * N, ctx_->cpu, line,
                lag_msg(b, a, -w.min_x.hi, B_ba.hi));
    else if (-w.min_x.lo + u > B_ba.lo)
      book.possible(kLag, b, why, (-w.min_x.lo + u - B_ba.lo) * N, ctx_->cpu, line,
                    lag_msg(b, a, -w.min_x.lo, B_ba.lo));
    return;
  }
  const double swing_lo = w.max_x.lo - w.min_x.hi, swing_hi = w.max_x.hi - w.min_x.lo;
  const bool a_last = w.t_max_lo > w.t_min_hi;  // the gap's last extreme is a's lead
  const int64_t ahead = a_last ? a : b, behind = a_last ? b : a;
  if (swing_lo - u > S.hi && promised)
    book.sure(kLag, ahead, (swing_lo - u - S.hi) * N, ctx_->cpu, line,
              lag_msg(ahead, behind, swing_lo, S.hi));
  else if (swing_hi + u > S.lo)
    book.possible(kLag, ahead, why, (swing_hi + u - S.lo) * N, ctx_->cpu, line,
                  lag_msg(ahead, behind, swing_hi, S.lo));
}

void CfsRqTrack::leave(int64_t id, int64_t t, int line) { drop(id, t, line, true, {}); }

void CfsRqTrack::leave_unseen(int64_t id, int64_t t, int line, Reasons why) {
  drop(id, t, line, false, why);
}

void CfsRqTrack::drop(int64_t id, int64_t t, int line, bool seen, Reasons why) {
  const auto it = members_.find(id);
  if (it == members_.end()) return;
  Member& m = it->second;
  if (m.wait) judge_wait(id, m, t, line, seen, {}, why);
  if (!seen) {  // its partners' service since its last sighting may fall after it left
    const double since = tau_ - m.tau_seen;
    for (const auto& [other, w, partner] : m.windows) {
      w->u += since / partner->info.weight.lo;
      w->why |= why;
    }
  }
  close_windows(id, m, t, line, false);
  fluid_leave(id, m);
  if (!m.sleeper_noted) --unnoted_;
  count(m, -1);
  if (m.running) --running_;
  by_slot_[m.slot] = nullptr;
  free_slots_.push_back(m.slot);
  spare_lists_.push_back({std::move(m.windows), std::move(m.holds)});  // emptied, with room
  members_.erase(it);
  ++epoch_;
  ++leaves_;  // for the waits in progress
}

void CfsRqTrack::change(const EntityInfo& e, int64_t t, int line, bool during_run) {
  Member* const changed = members_.get(e.id);
  if (!changed) return;
  Member& m = *changed;
  close_windows(e.id, m, t, line, during_run);
  if (m.wait) m.wait->weight_changed = true;
  // A heavier weight counts like a join for the others' waits (their own sums: the changing
  // one's wait is not among them, and while the shared sum is exact, one more whole term in a
  // wait's own keeps its total exact).
  const Range heavier{std::max(0.0, e.weight.lo - m.info.weight.lo),
                      std::max(0.0, e.weight.hi - m.info.weight.lo)};
  if (joined_exact_ && !whole(heavier)) joined_to_waits();
  for (auto& [oid, o] : members_)
    if (o.wait && oid != e.id) {
      o.wait->weight_changed = true;
      o.wait->joined += heavier;
      o.wait->m_hi = std::max(o.wait->m_hi, lag_deficit(e.slice.hi, ctx_->tick_ns));
    }
  if (m.fluid) {  // the phase at the old weight ends; its lag goes on into the next
    fluid_extremes(m);
    const double lag = fluid_ideal(m) - m.received;
    if (ctx_->on_fluid)
      ctx_->on_fluid(
          e.id, {fluid_ideal(m) - m.carried, m.received, m.min_lag, m.max_lag, fluid_exact(m)});
    m.fluid_exact = fluid_exact(m);  // kept into the next phase
    m.adjust = lag;
    m.carried = lag;  // owed in the phase that ended, not in the next one
    m.received = 0;
    w_fluid_ -= m.w_fluid;
    loose_fluid_ -= !tight(m.info.weight);
    m.fluid = false;
  }
  set_info(m, e);
  fluid_join_keep(m);
  open_windows(e.id, m, t);
}

void CfsRqTrack::drift(const EntityInfo& e, int64_t t, int line) {
  Member* const m = members_.get(e.id);
  if (!m) return;
  if (tight(m->info.weight) != tight(e.weight)) {
    change(e, t, line, false);
    return;
  }
  materialize_all(e.id, *m);
  set_info(*m, e);
  for (const auto& [other, w, partner] : m->windows) {
    Range& hull = e.id < other ? w->wa : w->wb;
    hull = hull.hull(e.weight);
  }
  if (!e.weight.is_exact())
    for (auto& [oid, o] : members_)
      if (o.wait) o.wait->weight_changed = true;
}

void CfsRqTrack::finish(int64_t t, int line) {
  finishing_ = true;  // the waits still open are judged as they stand, not counted as delays
  for (auto& [id, m] : members_)
    if (m.wait) judge_wait(id, m, t, line, true, {}, {});
  // Every open window once, as (a, b) with a < b, in ascending order of the pair.
  for (auto ia = members_.begin(); ia != members_.end(); ++ia) {
    auto& [a, m] = *ia;
    auto link = std::upper_bound(m.windows.begin(), m.windows.end(), a,
                                 [](int64_t x, const Link& l) { return x < l.other; });
    for (auto ib = std::next(ia); ib != members_.end(); ++ib) {
      auto& [b, o] = *ib;
      if (link != m.windows.end() && link->other == b) {
        judge_window(a, m, b, o, *link->window, t, line, m.sigma, o.sigma);
        ++link;
      } else {  // implied: never established
        note_sleeper(a, m);
        note_sleeper(b, o);
      }
    }
  }
  for (auto& [id, m] : members_) {
    for (const auto& [other, window, partner] : m.windows)
      if (id < other) free_.push_back(window);
    m.windows.clear();
    m.holds.clear();
  }
  for (auto& [id, m] : members_) {
    fluid_extremes(m);
    if (m.fluid && ctx_->on_fluid)
      ctx_->on_fluid(
          id, {fluid_ideal(m) - m.carried, m.received, m.min_lag, m.max_lag, fluid_exact(m)});
  }
}

void CfsRqTrack::fluid_join(Member& m) {
  m.adjust = m.carried = 0;
  m.fluid_exact = true;
  m.received = 0;
  m.min_lag = m.max_lag = 0;
  m.v0 = v_;
  fluid_join_keep(m);
}

void CfsRqTrack::fluid_join_keep(Member& m) {
  if (!m.info.weight.bounded() && m.info.fluid_weight <= 0) return;
  m.fluid = true;
  m.taints0 = taints_;
  loose_fluid_ += !tight(m.info.weight);
  m.w_fluid = m.info.fluid_weight > 0 ? m.info.fluid_weight : m.info.weight.mid();
  m.v0 = v_;
  w_fluid_ += m.w_fluid;
}

void CfsRqTrack::fluid_extremes(Member& m) {
  if (!m.fluid) return;
  const double lag = fluid_ideal(m) - m.received;
  m.min_lag = std::min(m.min_lag, lag);
  m.max_lag = std::max(m.max_lag, lag);
}

// Leaving, an entity's lag (owed minus received) goes to those that stay, in proportion to
// their weights — the fluid ideal renormalised, as V is when an entity leaves (TR eq. 18) — so
// what it was owed while it stayed is settled at what it received, and the ideals of a cfs_rq
// add up to the service it got. Each that stays is owed w_i · lag / W more: the fluid clock
// moves by lag / W, as it moves by δ / W when the cfs_rq runs, so no member is touched.
void CfsRqTrack::fluid_leave(int64_t id, Member& m) {
  if (!m.fluid) return;
  fluid_extremes(m);
  const double lag = fluid_ideal(m) - m.received;
  m.fluid_exact = fluid_exact(m);
  w_fluid_ -= m.w_fluid;
  loose_fluid_ -= !tight(m.info.weight);
  m.fluid = false;
  if (w_fluid_ > 1e-9) v_ += lag / w_fluid_;
  if (!m.fluid_exact) ++taints_;  // the lag it leaves to the others is not known either
  if (ctx_->on_fluid)
    ctx_->on_fluid(id, {m.received - m.carried, m.received, m.min_lag, m.max_lag, m.fluid_exact});
}

}  // namespace vlag::kernel
