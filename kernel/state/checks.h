// The checks of SPEC.md §6.4 on a capture of the kernel's own EEVDF state: each pick, placement,
// saved lag, deadline and cfs_rq sum the capture shows, judged against the kernel's own numbers
// in the kernel's own arithmetic (kernel/state/arith.h), with the model of kernel/state/model.h
// saying where the capture cannot show enough (inconclusive, with the reason). One tally per ID
// of spec/properties.h, the figures the IDs do not turn into verdicts (the bits the 64-bit sums
// use, how often the model's replay of a run delta matched the kernel's), a witness for each
// violation, and the capture replayed through the model decision by decision
// (kernel/state/replay.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/state/capture_file.h"
#include "kernel/state/replay.h"
#include "kernel/state/verdict.h"

namespace vlag::kernel::state {

/// THM-SHARE's split of one pair of entities of a cfs_rq over the pair windows judged there
/// (kernel/state/share_check.h): the service each got in them against the split their weights
/// ask for, and how far from it the bound lets them be. With x = s_a/w_a − s_b/w_b, a window's
/// s_a − s·w_a/(w_a + w_b) is x·w_a·w_b/(w_a + w_b), so |x| ≤ S bounds it by S·w_a·w_b/(w_a + w_b).
struct ShareFigure {
  int cpu = -1;
  uint64_t cfs_rq = 0;
  bool root = false;      // no group entity was seen owning the cfs_rq: the CPU's root
  uint64_t a = 0, b = 0;  // the entities (se addresses)
  std::string a_name, b_name;
  uint64_t windows = 0;
  double duration_ns = 0;
  double wa = 0, wb = 0;        // their weights (unscaled), weighted by the windows' service
  double sa_ns = 0, sb_ns = 0;  // service in the windows
  double expected_a_ns = 0;     // Σ (s_a + s_b)·w_a/(w_a + w_b) over the windows
  double allowed_ns = 0;        // Σ (S + uncertainty)·w_a·w_b/(w_a + w_b): |s_a − expected_a|
  double share_a() const { return sa_ns / (sa_ns + sb_ns); }
  double expected_share_a() const { return expected_a_ns / (sa_ns + sb_ns); }
  double allowed_share() const { return allowed_ns / (sa_ns + sb_ns); }
};

/// Measurements beside the verdicts.
struct Figures {
  uint64_t records = 0;
  uint64_t switches = 0;
  uint64_t gaps = 0;  // records showing a task running that no switch put in
  // INV-S64-MARGIN: the largest magnitude, in bits, of what the kernel keeps in s64.
  int key_weight_bits = 0;   // key_i·w_i of a tree entity
  int sum_bits = 0;          // Σ key_i·w_i with curr added (avg_vruntime's numerator)
  int eligibility_bits = 0;  // key·load (vruntime_eligible's right-hand side)
  int lag_product_bits = 0;  // vlag·(load + w) (place_entity's inflation)
  // INV-KERNEL-SUMS: V from the scaled-down weights the kernel sums against the weighted average
  // of the full weights, at each queue snapshot (scale_load_down drops a group weight's low bits).
  double v_scaling_error_ns = 0;
  // INV-PICK-EDF: picks of a later deadline that the next-buddy rule explains.
  uint64_t picks_as_buddy = 0;
  // A new pick while the previous curr was still eligible and protected (v < vprot): the pick
  // rule keeps a protected curr (SPEC.md §4.4 step 4), so the kernel cancelled the protection
  // without a record or did not keep it.
  uint64_t protection_overridden = 0;
  std::vector<std::string> protection_examples;
  // INV-LAG-CLAMP: saved lags equal to entity_lag() on the V of the dequeue, or not (where the
  // capture shows that V).
  uint64_t saved_lags_exact = 0;
  uint64_t saved_lags_inexact = 0;
  std::vector<std::string> saved_lag_examples;
  // INV-PLACE-LAG: placements equal to place_entity's own formula bit for bit, or not.
  uint64_t placements_exact = 0;
  uint64_t placements_inexact = 0;
  // Wakeups during which a delayed entity of the cfs_rq finished its dequeue, unrecorded (the
  // record's count is short of the model's): inconclusive.
  uint64_t placements_beside_delayed_exit = 0;
  std::vector<std::string> placement_examples;
  // The model's replay of a run delta (update_curr: v += calc_delta_fair(δ), update_deadline)
  // against the task's next runtime record.
  uint64_t replays_matched = 0;
  uint64_t replays_differed = 0;
  uint64_t replays_moved = 0;  // the task's entity is on another cfs_rq: moved between groups
  std::vector<std::string> replay_examples;
  // THM-LAG-BOUND-LINUX: the largest |lag| against its bound r + TICK at a decision point, over
  // all of them and over those in a steady system of CPU-bound entities (the theorem's).
  uint64_t steady_decisions = 0;
  double lag_bound_ratio = 0;
  std::string lag_bound_worst;
  double steady_lag_bound_ratio = 0;
  std::string steady_lag_bound_worst;
  // THM-SHARE: each pair's split over its windows, the pairs that got the most service first.
  std::vector<ShareFigure> shares;
  static constexpr size_t kMaxExamples = 5;
};

struct StateReport {
  std::string source;
  std::vector<std::pair<const char*, Tally>> tallies;  // by ID, in the report's order
  Figures figures;
  ReplayResult replay;             // the capture replayed through the model, decision by decision
  std::string replay_unavailable;  // why there is no replay ("" when there is)
  std::vector<std::string> notes;  // what the capture lacks as a whole (parameters, losses)
  // The IDs judged per subject (THM-SHARE: per entity, over all its pair windows): each
  // subject's verdict, by its name.
  std::map<std::string, std::map<std::string, Verdict>> subjects;

  Tally& tally(const char* id);
  const Tally* find(const char* id) const;
  uint64_t violations() const;
  uint64_t inconclusive() const;
  /// SPEC.md §6.3: 1 for a violation, and for an inconclusive case under `strict`; else 0.
  int exit_code(bool strict) const;
};

/// Every check over every record of a capture.
StateReport check_state_capture(const StateCapture& capture);

}  // namespace vlag::kernel::state
