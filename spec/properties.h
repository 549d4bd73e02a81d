// The property registry: one row per ID of SPEC.md §6, §6.1, §6.2 and §8.5 — its section, its
// kind, where it is promised (a function of the preset and of the situation it is judged in),
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
inline constexpr char kInvLagClamp[] = "INV-LAG-CLAMP";
inline constexpr char kInvDelay[] = "INV-DELAY";
inline constexpr char kInvStep[] = "INV-STEP";
inline constexpr char kThmLagBound[] = "THM-LAG-BOUND";
inline constexpr char kThmLagBoundLinux[] = "THM-LAG-BOUND-LINUX";
inline constexpr char kThmPairFair[] = "THM-PAIR-FAIR";
inline constexpr char kThmWakeupLatency[] = "THM-WAKEUP-LATENCY";
inline constexpr char kThmShare[] = "THM-SHARE";
inline constexpr char kFigStarvation[] = "FIG-STARVATION";
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
}  // namespace ids

enum class PropertyKind : uint8_t {
  StateInvariant,    // of one state
  StepInvariant,     // of a state and the operation that led to it
  Theorem,           // of a run (steady systems, decision points)
  Figure,            // a measurement, never a verdict
  SnapshotCheck,     // of one kernel sched debug snapshot (§6.1)
  KernelTraceCheck,  // of a real kernel's sched trace (§6.2)
  CfsCheck,          // of a trace of the CFS policies (§8.5)
};
std::string_view kind_name(PropertyKind kind);

/// What a promise depends on besides the preset (SPEC.md §6 "Holds", §7.3). Each judge fills in
/// what it knows; the defaults are the ordinary case.
struct Situation {
  bool entity_is_curr = false;      // INV-REWEIGHT: the reweighted entity is running (§4.8)
  bool beyond_clamp_limit = false;  // INV-LAG-CLAMP: the saved lag exceeds the clamp limit
                                    // (not only the DELAY_ZERO clause, promised wherever on)
  bool request_rescaled = false;    // INV-DEADLINE: since the request was set, a clamped
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

/// What `vlag prove` does with an ID (prove/, its Z3 form in prove/detail/properties.cpp).
struct ProveSupport {
  bool bmc = false;  // has a symbolic form: bounded model checking from creation
  Induction induction = Induction::Never;
  bool linux64 = false;  // also encoded in Linux 64-bit arithmetic (--arith linux64)
  bool steady = false;   // judged over the steady driver (pick, run) at decision points
};

struct Property {
  const char* id;
  const char* section;  // of SPEC.md: "6", "6.1", "6.2", "8.5"
  PropertyKind kind;
  /// Whether a preset promises it in a situation; nullptr where presets do not apply (the real
  /// kernel, the CFS policies: see `promise_note`).
  bool (*promise)(const Preset&, const Situation&);
  const char* promise_note;  // what else the promise depends on, in words ("" when nothing)
  bool reference;            // reference/invariants.h evaluates it on the exact state
  CheckerRole checker;       // on an exact trace
  bool checker_linux64;      // also on a Linux-arithmetic trace ("arith":"linux64")
  bool windowed;             // a window (the state before it, then events) shows it again
  bool kernel;               // `vlag kernel check` or `vlag kernel snapshot` judges it
  ProveSupport prove;
  const char* fixture;  // the file in tests/fixtures/ that `vlag check` flags with it, or nullptr

  /// Is it promised under `preset` in `situation`? True where presets do not apply.
  bool promised(const Preset& preset, const Situation& situation = {}) const {
    return !promise || promise(preset, situation);
  }
};

/// Every row, in the order `vlag prove --list` and the README table show them: the state
/// invariants, the step invariants, the theorems and figures, then §6.1, §6.2 and §8.5.
std::span<const Property> properties();
/// The row of an ID, or nullptr.
const Property* find_property(std::string_view id);
/// The row of an ID that is known to be in the registry (one of vlag::ids).
const Property& property(std::string_view id);
/// Shorthand for property(id).promised(preset, situation).
bool promised(std::string_view id, const Preset& preset, const Situation& situation = {});

}  // namespace vlag
