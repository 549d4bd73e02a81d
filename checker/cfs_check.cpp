#include "checker/cfs_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "spec/cfs_policy.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::checker {
namespace {

using trace::EventKind;

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }
int64_t to_i64(const Exact& x) { return x.get_num().get_si(); }

// entity_is_long_sleeper's threshold, (1 << 63) / NICE_0_LOAD ns.
constexpr int64_t kLongSleepNs = static_cast<int64_t>((uint64_t{1} << 63) / kNice0Weight);

Witness compare(const char* lhs_name, const Exact& lhs, const char* op, const char* rhs_name,
                const Exact& rhs, std::string statement) {
  Witness w;
  w.add(lhs_name, Sort::Int, lhs);
  w.add(rhs_name, Sort::Int, rhs);
  w.claim = fmt::format("({} {} {})", op, lhs_name, rhs_name);
  w.statement = std::move(statement);
  return w;
}

// A violation the trace shows directly, with nothing to compute: the claim is the fact itself.
Witness fact(std::string statement) {
  Witness w;
  w.claim = "true";
  w.statement = std::move(statement);
  return w;
}

}  // namespace

CfsChecker::CfsChecker(const trace::Header& header, std::string file, RunqueueId, Report& report)
    : tun_(cfs::tunables_for(header.params)),
      latency_nice_(header.params.preset.name == kCfsLatencyNicePolicy),
      file_(std::move(file)),
      report_(report) {
  report_.notes.push_back(file_ + ": a " + header.params.preset.name +
                          " trace: judged by the CFS invariants of SPEC.md §8");
}

void CfsChecker::violate(const char* id, std::string detail, Witness w) {
  Violation v = violation_at(id, file_, line_, trace_index_, std::move(detail), std::move(w));
  v.rq_event_index = index_;
  record(report_, std::move(v));
}

// CFS-MIN-VRUNTIME-MONOTONIC: V, the runqueue's min_vruntime, never moves back.
void CfsChecker::check_min_vruntime(const trace::Event& e) {
  if (!e.V) return;
  if (V_) {
    checked(ids::kCfsMinVruntimeMonotonic);
    if (*e.V < *V_)
      violate(ids::kCfsMinVruntimeMonotonic,
              fmt::format("min_vruntime went back from {} to {}", V_->get_str(), e.V->get_str()),
              compare("V_after", *e.V, "<", "V_before", *V_, "min_vruntime is monotonic"));
  }
  V_ = e.V;
}

// CFS-PLACE-SLEEPER: an enqueued entity is never more than the sleeper credit behind
// min_vruntime, and one that slept is placed at max(its vruntime, min_vruntime − credit), or at
// min_vruntime − credit after a sleep longer than the long-sleeper threshold.
void CfsChecker::check_place(const trace::Event& e, const Task* before) {
  if (!e.state.vruntime || !e.V) return;
  checked(ids::kCfsPlaceSleeper);
  const Exact& v = *e.state.vruntime;
  const Exact floor = *e.V - ex(tun_.sleeper_credit_ns());
  if (v < floor) {
    violate(ids::kCfsPlaceSleeper,
            fmt::format("task {} enqueued at vruntime {}, below min_vruntime {} − credit {}",
                        *e.entity(), v.get_str(), e.V->get_str(), tun_.sleeper_credit_ns()),
            compare("v", v, "<", "floor", floor, "v >= min_vruntime - sleeper credit"));
    return;
  }
  if (!before || !before->slept) return;
  const Exact expected = before->v < floor ? floor : before->v;
  const bool long_sleep = before->last_ran >= 0 && e.t - before->last_ran > kLongSleepNs;
  if (v == expected || (long_sleep && v == floor)) return;
  violate(ids::kCfsPlaceSleeper,
          fmt::format("task {} woke at vruntime {}, expected max({}, {}) = {}", *e.entity(),
                      v.get_str(), before->v.get_str(), floor.get_str(), expected.get_str()),
          compare("v", v, "distinct", "expected", expected,
                  "a sleeper wakes at max(v, min_vruntime - sleeper credit)"));
}

int CfsChecker::wakeup_preempt(const Task& curr, const Task& se) const {
  return cfs::wakeup_preempt(to_i64(curr.v - se.v), to_i64(curr.key - curr.v),
                             to_i64(se.key - se.v), se.weight, tun_, latency_nice_);
}

// The pick rule without the latency tree: the leftmost, or a buddy (skip's second, next, last)
// that wakeup_preempt_entity does not find too far ahead of a leftmost entity.
bool CfsChecker::buddy_bound_allows(const Task& p, const Exact& min_v) const {
  if (p.v == min_v) return true;
  for (const auto& [id, l] : tasks_)
    if (l.status == Status::Queued && l.v == min_v && wakeup_preempt(p, l) < 1) return true;
  return false;
}

