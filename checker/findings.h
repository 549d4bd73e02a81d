// Where layers 2 and 3 (checker/decisions.h, checker/state_rules.h) put what they judge at the
// current event: how often each SPEC.md ID was checked, and each failure on the verdict lattice
// of SPEC.md §6.3 — a violation with its place in the trace and its witness; where the preset
// does not promise the ID in that situation (spec/properties.h), a not-applicable finding, the
// documented behaviour; and on a trace rebuilt from kernel tracepoints (spec/TRACE.md §2,
// "kernel_reconstruction"), whose vruntimes, deadlines and lags are the checker's own rebuild
// from a zero-lag start and not the kernel's, an inconclusive finding: a failure there shows
// where the rebuild and the kernel part ways, not a fault of the kernel. Likewise on a trace of
// a kernel's own state ("source":"linux"), whose numbers are the kernel's at its records but
// whose events do not show all the kernel did between them (the verdicts on those numbers are
// `vlag kernel check --state`'s).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "checker/report.h"
#include "trace/event.h"

namespace vlag::checker {

class Findings {
 public:
  Findings(Report& report, std::string file, const trace::Header& header)
      : report_(report),
        file_(std::move(file)),
        reconstruction_(header.kernel_reconstruction),
        capture_(header.linux_source) {}

  /// The event being judged: its line in the file, its 0-based index among the trace's events
  /// and among its runqueue's.
  void at(int64_t line, int64_t index, int64_t rq_index) {
    line_ = line;
    index_ = index;
    rq_index_ = rq_index;
  }
  void checked(const char* id) { ++stats(id).checked; }
  void violate(const char* id, std::string detail, Witness w, bool promised = true) {
    if (!promised || reconstruction_ || capture_) {
      Finding f;
      f.id = id;
      f.verdict = promised ? Verdict::Inconclusive : Verdict::NotApplicable;
      f.reasons = !promised         ? Reason::NotPromised
                  : reconstruction_ ? Reason::Reconstruction
                                    : Reason::KernelCapture;
      f.file = file_;
      f.line = line_;
      f.detail = std::move(detail);
      record(report_, std::move(f));
      if (promised) ++failures_;
      return;
    }
    Violation v = violation_at(id, file_, line_, index_, std::move(detail), std::move(w));
    v.rq_event_index = rq_index_;
    record(report_, std::move(v));
    ++failures_;
  }
  void note(std::string text) { report_.notes.push_back(std::move(text)); }

  /// Failures of promised IDs so far: violations, and the inconclusive findings that stand for
  /// them on a reconstruction.
  int64_t violations() const { return failures_; }
  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }

 private:
  struct Slot {
    const char* id = nullptr;
    InvariantStats* stats = nullptr;
  };
  // The stats of an ID, by the address of its registry constant (spec/properties.h): a slot of
  // a small table chosen by that address, so that the IDs judged at every event cost no search;
  // the report's map, keyed by name, is searched when the slot holds another ID.
  [[gnu::always_inline]] InvariantStats& stats(const char* id) {
    Slot& slot = known_[reinterpret_cast<uintptr_t>(id) % known_.size()];
    if (slot.id != id) [[unlikely]]
      take_slot(slot, id);
    return *slot.stats;
  }
  [[gnu::noinline]] void take_slot(Slot& slot, const char* id) { slot = {id, &report_.stats[id]}; }

  Report& report_;
  std::array<Slot, 61> known_{};  // a prime, so that the addresses spread
  std::string file_;
  bool reconstruction_;
  bool capture_;  // "source":"linux": the kernel's numbers, with gaps between records
  int64_t line_ = 0;
  int64_t index_ = 0;
  int64_t rq_index_ = 0;
  int64_t failures_ = 0;
};

}  // namespace vlag::checker
