#include "checker/checker.h"

#include <algorithm>

namespace vlag::checker {
namespace {

// Per ID: the counts add up; the worst figure is the largest, the earlier one on a tie (as when
// one report takes every figure in turn); the verdict is the last report's.
void merge_stats(const InvariantStats& from, InvariantStats& into) {
  into.checked += from.checked;
  into.violated += from.violated;
  into.not_promised += from.not_promised;
  if (from.worst_ratio > into.worst_ratio || into.worst.empty()) {
    into.worst = from.worst;
    into.worst_ratio = from.worst_ratio;
  }
  into.verdict = from.verdict;
}

}  // namespace

void merge_runqueue_reports(const std::vector<RunqueueReport>& parts, Report& into) {
  const bool several = parts.size() > 1;
  std::vector<Violation> kept;
  for (const RunqueueReport& part : parts) {
    const Report& r = *part.report;
    for (const auto& [id, st] : r.stats) merge_stats(st, into.stats[id]);
    into.violation_count += r.violation_count;
    for (Violation v : r.violations) {
      if (several) v.rq = part.rq;
      kept.push_back(std::move(v));
    }
  }
  // Each runqueue's violations are in trace order; so are all of them, by line.
  std::stable_sort(kept.begin(), kept.end(),
                   [](const Violation& a, const Violation& b) { return a.line < b.line; });
  for (Violation& v : kept)
    if (into.violations.size() < Report::kMaxKept) into.violations.push_back(std::move(v));
  for (const RunqueueReport& part : parts) {
    for (const std::string& note : part.report->notes) {
      const bool everywhere = std::all_of(parts.begin(), parts.end(), [&](const RunqueueReport& p) {
        return std::find(p.report->notes.begin(), p.report->notes.end(), note) !=
               p.report->notes.end();
      });
      if (!several)
        into.notes.push_back(note);
      else if (!everywhere)
        into.notes.push_back("rq " + std::to_string(part.rq) + ": " + note);
      else if (part.rq == parts.front().rq)
        into.notes.push_back(note);
    }
  }
}

}  // namespace vlag::checker
