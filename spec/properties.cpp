#include "spec/properties.h"

#include "spec/error.h"

namespace vlag {
namespace {

// Promises (SPEC.md §6 "Holds"), one function per shape of promise.
bool everywhere(const Preset&, const Situation&) { return true; }
bool paper(const Preset& p, const Situation&) { return p.paper(); }
bool reweight(const Preset& p, const Situation& s) {
  return p.reweight != ReweightRule::KeepV &&
         !(p.reweight == ReweightRule::Place && s.entity_is_curr);
}
bool lag_clamp(const Preset& p, const Situation& s) {
  return p.clamp == LagClamp::TwiceSlice || !s.beyond_clamp_limit;
}
bool deadline(const Preset&, const Situation& s) { return !s.request_rescaled; }
bool delay(const Preset& p, const Situation&) { return p.has(Feature::DELAY_DEQUEUE); }
bool lag_bound_linux(const Preset& p, const Situation&) {
  return p.protection == Protection::Vprot;
}

using enum PropertyKind;
using enum CheckerRole;
using enum Induction;

constexpr ProveSupport kNoProof{};
constexpr ProveSupport kProved{true, Always, false, false};
constexpr ProveSupport kProved64{true, Always, true, false};
constexpr ProveSupport kSteady{true, WherePromised, true, true};

// id, §, kind, promise, promise note, reference, checker, checker linux64, windowed, kernel,
// prove, fixture.
constexpr Property kProperties[] = {
    {ids::kInvLagSum, "6", StateInvariant, everywhere,
     "in Linux arithmetic its integer form, -W < sum w(V - v) <= 0", true, Verdict, true, true,
     false, kProved64, "inv-lag-sum.jsonl"},
    {ids::kInvEligibleExists, "6", StateInvariant, everywhere,
     "`vlag check` only implicitly: V is its view's weighted average", true, NotJudged, false,
     false, false, kProved64, nullptr},
    {ids::kInvDeadline, "6", StateInvariant, deadline,
     "not after a clamped reweight cut the request (4.8) or, in Linux arithmetic, a reweight "
     "rescaled d - v (7.3)",
     true, Verdict, true, true, false, kProved64, "inv-deadline.jsonl"},
    {ids::kInvS64Margin, "6", StateInvariant, everywhere,
     "while the queued vruntimes lie within 2^63/(2^18 W) of each other", false, Verdict, true,
     true, false, kNoProof, "inv-s64-margin.jsonl"},
    {ids::kInvPlaceLag, "6", StepInvariant, everywhere, "", true, Verdict, true, true, false,
     kProved, "inv-place-lag.jsonl"},
    {ids::kInvReweight, "6", StepInvariant, reweight,
     "under reweight by placement (linux-6.18) not for the running entity (4.8)", true, Verdict,
     true, true, false, kProved, "inv-reweight.jsonl"},
    {ids::kInvPickEligible, "6", StepInvariant, everywhere, "", true, Verdict, true, true, false,
     kProved, "inv-pick-eligible.jsonl"},
    {ids::kInvPickEdf, "6", StepInvariant, everywhere,
     "curr under protection and the eligible next buddy are exempt", true, Verdict, true, true,
     false, kProved, "inv-pick-edf.jsonl"},
    {ids::kInvLagClamp, "6", StepInvariant, lag_clamp,
     "the limit where the preset clamps; the DELAY_ZERO clause wherever DELAY_ZERO is on", true,
     Verdict, true, true, false, kProved, "inv-lag-clamp.jsonl"},
    {ids::kInvDelay, "6", StepInvariant, delay, "", true, Verdict, true, true, false, kProved,
     "inv-delay.jsonl"},
    {ids::kInvStep, "6", StepInvariant, everywhere, "on traces that start at the beginning", false,
     Verdict, true, false, false, kNoProof, "inv-step.jsonl"},
    {ids::kThmLagBound, "6", Theorem, paper, "in a steady system, at decision points", true,
     VerdictWherePromised, true, false, false, kSteady, "thm-lag-bound.jsonl"},
    {ids::kThmLagBoundLinux, "6", Theorem, lag_bound_linux,
     "a steady system with a common slice; `vlag check` reports it as a figure, `vlag kernel "
     "check` judges its lower half (6.2)",
     true, AsFigure, true, false, true, kSteady, nullptr},
    {ids::kThmPairFair, "6", Theorem, paper,
     "follows from THM-LAG-BOUND; not judged on traces separately", false, NotJudged, false, false,
     false, kNoProof, nullptr},
    {ids::kThmWakeupLatency, "6", Theorem, paper,
     "a client joining a steady system; a figure under the Linux presets", false,
     VerdictWherePromised, true, false, false, kNoProof, "thm-wakeup-latency.jsonl"},
    {ids::kThmShare, "6", Theorem, everywhere,
     "CPU-bound entities joining at t = 0; its bound depends on the preset; the kernel form "
     "(6.2) on kernel traces",
     false, NotJudged, false, false, true, kNoProof, nullptr},
    {ids::kFigStarvation, "6", Figure, nullptr, "a figure, never a verdict", false, AsFigure, true,
     false, false, kNoProof, nullptr},
    {ids::kSnapAvgVruntime, "6.1", SnapshotCheck, nullptr, "a kernel snapshot", false, NotJudged,
     false, false, true, kNoProof, nullptr},
    {ids::kSnapEligible, "6.1", SnapshotCheck, nullptr, "a kernel snapshot", false, NotJudged,
     false, false, true, kNoProof, nullptr},
    {ids::kSnapDeadline, "6.1", SnapshotCheck, nullptr, "a kernel snapshot", false, NotJudged,
     false, false, true, kNoProof, nullptr},
    {ids::kSnapLeftDeadline, "6.1", SnapshotCheck, nullptr, "a kernel snapshot", false, NotJudged,
     false, false, true, kNoProof, nullptr},
    {ids::kInvNoStarvation, "6.2", KernelTraceCheck, nullptr,
     "a kernel trace, against --starvation-ms (default 1 s)", false, NotJudged, false, false, true,
     kNoProof, nullptr},
    {ids::kCfsMinVruntimeMonotonic, "8.5", CfsCheck, nullptr, "the CFS policies", false, Verdict,
     false, false, false, kNoProof, nullptr},
    {ids::kCfsPlaceSleeper, "8.5", CfsCheck, nullptr, "the CFS policies", false, Verdict, false,
     false, false, kNoProof, nullptr},
    {ids::kCfsPickLeftmost, "8.5", CfsCheck, nullptr, "the CFS policies", false, Verdict, false,
     false, false, kNoProof, "cfs-pick-leftmost.jsonl"},
    {ids::kCfsLatencyPick, "8.5", CfsCheck, nullptr, "cfs-latency-nice", false, Verdict, false,
     false, false, kNoProof, nullptr},
};

}  // namespace

std::string_view kind_name(PropertyKind kind) {
  switch (kind) {
    case StateInvariant:
      return "state invariant";
    case StepInvariant:
      return "step invariant";
    case Theorem:
      return "theorem";
    case Figure:
      return "figure";
    case SnapshotCheck:
      return "snapshot check";
    case KernelTraceCheck:
      return "kernel-trace check";
    case CfsCheck:
      return "CFS check";
  }
  return "?";
}

std::span<const Property> properties() { return kProperties; }

const Property* find_property(std::string_view id) {
  for (const Property& p : kProperties)
    if (id == p.id) return &p;
  return nullptr;
}

const Property& property(std::string_view id) {
  if (const Property* p = find_property(id)) return *p;
  throw Error("no property " + std::string(id) + " in spec/properties.cpp");
}

bool promised(std::string_view id, const Preset& preset, const Situation& situation) {
  return property(id).promised(preset, situation);
}

}  // namespace vlag
