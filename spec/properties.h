// The property registry: one row per ID of SPEC.md §6, §6.1, §6.2, §8.5 and §10.5 — its section,
// its kind, where it is promised (a function of the preset and of the situation it is judged in),
// and which parts of vlag judge it: the reference's invariants, `vlag check` on exact and on
// Linux-arithmetic traces, `vlag kernel`, and `vlag prove` (symbolic form, k-induction, the
// 64-bit encoding). Code names an ID through the constants in vlag::ids, and asks the registry
// whether the preset promises it; tests/spec/properties_test.cpp checks the registry against
// SPEC.md, the fixtures, the tests and the README's table.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "spec/features.h"

namespace vlag {

namespace ids {
// SPEC.md §6: the model's invariants, theorems and figures.
inline constexpr char kInvLagSum[] = "INV-LAG-SUM";
inline constexpr char kInvEligibleExists[] = "INV-ELIGIBLE-EXISTS";
inline constexpr char kInvDeadline[] = "INV-DEADLINE";
inline constexpr char kInvS64Margin[] = "INV-S64-MARGIN";
inline constexpr char kInvPlaceLag[] = "INV-PLACE-LAG";
inline constexpr char kInvReweight[] = "INV-REWEIGHT";
inline constexpr char kInvPickEligible[] = "INV-PICK-ELIGIBLE";
inline constexpr char kInvPickEdf[] = "INV-PICK-EDF";
inline constexpr char kInvProtStart[] = "INV-PROT-START";
inline constexpr char kInvProtExtent[] = "INV-PROT-EXTENT";
inline constexpr char kInvProtEnd[] = "INV-PROT-END";
inline constexpr char kInvNextBuddy[] = "INV-NEXT-BUDDY";
inline constexpr char kInvLagClamp[] = "INV-LAG-CLAMP";
inline constexpr char kInvDelay[] = "INV-DELAY";
inline constexpr char kInvStep[] = "INV-STEP";
inline constexpr char kInvKernelSums[] = "INV-KERNEL-SUMS";
inline constexpr char kThmLagBound[] = "THM-LAG-BOUND";
inline constexpr char kThmLagBoundLinux[] = "THM-LAG-BOUND-LINUX";
inline constexpr char kThmPairFair[] = "THM-PAIR-FAIR";
inline constexpr char kThmWakeupLatency[] = "THM-WAKEUP-LATENCY";
inline constexpr char kThmShare[] = "THM-SHARE";
inline constexpr char kFigStarvation[] = "FIG-STARVATION";
// SPEC.md §10.5: a hierarchy of runqueues (task groups).
inline constexpr char kInvGroupQueued[] = "INV-GROUP-QUEUED";
inline constexpr char kInvGroupShares[] = "INV-GROUP-SHARES";
inline constexpr char kThmGroupShare[] = "THM-GROUP-SHARE";
// SPEC.md §6.1: one sched debug snapshot.
inline constexpr char kSnapAvgVruntime[] = "SNAP-AVG-VRUNTIME";
inline constexpr char kSnapEligible[] = "SNAP-ELIGIBLE";
inline constexpr char kSnapDeadline[] = "SNAP-DEADLINE";
inline constexpr char kSnapLeftDeadline[] = "SNAP-LEFT-DEADLINE";
// SPEC.md §6.2: a kernel trace.
inline constexpr char kInvNoStarvation[] = "INV-NO-STARVATION";
// SPEC.md §8.5: a CFS trace.
inline constexpr char kCfsMinVruntimeMonotonic[] = "CFS-MIN-VRUNTIME-MONOTONIC";
inline constexpr char kCfsPlaceSleeper[] = "CFS-PLACE-SLEEPER";
inline constexpr char kCfsPickLeftmost[] = "CFS-PICK-LEFTMOST";
inline constexpr char kCfsLatencyPick[] = "CFS-LATENCY-PICK";
// SPEC.md §6: across the runqueues of a run.
inline constexpr char kInvMigrateLag[] = "INV-MIGRATE-LAG";
inline constexpr char kInvOneRunqueue[] = "INV-ONE-RUNQUEUE";
}  // namespace ids

enum class PropertyKind : uint8_t {
  StateInvariant,        // of one state
  StepInvariant,         // of a state and the operation that led to it
  KernelStateInvariant,  // of the real kernel's own bookkeeping of a state, where a trace shows it
  Theorem,               // of a run (steady systems, decision points)
  Figure,                // a measurement, never a verdict
  SnapshotCheck,         // of one kernel sched debug snapshot (§6.1)
  KernelTraceCheck,      // of a real kernel's sched trace (§6.2)
  CfsCheck,              // of a trace of the CFS policies (§8.5)
};
std::string_view kind_name(PropertyKind kind);

/// What a promise depends on besides the preset (SPEC.md §6 "Holds", §7.3). Each judge fills in
/// what it knows; the defaults are the ordinary case.
struct Situation {
  bool entity_is_curr = false;    // INV-REWEIGHT: the reweighted entity is running (§4.8)
  bool only_delay_zero = false;   // INV-LAG-CLAMP: only its DELAY_ZERO clause fails (a positive
                                  // lag after a delayed dequeue), promised wherever it is on
  bool request_rescaled = false;  // INV-DEADLINE: since the request was set, a clamped
                                  // reweight cut it (§4.8) or, in Linux arithmetic, a
                                  // reweight rescaled d − v (§7.3)
};

/// How `vlag check` judges an ID on a spec/TRACE.md trace.
enum class CheckerRole : uint8_t {
  NotJudged,             // not on traces
  Verdict,               // every failure is a violation where promised, "expected" elsewhere
  VerdictWherePromised,  // a verdict where the preset promises it, a figure elsewhere
  AsFigure,              // always a figure
};

enum class Induction : uint8_t { Never, Always, WherePromised };

/// What `vlag prove` does with an ID (prove/, its Z3 form in smt/detail/properties.cpp).
struct ProveSupport {
  bool bmc = false;  // has a symbolic form: bounded model checking from creation
  Induction induction = Induction::Never;
  bool linux64 = false;  // also encoded in Linux 64-bit arithmetic (--arith linux64)
  bool steady = false;   // judged over the steady driver (pick, run) at decision points
  bool groups = false;   // a hierarchy's own (SPEC.md §10.5): searched over --groups only
};

/// Which parts of vlag judge an ID.
struct Judges {
  bool reference = false;                        // reference/invariants.h, on the exact state
  CheckerRole checker = CheckerRole::NotJudged;  // `vlag check` on an exact trace
  bool linux64 = false;   // `vlag check` on a Linux-arithmetic trace ("arith":"linux64") too
  bool windowed = false;  // a window (the state before it, then events) shows it again
  bool kernel = false;    // `vlag kernel check` or `vlag kernel snapshot`, `--state` included
};

struct Property {
  const char* id = nullptr;
  const char* section = "6";  // of SPEC.md: "6", "6.1", "6.2", "8.5", "10.5"
  PropertyKind kind = PropertyKind::StateInvariant;
  /// Whether a preset promises it in a situation; nullptr where presets do not apply (the real
  /// kernel, the CFS policies, a figure: see `note`).
  bool (*promise)(const Preset&, const Situation&) = nullptr;
  const char* note = "";  // what else the promise depends on, in words
  Judges judged{};
  ProveSupport prove{};
  const char* fixture = nullptr;  // the file in tests/fixtures/ `vlag check` flags with it

