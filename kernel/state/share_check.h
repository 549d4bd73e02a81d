// THM-SHARE (SPEC.md §6.2's kernel form) on a capture of the kernel's own state (§6.4): the pair
// windows of kernel/cfs_rq_track.h — the perf-capture path's — driven per cfs_rq from the records,
// on every pair of entities of one cfs_rq runnable together: the tasks of a group's cfs_rq, and
// at a parent level the group entities beside each other and beside tasks (the hierarchical share
// theorem of §10.5, level by level). What a record gives exactly, the check takes as it is:
// - service: a task's sum_exec_runtime at each record, charged to its entity and to every group
//   entity above it on its CPU (an update_curr() the capture did not record, by a remote waker,
//   shows in the next sum);
// - weights and slices as the record or a queue snapshot shows them: a change (a renice, a
//   group entity reweighted by update_cfs_group(), stepwise as its group's load average moves)
//   closes the entity's windows before the service that follows is charged, so each window is
//   judged on one exact weight per entity;
// - runnable: a task on_rq and not delayed; a group entity while its cfs_rq holds a runnable
//   entity; picks and stops from the switches (levels prev and next share stay curr), a new
//   request where a running entity's deadline moved (a pick of the same entity: no switch).
// What a capture does not show is no measurement: a gap on a CPU judges its windows at the last
// record before it and starts afresh; a CPU whose records were lost, or a capture that does not
// say, leaves the entities seen there inconclusive.
#pragma once

#include <cstddef>
#include <memory>

#include "kernel/bpf/state_capture.h"
#include "kernel/state/capture_file.h"
#include "kernel/state/check_context.h"

namespace vlag::kernel::state {

class ShareCheck {
 public:
  explicit ShareCheck(const KernelSetup& kernel, const CaptureFacts& facts);
  ~ShareCheck();
  ShareCheck(const ShareCheck&) = delete;
  ShareCheck& operator=(const ShareCheck&) = delete;

  /// Record `index`, after model.begin() (which finds gaps) and before model.apply().
  void feed(const bpf::StateRecord& r, size_t index, const StateModel& model);
  /// Every window still open judged at its CPU's last record; THM-SHARE's cases with their
  /// witnesses into the report's tally, and each pair's split into its figures.
  void finish(const StateCapture& capture, StateReport& report);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vlag::kernel::state
