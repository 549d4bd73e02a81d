// The replay's picture of one cfs_rq (SPEC.md §6.4, the replay): the task entities it holds as
// reference::LinuxRunqueue keeps them — weights scaled down as the kernel's sums take them,
// vruntimes and deadlines as the kernel's u64 bits — with curr, the next buddy, curr's
// protection and the clock curr's vruntime is up to date at. Between decisions the mirror is the
// model's state; at every record it takes in what the record shows of the kernel's, so each
// decision starts from the kernel's state as far as the capture shows it. kernel/state/replay.cpp
// drives it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kernel/bpf/state_capture.h"
#include "reference/runqueue.h"

namespace vlag::kernel::state {

using ModelRunqueue = reference::LinuxRunqueue;
using ModelEntity = ModelRunqueue::Entity;

/// A kernel u64 vruntime or deadline as the model's time (the same bits, compared as Linux does).
inline LinuxTime as_time(uint64_t bits) { return LinuxTime(static_cast<int64_t>(bits)); }

struct Member {
  ModelEntity e;  // id = the task's pid, or the replay's id for a group entity
  uint64_t se = 0;
  std::string comm;
  bool lag_known = true;  // e.vlag is the lag its dequeue saved (recorded or replayed)
  // e.seq orders it among entities of equal deadline as the kernel's tree does (it joined the
  // tree at a record or a model operation, not at a seeding from a snapshot)
  bool order_known = true;
};

/// The last run delta the replay applied to curr, and curr before it.
struct LastDelta {
  int32_t pid = 0;
  uint64_t clock = 0;
  int64_t delta = 0;
  ModelEntity before;
};

struct Mirror {
  uint64_t id = 0;  // the cfs_rq's address
  int cpu = -1;
  bool has_groups = false;  // a group entity was seen on it
  bool synced = false;      // every queued entity, curr and their numbers are known
  bool ever_synced = false;
  std::string why =
      "not seeded yet (no complete queue snapshot, the records not showing all it holds)";
  std::map<int32_t, Member> members;  // by pid: queued ones and those that slept here
  std::optional<int32_t> curr;
  std::optional<int32_t> next;
  std::optional<LinuxTime> prot;       // curr's vprot; nullopt: not known
  uint64_t v0 = 0;                     // the kernel's zero_vruntime at its last record
  std::optional<uint64_t> curr_clock;  // rq clock_task curr's vruntime is charged up to
  std::optional<LastDelta> last_delta;
  size_t clock_record = SIZE_MAX;  // the record that last brought curr up to date
  size_t last_record = SIZE_MAX;   // the last record that showed one of its entities

  void unsync(std::string reason);
  Member* member(int32_t pid);
  const Member* member_by_se(uint64_t se) const;
  /// The model from this state (throws vlag::Error when it is not one the model can hold).
  ModelRunqueue model(const Params& params) const;
  /// Takes the model's state back after its operations.
  void absorb(const ModelRunqueue& rq);
  /// Takes in an entity (a task's, or a group's under the replay's id for it) as a record shows
  /// it: its weight, slice, vruntime, deadline and status, and the saved lag of one not queued
  /// (a queued entity's vlag word is its vprot).
  Member& take(int32_t id, const bpf::QueuedEntity& k, const std::string& comm);
  /// The record's cfs_rq numbers: the reference point, the next buddy (when it is a member).
  void take_cfs_rq(const bpf::CfsRqState& q);
  /// Whether who is queued, with which weights, is what the kernel's counts and sums say; then
  /// whether the tree's vruntimes give its sum_w_vruntime. "" when both hold, else why not.
  std::string membership_differs(const bpf::CfsRqState& q) const;
  std::string keys_differ(const bpf::CfsRqState& q) const;
};

}  // namespace vlag::kernel::state
