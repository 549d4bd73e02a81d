#include "checker/lag_figures.h"

#include <fmt/format.h>

#include <cmath>

#include "checker/checker_bug.h"
#include "rules/invariants.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::checker {
namespace {

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }
std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

constexpr char kNotSteady[] = "not a steady system (a join or leave at non-zero lag)";
constexpr char kNotCpuBound[] = "not a steady system of CPU-bound entities (one left the queue)";

}  // namespace

LagFigures::LagFigures(const Params& params, Report& report, std::string file)
    : params_(params),
      report_(report),
      file_(std::move(file)),
      paper_(promised(ids::kThmLagBound, params.preset)) {}

void LagFigures::unmeasurable(int64_t line) {
  if (unmeasurable_from_ == 0) unmeasurable_from_ = line;
}

// One queued entity's lag at a decision point, as the samples need it: in ns as a double (as
// mpq_get_d gives it), and whether each theorem's bound holds.
struct LagFigures::Lag {
  double ns = 0;
  bool above = false;  // lag > 0
  bool paper_holds = false, linux_holds = false;
};

// Exactly, by the rules of rules/invariants.h.
auto LagFigures::exact_lag(const ViewEntity& e, const Exact& V, Exact& lag) const -> Lag {
  const int64_t tick = params_.tick_ns();
  lag = (V - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(kNice0Weight);
  lag.canonicalize();
  return {lag.get_d(), lag > 0, rules::paper_lag_bound_holds(lag, e.slice, tick),
          rules::linux_lag_bound_holds(lag, e.slice, tick)};
}

// The same in integers when V and v are s64 (every decision point of a Linux-arithmetic trace):
// with x = w·(V − v) = N·lag, the bounds multiplied through by N. x/N is then a double exactly
// when |x| < 2^53 (N is a power of two); false otherwise, for the exact form.
bool LagFigures::integer_lag(const ViewEntity& e, int64_t V, Lag& lag) const {
  const std::optional<int64_t>& v = e.v64;
  if (!v) return false;
  const __int128 x = (static_cast<__int128>(V) - *v) * e.weight;
  constexpr __int128 kExactDouble = __int128{1} << 53;
  if (x >= kExactDouble || x <= -kExactDouble) return false;
  static_assert((kNice0Weight & (kNice0Weight - 1)) == 0, "x/N exact in a double");
  const int64_t tick = params_.tick_ns();
  const __int128 N = kNice0Weight, r = e.slice;
  const __int128 paper_upper = rules::paper_lag_upper(e.slice, tick),
                 linux_bound = rules::linux_lag_bound(e.slice, tick);
  lag.ns = static_cast<double>(static_cast<int64_t>(x)) / static_cast<double>(kNice0Weight);
  lag.above = x > 0;
  lag.paper_holds = x > -r * N && x < paper_upper * N;
  lag.linux_holds = x >= -linux_bound * N && x <= linux_bound * N;
  return true;
}

// Once the system is not steady neither theorem has a bound, and a decision point's samples
// only count and compete for the largest |lag|: one walk in integers finds the pick's largest,
// the first in id order, which is the one that would have become the largest sample by sample.
// False, with nothing changed, when some queued entity's lag is not an integer sample.
bool LagFigures::largest_only(const View& view, const Exact& V, int64_t V64, int64_t line) {
  constexpr int64_t kExactDouble = int64_t{1} << 53;
  const ViewEntity* top = nullptr;
  int64_t top_x = -1;  // |w·(V − v)| of top
  int64_t n = 0;
  for (const auto& [id, e] : view.entities()) {
    if (!in_queue(e)) continue;
    if (!e.v64) return false;
    // In 64 bits: a product that overflows them is beyond 2^53 as well.
    int64_t d = 0, x = 0;
    if (__builtin_sub_overflow(V64, *e.v64, &d) || __builtin_mul_overflow(d, e.weight, &x) ||
        x >= kExactDouble || x <= -kExactDouble)
      return false;
    ++n;
    if ((x < 0 ? -x : x) > top_x) {
      top_x = x < 0 ? -x : x;
      top = &e;
    }
  }
  if (n == 0) return true;
  // The exact rules confirm the same samples as one by one: every kAuditPeriod-th.
  const int64_t from = integer_samples_;
  integer_samples_ += n;
  if (integer_samples_ / View::kAuditPeriod != from / View::kAuditPeriod) {
    int64_t k = from;
    for (const auto& [id, e] : view.entities()) {
      if (!in_queue(e) || ++k % View::kAuditPeriod != 0) continue;
      Lag lag;
      integer_lag(e, V64, lag);
      confirm(e, V, lag);
    }
  }
  Lag lag;
  integer_lag(*top, V64, lag);
  const auto samples = [&](Worst& w) {
    sample(w, *top, lag.ns, 0, lag.paper_holds, "", kNotSteady, line);
    w.samples += n - 1;  // the others, none larger
  };
  samples(paper_worst_);
  if (!paper_) samples(linux_worst_);
  return true;
}

void LagFigures::at_decision(const View& view, const Exact& V, bool steady, bool cpu_bound,
                             int64_t line) {
  const int64_t tick = params_.tick_ns();
  const std::optional<int64_t> V64 = as_s64(V);
  if (V64 && !steady && largest_only(view, V, *V64, line)) return;
  for (const auto& [id, e] : view.entities()) {
    if (!in_queue(e)) continue;
    // The exact lag only where a verdict needs it (paper, steady) or the integers cannot say.
    Lag lag;
    if (V64 && !(paper_ && steady) && integer_lag(e, *V64, lag)) {
      // Every kAuditPeriod-th integer sample, the exact rules confirm it.
      if (++integer_samples_ % View::kAuditPeriod == 0) confirm(e, V, lag);
    } else {
      lag = exact_lag(e, V, lag_);
    }
    const int64_t paper_bound = lag.above ? rules::paper_lag_upper(e.slice, tick) : e.slice;
    sample(paper_worst_, e, lag.ns, steady ? paper_bound : 0, lag.paper_holds,
           lag.above ? "< max(r, q) = " : "> -r = -", kNotSteady, line);
    if (paper_ && steady) judge_paper(e, lag_, V, line);
    if (paper_) continue;
    sample(linux_worst_, e, lag.ns, steady && cpu_bound ? rules::linux_lag_bound(e.slice, tick) : 0,
           lag.linux_holds, lag.above ? "<= r + TICK = " : ">= -(r + TICK) = -",
           steady ? kNotCpuBound : kNotSteady, line);
  }
}

void LagFigures::confirm(const ViewEntity& e, const Exact& V, const Lag& fast) const {
  Exact lag;
  const Lag exact = exact_lag(e, V, lag);
  if (exact.ns != fast.ns || exact.above != fast.above || exact.paper_holds != fast.paper_holds ||
      exact.linux_holds != fast.linux_holds)
    throw CheckerBug(fmt::format(
        "the integer form of {}'s lag at V {} gives {} ns (bounds {} {}) where the exact rules "
        "give {} (bounds {} {})",
        entity_label(e), V.get_str(), fast.ns, fast.paper_holds, fast.linux_holds, lag.get_str(),
        exact.paper_holds, exact.linux_holds));
}

// The descriptions are written only for a sample that becomes the worst of its kind.
void LagFigures::sample(Worst& w, const ViewEntity& e, double lag, int64_t bound, bool holds,
                        const char* side, const char* why, int64_t line) {
  ++w.samples;
  const auto who = [&] {
    return fmt::format("{} lag {} at line {}", entity_label(e), ms(lag), line);
  };
  if (std::fabs(lag) > w.lag) {
    w.lag = std::fabs(lag);
    w.largest = who();
  }
  if (bound == 0) {
    if (w.unjudged_from == 0) {
      w.unjudged_from = line;
      w.why_unjudged = why;
    }
    return;
  }
  ++w.judged;
  if (!holds) ++w.beyond;
  const double ratio = std::fabs(lag) / static_cast<double>(bound);
  if (ratio > w.ratio) {
    w.ratio = ratio;
    w.worst_judged = fmt::format("{} (bound {}{})", who(), side, ms(static_cast<double>(bound)));
  }
}

// THM-LAG-BOUND where the preset promises it and the system is steady: a verdict.
void LagFigures::judge_paper(const ViewEntity& e, const Exact& lag, const Exact& V, int64_t line) {
  const int64_t tick = params_.tick_ns();
  ++report_.stats[ids::kThmLagBound].checked;
  if (rules::paper_lag_bound_holds(lag, e.slice, tick)) return;
  Violation v;
  v.id = ids::kThmLagBound;
  v.file = file_;
  v.line = line;
  v.detail = fmt::format("{} lag {} ns outside (-{}, {}) ns at a decision point, lag = w(V - v)/{}",
                         entity_label(e), lag.get_str(), e.slice,
                         rules::paper_lag_upper(e.slice, tick), kNice0Weight);
  Witness& w = v.witness;
  w.statement = std::string(ids::kThmLagBound) +
                ": -r_k < lag_k < max(r_k, q), lag_k = w_k*(V - v_k)/1024 (SPEC.md §2)";
  w.add("w_k", Sort::Int, ex(e.weight));
  w.add("r_k", Sort::Int, ex(e.slice));
  w.add("q", Sort::Int, ex(tick));
  w.add("V", Sort::Real, V);
  w.add("v_k", Sort::Real, e.vruntime);
  w.add("lag_k", Sort::Real, lag);
  w.definitions.push_back("(= lag_k (/ (* w_k (- V v_k)) 1024.0))");
  w.claim = "(not (and (< (- r_k) lag_k) (< lag_k (ite (> r_k q) r_k q))))";
  record(report_, std::move(v));
}

void LagFigures::write(const char* id, const Worst& w, bool verdict) {
  if (w.samples == 0) return;
  InvariantStats& s = report_.stats[id];
  s.verdict = verdict;
  if (!verdict) s.checked += w.samples;
  if (w.unjudged_from == 0) {
    s.worst = w.worst_judged;
    s.worst_ratio = w.ratio;
  } else {
    s.worst = fmt::format("max |lag| {}: {}; no bound from line {}: {}", ms(w.lag), w.largest,
                          w.unjudged_from, w.why_unjudged);
    if (w.ratio > 0) s.worst += "; before it " + w.worst_judged;
    s.worst_ratio = std::max(w.ratio, 0.0);
  }
  // A verdict reports its failures itself; a figure says how many of its samples failed.
  if (!verdict && w.beyond > 0)
    s.worst += fmt::format(
        "; {} of {} judged sample(s) beyond the bound{}", w.beyond, w.judged,
        promised(id, params_.preset) ? "" : ", which the preset does not promise (SPEC.md §6)");
}

void LagFigures::finish() {
  write(ids::kThmLagBound, paper_worst_, paper_);
  if (!paper_) write(ids::kThmLagBoundLinux, linux_worst_, false);
  if (unmeasurable_from_ > 0)
    report_.notes.push_back(fmt::format(
        "{}:{}: {} and {} are measured up to here: from this pick on the trace reports no V and "
        "the shadow reference has stopped, so no vruntime is known",
        file_, unmeasurable_from_, ids::kThmLagBound, ids::kThmLagBoundLinux));
}

}  // namespace vlag::checker
