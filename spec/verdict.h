// The verdict lattice of SPEC.md §6.3: what a check says about one property on one subject
// (a task, a group entity, a cfs_rq), ordered not applicable < held < inconclusive < violated,
// with the reason an inconclusive or not-applicable verdict carries, and the tally a report
// prints per ID. Exit codes follow it: 1 only for violated; inconclusive is counted and printed,
// and exits 1 only under --strict.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vlag {

/// Ordered: the join of two verdicts on one subject is the larger.
enum class Verdict : uint8_t { NotApplicable, Held, Inconclusive, Violated };

constexpr Verdict join(Verdict a, Verdict b) { return a < b ? b : a; }

constexpr std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::NotApplicable:
      return "not applicable";
    case Verdict::Held:
      return "held";
    case Verdict::Inconclusive:
      return "inconclusive";
    case Verdict::Violated:
      return "violated";
  }
  return "?";
}

/// Why a property could not be decided (inconclusive) or does not apply (not applicable).
enum class Reason : uint8_t {
  UntracedCpu,           // a CPU that could hold the task was not recorded
  UnrecordedSwitch,      // switches out of idle or of tasks the tracer never records
  LostEvents,            // the trace lost records (a fault of the trace)
  UnlockedSnapshotRead,  // a sched debug snapshot read without the runqueue lock raced
  MissingSnapshot,       // task groups, slices or the base slice are unknown
  MidLife,               // the task was seen mid-life: its arrival is not in the trace
  WeightUnknown,         // a group entity's weight is not known (load on other CPUs, no shares)
  WeightChanged,         // a weight changed at a moment the trace does not pin down
  LeftUnseen,            // the task left its CPU without a record (second wakeup, CPU idled)
  Sleeper,               // not CPU-bound: runnable together with others too briefly to judge
  QueuedSetUnknown,      // a cfs_rq's queued set is not what its task rows show
  LateTick,              // a run went on past its request by more than a tick (the tick came
                         // late, as when a VM's vCPU stalls, or the kernel could not preempt)
  NotRunnable,           // nothing of the kind happened (no wait, no partner)
  Reconstruction,        // a trace rebuilt from kernel tracepoints (`vlag kernel import`): its
                         // vruntimes, deadlines and lags are the model's, not the kernel's
  NotPromised,           // the preset does not promise the property in that situation: its
                         // failure is the documented behaviour (SPEC.md §6)
  SearchUnfinished,      // `vlag prove` stopped before an answer (timeout, interrupt, the solver
                         // gave up)
  MembershipUnknown,     // a task whose group is not known ran or waited where a group that
                         // may hold it was judged
  KernelCapture,         // a trace of a kernel's own state (`vlag kernel export --state`): its
                         // numbers are the kernel's at each record, what happened between
                         // records (an unrecorded update_curr, a gap) is not in it
};
inline constexpr size_t kReasonCount = 18;

constexpr std::string_view reason_name(Reason r) {
  switch (r) {
    case Reason::UntracedCpu:
      return "untraced CPU";
    case Reason::UnrecordedSwitch:
      return "unrecorded switch";
    case Reason::LostEvents:
      return "lost events";
    case Reason::UnlockedSnapshotRead:
      return "unlocked snapshot read";
    case Reason::MissingSnapshot:
      return "missing snapshot";
    case Reason::MidLife:
      return "task seen mid-life";
    case Reason::WeightUnknown:
      return "weight unknown";
    case Reason::WeightChanged:
      return "weight changed";
    case Reason::LeftUnseen:
      return "left unseen";
    case Reason::Sleeper:
      return "sleeper";
    case Reason::QueuedSetUnknown:
      return "queued set unknown";
    case Reason::LateTick:
      return "late tick";
    case Reason::NotRunnable:
      return "nothing to judge";
    case Reason::Reconstruction:
      return "kernel reconstruction";
    case Reason::NotPromised:
      return "not promised";
    case Reason::SearchUnfinished:
      return "search unfinished";
    case Reason::MembershipUnknown:
      return "group membership unknown";
    case Reason::KernelCapture:
      return "kernel capture";
  }
  return "?";
}

/// A set of reasons, as bits.
class Reasons {
 public:
  constexpr Reasons() = default;
  constexpr Reasons(Reason r) : bits_(bit(r)) {}  // NOLINT: a reason is a one-element set
  constexpr Reasons& operator|=(Reasons o) {
    bits_ |= o.bits_;
    return *this;
  }
  constexpr friend Reasons operator|(Reasons a, Reasons b) { return a |= b; }
  constexpr bool has(Reason r) const { return (bits_ & bit(r)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  /// The first reason in enum order (the one a one-line message names).
  constexpr Reason first() const {
    for (size_t i = 0; i < kReasonCount; ++i)
      if (has(static_cast<Reason>(i))) return static_cast<Reason>(i);
    return Reason::NotRunnable;
  }

 private:
  static constexpr uint32_t bit(Reason r) { return uint32_t{1} << static_cast<unsigned>(r); }
  uint32_t bits_ = 0;
};

/// Per ID: how many subjects got each verdict, and the reasons of the inconclusive and
/// not-applicable ones (a subject with several reasons counts under each).
struct VerdictTally {
  int held = 0, inconclusive = 0, violated = 0, not_applicable = 0;
  std::array<int, kReasonCount> inconclusive_by_reason{};
  std::array<int, kReasonCount> not_applicable_by_reason{};

  /// Subjects the property was decided or attempted on: held + inconclusive + violated.
  int checked() const { return held + inconclusive + violated; }

  void add(Verdict v, Reasons why = {}) {
    switch (v) {
      case Verdict::Held:
        ++held;
        return;
      case Verdict::Violated:
        ++violated;
        return;
      case Verdict::Inconclusive:
        ++inconclusive;
        count(inconclusive_by_reason, why);
        return;
      case Verdict::NotApplicable:
        ++not_applicable;
        count(not_applicable_by_reason, why);
        return;
    }
  }

 private:
  static void count(std::array<int, kReasonCount>& into, Reasons why) {
    for (size_t i = 0; i < kReasonCount; ++i)
      if (why.has(static_cast<Reason>(i))) ++into[i];
  }
};

/// The exit code of a run whose worst verdict is `worst` (SPEC.md §6.3): 1 for a violation,
/// and for an inconclusive verdict under strict; 0 otherwise.
constexpr int verdict_exit_code(Verdict worst, bool strict) {
  if (worst == Verdict::Violated) return 1;
  if (worst == Verdict::Inconclusive && strict) return 1;
  return 0;
}

}  // namespace vlag
