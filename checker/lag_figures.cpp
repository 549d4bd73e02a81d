#include "checker/lag_figures.h"

#include <fmt/format.h>

#include <cmath>

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

void LagFigures::at_decision(const View& view, const Exact& V, bool steady, bool cpu_bound,
                             int64_t line) {
  const int64_t tick = params_.tick_ns();
  for (const auto& [id, e] : view.entities()) {
    if (!in_queue(e)) continue;
    Exact lag = (V - e.vruntime) * static_cast<long>(e.weight) / static_cast<long>(kNice0Weight);
    lag.canonicalize();
    const double l = lag.get_d();
    const bool above = lag > 0;
    const int64_t paper_bound = above ? rules::paper_lag_upper(e.slice, tick) : e.slice;
    sample(paper_worst_, e, l, steady ? paper_bound : 0,
           rules::paper_lag_bound_holds(lag, e.slice, tick), above ? "< max(r, q) = " : "> -r = -",
           kNotSteady, line);
    if (paper_ && steady) judge_paper(e, lag, V, line);
    if (paper_) continue;
    sample(linux_worst_, e, l, steady && cpu_bound ? rules::linux_lag_bound(e.slice, tick) : 0,
           rules::linux_lag_bound_holds(lag, e.slice, tick),
           above ? "<= r + TICK = " : ">= -(r + TICK) = -", steady ? kNotCpuBound : kNotSteady,
           line);
  }
}

void LagFigures::sample(Worst& w, const ViewEntity& e, double lag, int64_t bound, bool holds,
                        const std::string& side, const char* why, int64_t line) {
  ++w.samples;
  const std::string who = fmt::format("{} lag {} at line {}", entity_label(e), ms(lag), line);
  if (std::fabs(lag) > w.lag) {
    w.lag = std::fabs(lag);
    w.largest = who;
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
    w.worst_judged = fmt::format("{} (bound {}{})", who, side, ms(static_cast<double>(bound)));
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
