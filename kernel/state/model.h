// The model of each cfs_rq a capture of the kernel's own state shows (SPEC.md §6.4): the
// entities last seen queued on it and their v, d, w, slice, vlag and flags, the kernel's numbers
// at its last record, and — as important — what the capture cannot show. Records are fed in time
// order; before the checks judge a record, `begin` finds the gaps its CPU shows, and after them
// `apply` takes in what the record shows.
//
// What it knows it cannot know, each a reason a history-dependent check is inconclusive:
// - a CPU not captured, or one whose records were lost (the loader's count per CPU), or a capture
//   that does not say;
// - a gap: the record shows another task running on its CPU than the last switch there put in
//   (lost records, or a task the kernel does not trace: on some machines a supervisor's threads
//   run with no tracepoint firing); everything seen on that CPU before it is stale (an epoch);
// - an entity seen mid-life: no earlier record of it;
// - a group entity's weight and vruntime between records (update_cfs_group reweights it at every
//   enqueue and dequeue of its group, and no tracepoint shows it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernel/bpf/state_capture.h"
#include "kernel/state/capture_file.h"

namespace vlag::kernel::state {

/// What the capture last showed of one sched_entity.
struct EntityView {
  bpf::EntityState last;  // its fields and its cfs_rq's numbers at that record
  int32_t pid = 0;        // its task (0: a group entity)
  std::string comm;
  int cpu = -1;        // the runqueue it was on
  uint64_t epoch = 0;  // that CPU's epoch then
  size_t seen_at = 0;  // the record's index
  uint64_t seen_ns = 0;
  bool curr = false;           // it was its cfs_rq's curr: its vruntime runs on
  uint64_t clock_task = 0;     // curr: the rq clock_task its vruntime and deadline are as of
  bool advanced = false;       // curr: vruntime/deadline advanced past the last record by its
                               // runtime delta (a task's, from a runtime record)
  uint64_t request_slice = 0;  // the largest slice since its current request may have started
  bool rescaled = false;       // its weight changed since its request was set (d − v rescaled)
  bool fresh_request_known = false;  // the model saw the request start (update_deadline, a pick)
  bool dequeue_unrecorded = false;   // it left its cfs_rq with no record (a delayed dequeue that a
                                     // pick or a wakeup completed): the lag it saved is not seen
};

/// What the capture last showed of one cfs_rq.
struct CfsRqView {
  bpf::CfsRqState last;
  int cpu = -1;
  uint64_t epoch = 0;
  size_t seen_at = 0;
  std::unordered_set<uint64_t> queued;  // entities last seen queued here, curr included
};

class StateModel {
 public:
  StateModel(const CaptureFacts& facts, const std::optional<bpf::KernelParameters>& kernel);

  /// The CPU whose runqueue a record is about: the task's for a runtime, exit or setattr record
  /// (whose probe may run on another CPU, holding that runqueue's lock), the record's otherwise.
  static int rq_of(const bpf::StateRecord& r);

  /// Before the checks of record `index`: a gap on its CPU starts a new epoch there.
  void begin(const bpf::StateRecord& r, size_t index);
  /// After them: what the record shows.
  void apply(const bpf::StateRecord& r, size_t index);

  /// Why nothing seen earlier on `cpu` can be related to this record: the CPU was not captured,
  /// records were lost there, the capture does not say, or "" when its history is whole.
  std::string history_unknown(int cpu) const;
  /// history_unknown, and: the view is from an earlier epoch of its CPU (a gap since).
  std::string stale(const EntityView& e) const;
  std::string stale(const CfsRqView& c) const;

  const EntityView* entity(uint64_t id) const;
  const CfsRqView* cfs_rq(uint64_t id) const;
  /// A queued entity arrived on `cpu` (a pull, a remote wakeup) since the CPU's last own record.
  bool arrival_since_local(int cpu) const;
  /// The record made task `pid` current on `cpu` after a gap (the switch that put it there is
  /// missing): begin() saw it.
  bool gap_at(size_t index) const { return gap_index_ == index; }
  uint64_t gaps() const { return gaps_; }
  /// The CPU's epoch: how many gaps it has shown so far.
  uint64_t epoch(int cpu) const;
  uint64_t base_slice_ns() const { return base_slice_ns_; }

 private:
  struct CpuView {
    int32_t running = -1;  // the task the last switch put in (-1: not known yet)
    uint64_t epoch = 0;
    bool arrival = false;
  };
  CpuView& cpu(int c);
  const CpuView* find_cpu(int c) const;
  std::string stale_since(int cpu, uint64_t epoch, const char* what) const;
  void see(const bpf::TaskState& t, const bpf::EntityState& e, bool is_curr, int rq,
           const bpf::StateRecord& r, size_t index);
  void advance_curr(const bpf::StateRecord& r);
  // A complete snapshot is the whole tree: entities the model had there and the snapshot lacks
  // left unrecorded.
  void forget_absent(const bpf::QueueSnapshot& q, uint64_t curr);

  std::vector<int> captured_;  // empty: every CPU
  std::optional<std::vector<uint64_t>> lost_;
  uint64_t base_slice_ns_ = 0;
  std::unordered_map<int, CpuView> cpus_;
  std::unordered_map<uint64_t, EntityView> entities_;
  std::unordered_map<uint64_t, CfsRqView> rqs_;
  size_t gap_index_ = SIZE_MAX;
  uint64_t gaps_ = 0;
};

}  // namespace vlag::kernel::state