  /// Is it promised under `preset` in `situation`? True where presets do not apply.
  bool promised(const Preset& preset, const Situation& situation = {}) const {
    return !promise || promise(preset, situation);
  }
};

// The shapes of promise (SPEC.md §6 "Holds") and of prove support that rows share.
namespace registry {

inline bool everywhere(const Preset&, const Situation&) { return true; }
inline bool paper(const Preset& p, const Situation&) { return p.paper(); }
// Reweight by placement (6.13-7.0) goes through place_entity: for curr it breaks placement's
// precondition, and without PLACE_LAG the placement drops the lag it saved (§4.8).
inline bool reweight(const Preset& p, const Situation& s) {
  return p.reweight != ReweightRule::KeepV &&
         !(p.reweight == ReweightRule::Place && (s.entity_is_curr || !p.has(Feature::PLACE_LAG)));
}
inline bool lag_clamp(const Preset& p, const Situation& s) {
  return p.clamp != LagClamp::None || s.only_delay_zero;
}
inline bool deadline(const Preset&, const Situation& s) { return !s.request_rescaled; }
inline bool delay(const Preset& p, const Situation&) { return p.has(Feature::DELAY_DEQUEUE); }
inline bool protection(const Preset& p, const Situation&) {
  return p.protection != Protection::None;
}
inline bool lag_bound_linux(const Preset& p, const Situation&) {
  return p.protection == Protection::Vprot;
}

// Judged on the reference's state and on every trace, windows included.
inline constexpr Judges kEverywhere{true, CheckerRole::Verdict, true, true, false};
// Judged on every trace, windows included.
inline constexpr Judges kOnTraces{false, CheckerRole::Verdict, true, true, false};
// As kEverywhere and kOnTraces, and on the kernel's own numbers (`vlag kernel check --state`,
// SPEC.md 6.4).
inline constexpr Judges kEverywhereAndKernel{true, CheckerRole::Verdict, true, true, true};
inline constexpr Judges kOnTracesAndKernel{false, CheckerRole::Verdict, true, true, true};
inline constexpr Judges kKernel{.kernel = true};
inline constexpr Judges kCfsTraces{.checker = CheckerRole::Verdict};

inline constexpr ProveSupport kNoProof{};
inline constexpr ProveSupport kProved{true, Induction::Always, false, false};
inline constexpr ProveSupport kProved64{true, Induction::Always, true, false};
inline constexpr ProveSupport kSteady{true, Induction::WherePromised, true, true};
inline constexpr ProveSupport kGroups{true, Induction::Always, false, false, true};

constexpr Property snapshot_check(const char* id) {
  return {.id = id,
          .section = "6.1",
          .kind = PropertyKind::SnapshotCheck,
          .note = "a kernel snapshot",
          .judged = kKernel};
}
constexpr Property cfs_check(const char* id, const char* note, const char* fixture = nullptr) {
  return {.id = id,
          .section = "8.5",
          .kind = PropertyKind::CfsCheck,
          .note = note,
          .judged = kCfsTraces,
          .fixture = fixture};
}

}  // namespace registry

// The registry: one row per ID, in the order of properties(). A row names what applies; the
// rest keeps Property's defaults (not judged there).
// clang-format off
inline constexpr Property kProperties[] = {
    // SPEC.md §6: state invariants.
    {.id = ids::kInvLagSum, .promise = registry::everywhere,
     .note = "in Linux arithmetic its integer form, -W < sum w(V - v) <= 0",
     .judged = registry::kEverywhere, .prove = registry::kProved64, .fixture = "inv-lag-sum.jsonl"},
    {.id = ids::kInvEligibleExists, .promise = registry::everywhere,
     .note = "`vlag check` only implicitly: V is its view's weighted average",
     .judged = {.reference = true}, .prove = registry::kProved64},
    {.id = ids::kInvDeadline, .promise = registry::deadline,
     .note = "not after a clamped reweight cut the request (4.8) or, in Linux arithmetic, a "
             "reweight rescaled d - v (7.3)",
     .judged = registry::kEverywhereAndKernel, .prove = registry::kProved64,
     .fixture = "inv-deadline.jsonl"},
    {.id = ids::kInvS64Margin, .promise = registry::everywhere,
     .note = "while the queued vruntimes lie within 2^63/(2^18 W) of each other",
     .judged = registry::kOnTracesAndKernel, .fixture = "inv-s64-margin.jsonl"},
    // SPEC.md §6: the real kernel's bookkeeping (no preset: the kernel's own promise).
    {.id = ids::kInvKernelSums, .kind = PropertyKind::KernelStateInvariant,
     .note = "the kernel's sums against its own entities: on a trace that reports them (v0, "
             "sum_w, sum_wv: Linux 6.6-6.18, the 6.19 names on 6.18.y), judged when all of the "
             "runqueue's queued entities are known; on a capture of the kernel's state where a "
             "queue snapshot shows every entity of the cfs_rq's tree (6.4)",
     .judged = registry::kOnTracesAndKernel, .fixture = "inv-kernel-sums.jsonl"},
    // SPEC.md §6: step invariants.
    {.id = ids::kInvPlaceLag, .kind = PropertyKind::StepInvariant, .promise = registry::everywhere,
     .judged = registry::kEverywhereAndKernel, .prove = registry::kProved,
     .fixture = "inv-place-lag.jsonl"},
    {.id = ids::kInvReweight, .kind = PropertyKind::StepInvariant, .promise = registry::reweight,
     .note = "under reweight by placement (linux-6.18) not for the running entity nor without "
             "PLACE_LAG (4.8)",
     .judged = registry::kEverywhere, .prove = registry::kProved, .fixture = "inv-reweight.jsonl"},
    {.id = ids::kInvPickEligible, .kind = PropertyKind::StepInvariant,
     .promise = registry::everywhere, .judged = registry::kEverywhereAndKernel,
     .prove = registry::kProved, .fixture = "inv-pick-eligible.jsonl"},
    {.id = ids::kInvPickEdf, .kind = PropertyKind::StepInvariant, .promise = registry::everywhere,
     .note = "curr under protection and the eligible next buddy are exempt",
     .judged = registry::kEverywhereAndKernel, .prove = registry::kProved,
     .fixture = "inv-pick-edf.jsonl"},
    {.id = ids::kInvProtStart, .kind = PropertyKind::StepInvariant,
     .promise = registry::protection,
     .note = "a window only at a pick that makes a new entity curr, and one at every such pick",
     .judged = registry::kEverywhere, .fixture = "inv-prot-start.jsonl"},
    {.id = ids::kInvProtExtent, .kind = PropertyKind::StepInvariant,
     .promise = registry::protection,
     .note = "the bound of the preset's formula (4.5); curr protected exactly while within it",
     .judged = registry::kEverywhere, .fixture = "inv-prot-extent.jsonl"},
    {.id = ids::kInvProtEnd, .kind = PropertyKind::StepInvariant, .promise = registry::protection,
     .note = "cancelled or shrunk only by a wakeup as 4.6 says, dropped when curr leaves",
     .judged = registry::kEverywhere, .fixture = "inv-prot-end.jsonl"},
    {.id = ids::kInvNextBuddy, .kind = PropertyKind::StepInvariant,
     .promise = registry::everywhere,
     .note = "set only by a wakeup decision under NEXT_BUDDY, cleared when picked or dequeued; an "
             "eligible buddy is picked first under PICK_BUDDY",
     .judged = registry::kEverywhere, .fixture = "inv-next-buddy.jsonl"},
    {.id = ids::kInvLagClamp, .kind = PropertyKind::StepInvariant, .promise = registry::lag_clamp,
     .note = "its DELAY_ZERO clause (vl <= 0 after a delayed dequeue) wherever DELAY_ZERO is on",
     .judged = registry::kEverywhereAndKernel, .prove = registry::kProved,
     .fixture = "inv-lag-clamp.jsonl"},
    {.id = ids::kInvDelay, .kind = PropertyKind::StepInvariant, .promise = registry::delay,
     .judged = registry::kEverywhereAndKernel, .prove = registry::kProved,
     .fixture = "inv-delay.jsonl"},
    {.id = ids::kInvStep, .kind = PropertyKind::StepInvariant, .promise = registry::everywhere,
     .note = "on traces that start at the beginning",
     .judged = {.checker = CheckerRole::Verdict, .linux64 = true}, .fixture = "inv-step.jsonl"},
    // SPEC.md §6: theorems and figures.
    {.id = ids::kThmLagBound, .kind = PropertyKind::Theorem, .promise = registry::paper,
     .note = "in a steady system, at decision points",
     .judged = {.reference = true, .checker = CheckerRole::VerdictWherePromised, .linux64 = true},
     .prove = registry::kSteady, .fixture = "thm-lag-bound.jsonl"},
    {.id = ids::kThmLagBoundLinux, .kind = PropertyKind::Theorem,
     .promise = registry::lag_bound_linux,
     .note = "a steady system with a common slice; `vlag check` reports it as a figure, `vlag "
             "kernel check` judges its pairwise kernel form (6.2) and `--state` each lag at "
             "each pick on the kernel's own numbers (6.4)",
     .judged = {.reference = true, .checker = CheckerRole::AsFigure, .linux64 = true,
                .kernel = true},
     .prove = registry::kSteady},
    {.id = ids::kThmPairFair, .kind = PropertyKind::Theorem, .promise = registry::paper,
     .note = "follows from THM-LAG-BOUND; not judged on traces separately"},
    {.id = ids::kThmWakeupLatency, .kind = PropertyKind::Theorem, .promise = registry::paper,
     .note = "a client joining a steady system; a figure under the Linux presets",
     .judged = {.checker = CheckerRole::VerdictWherePromised, .linux64 = true},
     .fixture = "thm-wakeup-latency.jsonl"},
    {.id = ids::kThmShare, .kind = PropertyKind::Theorem, .promise = registry::everywhere,
     .note = "CPU-bound entities joining at t = 0, within a bound that depends on the preset; "
             "its kernel form (6.2) on kernel traces and on state captures (`kernel check "
             "--state`, 6.4)",
     .judged = registry::kKernel},
    {.id = ids::kFigStarvation, .kind = PropertyKind::Figure, .note = "a figure, never a verdict",
     .judged = {.checker = CheckerRole::AsFigure, .linux64 = true}},
    // SPEC.md §10.5: a hierarchy of runqueues, judged on the reference's hierarchy and, across
    // the runqueues of a trace, by `vlag check` (checker/hierarchy_rules.h).
    {.id = ids::kInvGroupQueued, .section = "10.5", .promise = registry::everywhere,
     .note = "every group entity of a hierarchy (reference/hierarchy.h); on a trace, EEVDF's or "
             "a CFS policy's, at the end of every instant, not in windows",
     .judged = {.reference = true, .checker = CheckerRole::Verdict, .linux64 = true},
     .prove = registry::kGroups, .fixture = "inv-group-queued.jsonl"},
    {.id = ids::kInvGroupShares, .section = "10.5", .kind = PropertyKind::StepInvariant,
     .promise = registry::everywhere,
     .note = "the group entities an operation updated, instantaneous form (10.3); on a trace, "
             "EEVDF's or a CFS policy's, one CPU's, with S_G the weight of the group entity's `new` or "
             "of its last `reweight` that names its group (a cpu.weight write)",
     .judged = {.reference = true, .checker = CheckerRole::Verdict, .linux64 = true},
     .prove = registry::kGroups, .fixture = "inv-group-shares.jsonl"},
    {.id = ids::kThmGroupShare, .section = "10.5", .kind = PropertyKind::Theorem,
     .promise = registry::everywhere,
     .note = "CPU-bound tasks from t = 0 on one CPU, within (levels + 1) THM-SHARE bounds; "
             "tested on the reference and on `vlag sim`; its premise, THM-SHARE at every level, "
             "judged by the kernel check on perf and state captures (10.5)",
     .judged = {.reference = true}},
    // SPEC.md §6.1: one kernel sched debug snapshot; §6.2: a kernel trace.
    registry::snapshot_check(ids::kSnapAvgVruntime),
    registry::snapshot_check(ids::kSnapEligible),
    registry::snapshot_check(ids::kSnapDeadline),
    registry::snapshot_check(ids::kSnapLeftDeadline),
    {.id = ids::kInvNoStarvation, .section = "6.2", .kind = PropertyKind::KernelTraceCheck,
     .note = "a kernel trace, each wait against a weight-scaled bound (6.2)",
     .judged = registry::kKernel},
    // SPEC.md §8.5: a trace of the CFS policies (checker/cfs_check.h).
    registry::cfs_check(ids::kCfsMinVruntimeMonotonic, "the CFS policies"),
    registry::cfs_check(ids::kCfsPlaceSleeper, "the CFS policies"),
    registry::cfs_check(ids::kCfsPickLeftmost, "the CFS policies", "cfs-pick-leftmost.jsonl"),
    registry::cfs_check(ids::kCfsLatencyPick, "cfs-latency-nice"),
    // SPEC.md §6: across the runqueues of a run (checker/migrations.h).
    {.id = ids::kInvMigrateLag, .kind = PropertyKind::StepInvariant,
     .promise = registry::everywhere,
     .note = "a run of several runqueues (one trace's, or a machine's per-CPU traces merged by "
             "time); where detach and attach report vlag; not the CFS policies",
     .judged = {.checker = CheckerRole::Verdict, .linux64 = true},
     .fixture = "inv-migrate-lag.jsonl"},
    {.id = ids::kInvOneRunqueue, .kind = PropertyKind::StateInvariant,
     .promise = registry::everywhere,
     .note = "a run of several runqueues; a detach and its attach may share a timestamp",
     .judged = {.checker = CheckerRole::Verdict, .linux64 = true},
     .fixture = "inv-one-runqueue.jsonl"},
};
// clang-format on

/// Every row (kProperties), in the order `vlag prove --list` and the README table show them: the
/// state invariants, the step invariants, the theorems and figures, then §6.1, §6.2 and §8.5.
std::span<const Property> properties();
/// The row of an ID, or nullptr.
const Property* find_property(std::string_view id);
/// The row of an ID that is known to be in the registry (one of vlag::ids).
const Property& property(std::string_view id);
/// Shorthand for property(id).promised(preset, situation).
bool promised(std::string_view id, const Preset& preset, const Situation& situation = {});

}  // namespace vlag
