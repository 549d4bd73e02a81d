// What a check found: per SPEC.md ID how often it was checked and what the checks gave on the
// verdict lattice of SPEC.md §6.3 (spec/verdict.h: violated, inconclusive with its reason, held,
// not applicable — here a failure the preset does not promise), with its worst figure; each
// violation with its evidence (SMT-LIB file, replayable window), each failure that is not a
// violation as a finding with its reason, trace problems kept apart from scheduler violations,
// and the service figures of layer 1.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/witness.h"
#include "spec/verdict.h"
#include "trace/input_error.h"

namespace vlag::checker {

struct Violation {
  std::string id;
  std::string file;
  int64_t line = 0;
  int64_t event_index = 0;       // 0-based position among the trace's events
  int64_t rq_event_index = 0;    // … among its runqueue's events
  std::optional<RunqueueId> rq;  // the runqueue, named in a trace of several
  std::string detail;
  Witness witness;
  std::optional<bool> z3_sat;  // the arbiter's verdict (nullopt: not re-checked)
  std::string smt_file;
  std::string window_file;
  std::string window_note;  // why no window, or how long it is
};

/// A failure that is not a violation: inconclusive (the trace cannot show the property, for
/// its reasons) or not applicable (the preset does not promise the property there).
struct Finding {
  std::string id;
  Verdict verdict = Verdict::Inconclusive;
  Reasons reasons;
  std::string file;
  int64_t line = 0;
  std::optional<RunqueueId> rq;  // the runqueue, named in a trace of several
  std::string detail;
};

struct InvariantStats {
  int64_t checked = 0;  // judgements made: held + violated + inconclusive + not_promised
  int64_t violated = 0;
  int64_t inconclusive = 0;  // failures the trace cannot settle (Finding::reasons)
  int64_t not_promised = 0;  // failures the preset documents as its behaviour (SPEC.md §6)
  std::string worst;         // the worst figure seen, against its bound where it has one
  double worst_ratio = 0;    // how that figure ranks (|value| / bound, or |value|)
  bool verdict = true;       // false: reported as a figure only
  std::array<int64_t, kReasonCount> inconclusive_by_reason{};

  int64_t held() const {
    return verdict ? std::max<int64_t>(0, checked - violated - inconclusive - not_promised) : 0;
  }
};

struct Problem {
  trace::Fault fault;
  std::string message;  // file:line: field '…': what [class]
  std::string file;
  int64_t line = 0;
  std::string field;
};

struct Report {
  std::vector<std::string> files;
  int64_t events = 0;
  std::map<std::string, InvariantStats> stats;  // by SPEC.md ID
  std::vector<Violation> violations;            // the first kMaxKept in trace order
  int64_t violation_count = 0;
  std::vector<Finding> findings;  // inconclusive and not promised, the first kMaxKept
  int64_t finding_count = 0;
  std::vector<Problem> problems;  // skipped under --keep-going (the first kMaxKept)
  int64_t problem_count = 0;
  std::vector<std::string> notes;  // scope notes: what was not checked and why

  static constexpr size_t kMaxKept = 50;

  bool violated() const { return violation_count > 0; }
  int64_t inconclusive_count() const {
    int64_t n = 0;
    for (const auto& [id, s] : stats) n += s.inconclusive;
    return n;
  }
  /// The join of every verdict the report holds (SPEC.md §6.3).
  Verdict worst() const {
    if (violated()) return Verdict::Violated;
    if (inconclusive_count() > 0) return Verdict::Inconclusive;
    for (const auto& [id, s] : stats)
      if (s.held() > 0) return Verdict::Held;
    return Verdict::NotApplicable;
  }
  /// Problems and findings the report counted but does not list.
  int64_t problems_left_out() const {
    return problem_count - static_cast<int64_t>(problems.size());
  }
  int64_t violations_left_out() const {
    return violation_count - static_cast<int64_t>(violations.size());
  }
  int64_t findings_left_out() const {
    return finding_count - static_cast<int64_t>(findings.size());
  }
};

}  // namespace vlag::checker

namespace vlag::checker {

/// A violation of `id` found at one event of a trace, with its witness.
inline Violation violation_at(std::string id, std::string file, int64_t line, int64_t event_index,
                              std::string detail, Witness witness) {
  Violation v;
  v.id = std::move(id);
  v.file = std::move(file);
  v.line = line;
  v.event_index = event_index;
  v.detail = std::move(detail);
  v.witness = std::move(witness);
  return v;
}

/// Counts a violation under its ID and keeps its evidence while fewer than kMaxKept are kept.
inline void record(Report& report, Violation v) {
  InvariantStats& s = report.stats[v.id];
  ++s.violated;
  if (s.worst.empty()) s.worst = v.detail;
  ++report.violation_count;
  if (report.violations.size() < Report::kMaxKept) report.violations.push_back(std::move(v));
}

/// Counts a failure that is not a violation under its ID and keeps it while fewer than kMaxKept
/// are kept.
inline void record(Report& report, Finding f) {
  InvariantStats& s = report.stats[f.id];
  if (f.verdict == Verdict::Inconclusive) {
    ++s.inconclusive;
    for (size_t i = 0; i < kReasonCount; ++i)
      if (f.reasons.has(static_cast<Reason>(i))) ++s.inconclusive_by_reason[i];
  } else {
    ++s.not_promised;
  }
  ++report.finding_count;
  if (report.findings.size() < Report::kMaxKept) report.findings.push_back(std::move(f));
}

}  // namespace vlag::checker
