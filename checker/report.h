// What a check found: per SPEC.md ID how often it was checked and violated with its worst
// figure, each violation with its evidence (SMT-LIB file, replayable window), trace problems
// kept apart from scheduler violations, and the service figures of layer 1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/witness.h"
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

struct InvariantStats {
  int64_t checked = 0;
  int64_t violated = 0;
  int64_t not_promised = 0;  // failures the preset documents as its behaviour (SPEC.md §6)
  std::string worst;         // the worst figure seen, against its bound
  double worst_ratio = 0;    // |value| / bound of that figure (service figures)
  bool verdict = true;       // false: reported as a figure only
};

struct Problem {
  trace::Fault fault;
  std::string message;
};

struct Report {
  std::vector<std::string> files;
  int64_t events = 0;
  std::map<std::string, InvariantStats> stats;  // by SPEC.md ID
  std::vector<Violation> violations;            // the first kMaxKept in trace order
  int64_t violation_count = 0;
  std::vector<Problem> problems;  // skipped under --keep-going (the first kMaxKept)
  int64_t problem_count = 0;
  std::vector<std::string> notes;  // scope notes: what was not checked and why

  static constexpr size_t kMaxKept = 50;

  bool violated() const { return violation_count > 0; }
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

}  // namespace vlag::checker
