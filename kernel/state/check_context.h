// What the checks of SPEC.md §6.4 share (kernel/state/checks.cpp runs them): the kernel's
// parameters as the rules of rules/invariants.h take them, the model, the report they add to,
// and the witness lines that print an entity or a cfs_rq. Each check file judges one family:
// pick_check.cpp the picks and sums at a switch, lag_bound_check.cpp the lags at a pick
// (THM-LAG-BOUND-LINUX), lag_check.cpp the lag a dequeue
// saved and a wakeup's placement, deadline_check.cpp the deadlines, replay_check.cpp
// the model's replay of run deltas.
#pragma once

#include <string>

#include "kernel/bpf/state_capture.h"
#include "kernel/state/checks.h"
#include "kernel/state/model.h"
#include "kernel/state/steady.h"
#include "spec/features.h"

namespace vlag::kernel::state {

/// The kernel's parameters for the checks: HZ, the base slice and the feature flags of the
/// capture, on the preset of the capture's kernel release (kernel/kernel_release.h) with the
/// capture's flags.
struct KernelSetup {
  bool known = false;  // the capture carries the parameters
  int hz = 0;
  uint64_t base_slice_ns = 0;
  bool lag_clamp_max_slice = false;  // entity_lag() clamps to the largest slice + TICK
  Params params;
  std::string preset_source;  // why params.preset is the one it is
  std::string unknown_why;    // why they are not known

  explicit KernelSetup(const std::optional<bpf::KernelParameters>& kernel);
  bool has(Feature f) const { return known && params.preset.has(f); }
};

struct CheckContext {
  const KernelSetup& kernel;
  const StateModel& model;
  StateReport& report;
  SteadySystems& steady;  // THM-LAG-BOUND-LINUX's steady systems (kernel/state/steady.h)
};

/// "pid 42 (hog) se=0x… v=… d=… w=… slice=… vlag=… [on_rq,delayed]" or "group se=0x… …".
std::string entity_line(const bpf::QueuedEntity& e, std::string_view role);
/// "cfs_rq 0x… zero_vruntime=… sum_w_vruntime=… sum_weight=… nr_queued=… curr=0x… next=0x…".
std::string cfs_rq_line(const bpf::CfsRqState& c);
/// A witness at a record, its entity lines to be added.
Witness witness_at(const bpf::StateRecord& r);
std::string hex(uint64_t id);

/// The snapshot of next's chain level `level` (its cfs_rq's tree at the pick), if the record
/// has it.
const bpf::QueueSnapshot* snapshot_at(const bpf::StateRecord& r, size_t level);
/// Why a level has no usable snapshot ("" when it has one).
std::string snapshot_missing(const bpf::StateRecord& r, const bpf::QueueSnapshot* q);

void judge_picks(CheckContext& c, const bpf::StateRecord& r);
void judge_lag_bound(CheckContext& c, const bpf::StateRecord& r);
void judge_switch_out(CheckContext& c, const bpf::StateRecord& r);
void judge_placement(CheckContext& c, const bpf::StateRecord& r);
void judge_deadlines(CheckContext& c, const bpf::StateRecord& r);
void judge_replay(CheckContext& c, const bpf::StateRecord& r);

}  // namespace vlag::kernel::state
