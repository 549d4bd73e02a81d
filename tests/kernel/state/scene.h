// A cfs_rq built by hand for the tests of the checks on the kernel's own numbers: tasks with v,
// d, w and slice on one root cfs_rq of one CPU, and the records a capture would show of it —
// a switch with its queue snapshot, a wakeup, a runtime update — with the kernel's numbers
// (zero_vruntime, sum_weight, sum_w_vruntime, nr_queued, curr) computed from the entities as the
// kernel keeps them, so that a test plants exactly one fault.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernel/bpf/state_capture.h"
#include "kernel/state/arith.h"
#include "kernel/state/capture_file.h"

namespace vlag::kernel::state::testing {

inline constexpr uint64_t kRootRq = 0xc000;
inline constexpr uint64_t kSlice = 1'400'000;

class Scene {
 public:
  explicit Scene(uint64_t zero_vruntime = 1'000'000) : v0_(zero_vruntime) {}

  /// A queued task; its entity id is 0x100 + pid.
  bpf::EntityState& add(int32_t pid, uint64_t v, uint64_t d, uint64_t weight = kNice0Load,
                        uint64_t slice = kSlice);
  bpf::EntityState& at(int32_t pid) { return entities_.at(pid); }
  void set_curr(int32_t pid) { curr_ = pid; }

  /// prev → next: next becomes curr; prev stays queued (back in the tree) unless its entity was
  /// marked off the queue. The snapshot holds the tree after the switch.
  bpf::StateRecord switch_record(int32_t prev, int32_t next, uint64_t time_ns);
  /// The wakeup of a task already placed in the scene (queued, not curr).
  bpf::StateRecord wakeup(int32_t pid, uint64_t time_ns);
  /// curr's update_curr() of `delta`: the record shows v and d as before it, the scene goes on
  /// with them after it (update_deadline included).
  bpf::StateRecord runtime(int32_t pid, uint64_t delta, uint64_t time_ns);

  /// The cfs_rq's numbers now.
  bpf::CfsRqState cfs_rq() const;
  bpf::TaskState task(int32_t pid) const;
  uint64_t clock_task = 5'000'000'000;

 private:
  uint64_t v0_;
  int32_t curr_ = -1;
  std::map<int32_t, bpf::EntityState> entities_;
};

/// A capture of these records, its parameters those of the development machine's kernel (HZ 250,
/// base slice 1.4 ms, Linux 6.18's default features, se->max_slice), every CPU captured with
/// nothing lost.
StateCapture capture_of(std::vector<bpf::StateRecord> records);

}  // namespace vlag::kernel::state::testing
