// `vlag check` on one trace: its runqueues — runqueue 0, and in a version 2 trace those its
// `runqueue` lines declare (spec/TRACE.md §2, §7) — each judged on its own history by a checker of
// one runqueue (checker/runqueue_checker.h for EEVDF, checker/cfs_check.h for CFS) with its own
// shadow and service layer, their results merged into the trace's report; and, for EEVDF, the
// rules of a hierarchy that connect a group runqueue with its group entity (SPEC.md §10.5,
// checker/hierarchy_rules.h) across the trace's runqueues. In a trace of several runqueues every
// violation names its runqueue. The rules across the runqueues of a run (the lag a migration
// carries, one runqueue per task at a time) are checker/migrations.h's.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/cfs_check.h"
#include "checker/hierarchy_rules.h"
#include "checker/report.h"
#include "checker/runqueue_checker.h"
#include "trace/event.h"
#include "trace/input_error.h"

namespace vlag::checker {

/// One runqueue's report, merged into the trace's; or (`across`) the report of the rules across
/// them, whose violations name their runqueue already and whose notes are the trace's.
struct RunqueueReport {
  RunqueueId rq = 0;
  const Report* report = nullptr;
  bool across = false;
};

/// Adds the runqueues' reports to `into`: counts and figures per ID, the violations and findings in
/// trace order (each naming its runqueue when there are several), the notes (prefixed "rq N: " when
/// there are several, a note all of them gave said once).
void merge_runqueue_reports(const std::vector<RunqueueReport>& parts, Report& into);

template <class PerRunqueue>
class RunqueuesChecker {
 public:
  RunqueuesChecker(const trace::Header& header, std::string file, Report& report)
      : header_(header), file_(std::move(file)), report_(report) {
    if constexpr (kHierarchy)
      hierarchy_.emplace(
          header_, file_, hierarchy_report_,
          [this](RunqueueId rq) -> std::optional<LevelFacts> {
            const PerRunqueue* c = runqueue(rq);
            return c ? std::optional<LevelFacts>(c->level()) : std::nullopt;
          },
          [this](RunqueueId rq, EntityId se) -> std::optional<MemberFacts> {
            const PerRunqueue* c = runqueue(rq);
            return c ? c->member(se) : std::nullopt;
          });
    // Version 1: one CPU's stream of a multi-CPU run is one runqueue's history, judged as such.
    if (header_.version == 1 && header_.params.ncpus != 1 && !header_.cpu)
      throw trace::InputError(trace::Fault::Malformed, file_, 1, "cpus",
                              "checking multi-CPU traces is not implemented (this trace has " +
                                  std::to_string(header_.params.ncpus) +
                                  " CPUs and no \"cpu\" naming the one it holds)");
  }
  RunqueuesChecker(const RunqueuesChecker&) = delete;
  RunqueuesChecker& operator=(const RunqueuesChecker&) = delete;

  /// Checks one event on its runqueue, or declares one. Throws trace::InputError for a trace
  /// fault (the event is then not applied).
  void consume(const trace::Event& e, int64_t line) {
    if (hierarchy_) hierarchy_->before(e.t);
    if (e.kind == trace::EventKind::Runqueue)
      declare(e, line);
    else
      runqueue_of(e, line).checker->consume(e, line, index_);
    if (hierarchy_) hierarchy_->after(e, line, index_);
    ++index_;
  }

  void finish() {
    // A trace without events still reports on its one runqueue (its figures, its notes).
    if (slots_.empty()) add(0);
    std::vector<RunqueueReport> parts;
    for (auto& [id, slot] : slots_) {
      slot->checker->finish();
      parts.push_back({id, &slot->report});
    }
    if (hierarchy_) {
      hierarchy_->finish();
      parts.push_back({0, &hierarchy_report_, true});
    }
    merge_runqueue_reports(parts, report_);
  }

  /// The events consumed, declarations included.
  int64_t events() const { return index_; }
  /// The checker of runqueue `rq`, nullptr before its first event or declaration.
  const PerRunqueue* runqueue(RunqueueId rq) const {
    const auto it = slots_.find(rq);
    return it == slots_.end() ? nullptr : it->second->checker.get();
  }
  /// The `runqueue` lines so far.
  const std::vector<trace::Event>& declarations() const { return declarations_; }

 private:
  struct Slot {
    Report report;
    std::unique_ptr<PerRunqueue> checker;
  };
  // The hierarchy's rules read each runqueue's facts, which both policies' checkers give.
  static constexpr bool kHierarchy = requires(const PerRunqueue& c, EntityId se) {
    c.level();
    c.member(se);
  };

  [[noreturn]] void fault(int64_t line, const char* field, const std::string& what) const {
    throw trace::InputError(trace::Fault::TraceFault, file_, line, field, what);
  }

  Slot& add(RunqueueId rq) {
    auto slot = std::make_unique<Slot>();
    slot->checker = std::make_unique<PerRunqueue>(header_, file_, rq, slot->report);
    last_ = slot.get();
    last_rq_ = rq;
    return *(slots_[rq] = std::move(slot));
  }

  void declare(const trace::Event& e, int64_t line) {
    if (slots_.count(e.rq))
      fault(line, "rq",
            "runqueue " + std::to_string(e.rq) + " is declared twice, or after its first event");
    if (e.parent && !slots_.count(*e.parent)) {
      if (*e.parent != 0 || !root_known())
        fault(line, "parent",
              "runqueue " + std::to_string(*e.parent) + " is not declared before its child");
      add(0);  // the root runqueue the header implies
    }
    add(e.rq);
    declarations_.push_back(e);
  }

  // Runqueue 0 needs no declaration where the header says whose it is: a one-CPU trace, or one
  // CPU's stream.
  bool root_known() const { return header_.params.ncpus == 1 || header_.cpu.has_value(); }

  Slot& runqueue_of(const trace::Event& e, int64_t line) {
    if (last_ && last_rq_ == e.rq) return *last_;
    if (const auto it = slots_.find(e.rq); it != slots_.end()) {
      last_ = it->second.get();
      last_rq_ = e.rq;
      return *last_;
    }
    if (e.rq != 0)
      fault(line, "rq",
            "runqueue " + std::to_string(e.rq) + " has no \"runqueue\" line before its events");
    if (!root_known())
      fault(line, "rq",
            "runqueue 0 has no \"runqueue\" line, and with " +
                std::to_string(header_.params.ncpus) +
                " CPUs and no \"cpu\" in the header its CPU is unknown");
    return add(0);
  }

  trace::Header header_;
  std::string file_;
  Report& report_;
  std::map<RunqueueId, std::unique_ptr<Slot>> slots_;
  std::vector<trace::Event> declarations_;
  Report hierarchy_report_;
  std::optional<HierarchyRules> hierarchy_;
  Slot* last_ = nullptr;  // the runqueue of the previous event: most traces have one
  RunqueueId last_rq_ = 0;
  int64_t index_ = 0;
};

/// An EEVDF trace's checker, and a CFS policy's (SPEC.md §8).
using Checker = RunqueuesChecker<RunqueueChecker>;
using CfsTraceChecker = RunqueuesChecker<CfsChecker>;

}  // namespace vlag::checker