// CFS-PICK-LEFTMOST and, for cfs-latency-nice, CFS-LATENCY-PICK.
void CfsChecker::check_pick(const trace::Event& e) {
  std::optional<Exact> min_v;
  for (const auto& [id, t] : tasks_)
    if (t.status == Status::Queued && (!min_v || t.v < *min_v)) min_v = t.v;
  checked(ids::kCfsPickLeftmost);
  if (!e.entity()) {
    if (min_v)
      violate(ids::kCfsPickLeftmost, "the CPU went idle with tasks queued",
              fact("a pick finds a task whenever one is queued"));
    return;
  }
  auto it = tasks_.find(*e.entity());
  if (it == tasks_.end() || it->second.status != Status::Queued || !min_v) {
    violate(ids::kCfsPickLeftmost, fmt::format("picked task {} is not queued", *e.entity()),
            fact("pick takes a queued task"));
    return;
  }
  const Task& p = it->second;
  // The latency tree at this pick: the waiting entities on it, and the previous curr if
  // put_prev_entity put it there. Its leftmost may be any entity with the least key.
  std::vector<std::pair<EntityId, const Task*>> leftmost;
  if (latency_nice_) {
    for (const auto& [id, t] : tasks_) {
      if (t.status != Status::Queued || !(curr_ == id ? enters_latency_tree(t) : t.on_latency_tree))
        continue;
      if (!leftmost.empty() && t.key < leftmost.front().second->key) leftmost.clear();
      if (leftmost.empty() || t.key == leftmost.front().second->key) leftmost.push_back({id, &t});
    }
  }
  bool latency_pick = false;
  for (const auto& [id, t] : leftmost) latency_pick |= id == *e.entity();
  if (!latency_pick && !buddy_bound_allows(p, *min_v))
    violate(ids::kCfsPickLeftmost,
            fmt::format("picked task {} at vruntime {}, beyond the wakeup granularity of the "
                        "leftmost at {}",
                        *e.entity(), p.v.get_str(), min_v->get_str()),
            compare("v_picked", p.v, ">", "v_leftmost", *min_v,
                    "pick takes the leftmost entity or a buddy within the wakeup granularity"));
  if (leftmost.empty()) return;
  checked(ids::kCfsLatencyPick);
  if (latency_pick) return;
  for (const auto& [id, t] : leftmost)
    if (wakeup_preempt(*t, p) == 1) return;
  // wakeup_preempt_entity(L, p) < 1 ⟺ L.v − p.v ≤ min(offset + gran, get_latency_max()).
  const auto& [lid, l] = leftmost.front();
  const int64_t offset = cfs::wakeup_latency_gran(to_i64(l->key - l->v), to_i64(p.key - p.v), tun_);
  const int64_t gran = cfs::calc_delta_fair(tun_.wakeup_granularity_ns, p.weight);
  violate(ids::kCfsLatencyPick,
          fmt::format("picked task {} (vruntime {}) over the latency tree's leftmost, task {} "
                      "(vruntime {}), which is not too far ahead of it",
                      *e.entity(), p.v.get_str(), lid, l->v.get_str()),
          compare("vdiff", l->v - p.v, "<=", "bound",
                  ex(std::min(offset + gran, tun_.latency_max_ns())),
                  "the latency tree's leftmost runs unless it is too far ahead of the choice"));
}

// Whether put_prev_entity puts the running task on the latency tree (v9 8/9): latency
// sensitive and cut short before min_granularity.
bool CfsChecker::enters_latency_tree(const Task& t) const {
  return latency_nice_ && t.key < t.v && t.ran_since_pick < tun_.min_granularity_ns;
}

void CfsChecker::apply(const trace::Event& e) {
  if (e.kind == EventKind::Reweight && e.entity() && curr_ == e.entity())
    tasks_[*e.entity()].ran_since_pick = 0;  // set_next_entity starts a new slice
  if (e.kind == EventKind::Pick) {
    if (curr_) {
      Task& prev = tasks_[*curr_];
      if (prev.status == Status::Queued) prev.on_latency_tree = enters_latency_tree(prev);
    }
    curr_ = e.entity();
    if (e.entity()) {
      Task& t = tasks_[*e.entity()];
      t.ran_since_pick = 0;
      t.last_ran = e.t;
    }
  }
  if (e.kind == EventKind::Run && curr_) {
    Task& t = tasks_[*curr_];
    t.ran_since_pick += e.delta;
    t.last_ran = e.t;
  }
  if (!e.entity()) return;
  if (const auto it = tasks_.find(*e.entity()); it != tasks_.end()) count(it->second, -1);
  // A task that leaves for another CPU is gone from this runqueue like an exiting one; one that
  // arrives is known from here on, sleeping, with the vruntime its attach event reports.
  if (e.kind == EventKind::Exit || e.kind == EventKind::Detach) {
    tasks_.erase(*e.entity());
    return;
  }
  Task& t = tasks_[*e.entity()];
  const trace::EntityFields& s = e.state;
  if (s.weight) t.weight = *s.weight;
  if (e.kind == EventKind::New || e.kind == EventKind::Attach) t.weight = e.weight;
  if (e.kind == EventKind::Reweight) t.weight = e.weight;
  if (s.vruntime) t.v = *s.vruntime;
  t.key = s.deadline ? *s.deadline : t.v;
  if (s.eligible) t.on_latency_tree = *s.eligible;
  if (s.status) t.status = *s.status;
  if (e.kind == EventKind::Wakeup) t.status = Status::Queued;
  if (e.kind == EventKind::Sleep || e.kind == EventKind::Dequeue) {
    t.status = Status::Sleeping;
    t.on_latency_tree = false;
    t.slept = e.kind == EventKind::Sleep;
    if (curr_ == e.entity()) curr_.reset();
  }
  count(t, +1);
}

void CfsChecker::count(const Task& t, int sign) {
  if (t.status == Status::Sleeping) return;
  level_.queued += sign;
  level_.load += sign * t.weight;
}

std::optional<MemberFacts> CfsChecker::member(EntityId se) const {
  const auto it = tasks_.find(se);
  if (it == tasks_.end()) return std::nullopt;
  return MemberFacts{it->second.status, it->second.weight};
}

void CfsChecker::consume(const trace::Event& e, int64_t line, int64_t index) {
  line_ = line;
  trace_index_ = index;
  check_min_vruntime(e);
  if (e.kind == EventKind::Wakeup) {
    const auto it = e.entity() ? tasks_.find(*e.entity()) : tasks_.end();
    check_place(e, it == tasks_.end() ? nullptr : &it->second);
  }
  if (e.kind == EventKind::Pick) check_pick(e);
  apply(e);
  ++index_;
}

}  // namespace vlag::checker
