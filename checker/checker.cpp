#include "checker/checker.h"

#include <algorithm>

namespace vlag::checker {
namespace {

// Per ID: the counts add up; the worst figure is the largest, the earlier one on a tie (as when
// one report takes every figure in turn); the verdict is the last report's.
void merge_stats(const InvariantStats& from, InvariantStats& into) {
  into.checked += from.checked;
  into.violated += from.violated;
  into.inconclusive += from.inconclusive;
  into.not_promised += from.not_promised;
  for (size_t i = 0; i < kReasonCount; ++i)
    into.inconclusive_by_reason[i] += from.inconclusive_by_reason[i];
  if (from.worst_ratio > into.worst_ratio || into.worst.empty()) {
    into.worst = from.worst;
    into.worst_ratio = from.worst_ratio;
  }
  into.verdict = from.verdict;
}

}  // namespace

void merge_runqueue_reports(const std::vector<RunqueueReport>& parts, Report& into) {
  const bool several = std::count_if(parts.begin(), parts.end(),
                                     [](const RunqueueReport& p) { return !p.across; }) > 1;
  std::vector<Violation> kept;
  std::vector<Finding> found;
  for (const RunqueueReport& part : parts) {
    const Report& r = *part.report;
    for (const auto& [id, st] : r.stats) merge_stats(st, into.stats[id]);
    into.violation_count += r.violation_count;
    into.finding_count += r.finding_count;
    for (Violation v : r.violations) {
      if (several && !part.across) v.rq = part.rq;
      kept.push_back(std::move(v));
    }
    for (Finding f : r.findings) {
      if (several && !part.across) f.rq = part.rq;
      found.push_back(std::move(f));
    }
  }
  // Each runqueue's violations and findings are in trace order; so are all of them, by line.
  const auto by_line = [](const auto& a, const auto& b) { return a.line < b.line; };
  std::stable_sort(kept.begin(), kept.end(), by_line);
  std::stable_sort(found.begin(), found.end(), by_line);
  for (Violation& v : kept)
    if (into.violations.size() < Report::kMaxKept) into.violations.push_back(std::move(v));
  for (Finding& f : found)
    if (into.findings.size() < Report::kMaxKept) into.findings.push_back(std::move(f));
  for (const RunqueueReport& part : parts) {
    for (const std::string& note : part.report->notes) {
      const bool everywhere = std::all_of(parts.begin(), parts.end(), [&](const RunqueueReport& p) {
        return p.across || std::find(p.report->notes.begin(), p.report->notes.end(), note) !=
                               p.report->notes.end();
      });
      if (!several || part.across)
        into.notes.push_back(note);
      else if (!everywhere)
        into.notes.push_back("rq " + std::to_string(part.rq) + ": " + note);
      else if (part.rq == parts.front().rq)
        into.notes.push_back(note);
    }
  }
}

}  // namespace vlag::checker
