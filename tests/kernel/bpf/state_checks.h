// What must hold of the kernel's own EEVDF numbers in a capture of kernel/bpf, as the live test
// judges it (the first drafts of SPEC.md §6's checks on the kernel: INV-PICK-ELIGIBLE,
// INV-PICK-EDF, the kernel's sums against its own entities). Each check counts what it could
// judge, what it could not and why, and each violation as a line naming the record and values.
// Records are taken in time order (sort by time_ns first).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf::checks {

struct Tally {
  uint64_t judged = 0;
  std::map<std::string, uint64_t> unknowable;  // why a case could not be judged -> how often
  std::vector<std::string> violations;
  uint64_t unknowable_total() const;
  std::string summary() const;  // "judged N, not knowable M (reason: k, ...), violated V"
};

// Where a capture misses events: record b "shows a gap" when it shows a different task running
// on its CPU than the last switch there put in (a switch whose prev is not the last next, a
// runtime or exit record of another task); the events missing lie between the record that
// made that task current (a) and b. Lost records do this, and so do tasks whose own events the
// kernel does not trace (on some machines a supervisor's threads: nothing is traced while they
// run, not even their switch out, so whatever they wake and switch to is missed too). A check
// that relates two records judges only when no gap window lies between them.
class Gaps {
 public:
  explicit Gaps(const std::vector<StateRecord>& records);
  bool shown_at(size_t b) const { return shown_[b]; }
  // No window (a, b) overlaps records from..to.
  bool clean(size_t from, size_t to) const;
  size_t count() const { return windows_.size(); }

 private:
  std::vector<bool> shown_;
  std::vector<std::pair<size_t, size_t>> windows_;  // (a, b), by b
};

// Linux sums entity weights scaled down (w >> 10, at least 2; 6.6 to 7.0 on 64-bit) or in
// full (7.1 on), the same in sum_weight and in the eligibility test.
enum class SumWeights { Scaled, Full };
const char* sum_weights_name(SumWeights w);
uint64_t sum_weight_of(uint64_t weight, SumWeights w);

// The convention every complete queue snapshot of the capture follows, if one does.
std::optional<SumWeights> sum_convention(const std::vector<StateRecord>& records);

// Each task's vruntime never decreases between consecutive records of it while its entity stays
// on one cfs_rq with one weight and no placement (a wakeup) comes between: only update_curr()
// moves it then. `pids` empty: every task.
Tally vruntime_monotonic(const std::vector<StateRecord>& records, const std::vector<int32_t>& pids);

// At every switch with queue snapshots, each snapshot's tree sums to its cfs_rq's sum_weight and
// sum_w_vruntime (keys relative to zero_vruntime): the kernel's bookkeeping against its own tree.
Tally queue_sums(const std::vector<StateRecord>& records, SumWeights w);

// Without snapshots: at every switch on `cpu`, each cfs_rq of either chain has the sum_weight of
// the entities the capture knows are queued there (seen on_rq in a record and not seen leaving),
// when it knows them all: as many as nr_queued, group entities seen in this very record (their
// weight changes with no record).
Tally known_queue_sums(const std::vector<StateRecord>& records, SumWeights w, int cpu);

// At every switch with queue snapshots, at each level where next's entity was newly picked (not
// shared with prev's chain): it is eligible against V from its cfs_rq's sums, and no eligible
// entity in the tree has an earlier deadline. The deadline order is not judged where the pick
// may have been the next buddy: cfs_rq->next set now, or last seen set to the picked entity
// (a buddy stays set until that entity is picked or dequeued, and PICK_BUDDY takes it whenever
// it is eligible).
Tally picks(const std::vector<StateRecord>& records, SumWeights w);

// Each wakeup of task `pid` after it left the runqueue completely (its switch-out showed it off
// the runqueue, not delayed; a wakeup of a task still running places nothing) shows the placement:
// queued, not curr, deadline − vruntime = its slice (nice 0 only: other weights need the kernel's
// fixed point) and vlag as saved at dequeue.
Tally placements(const std::vector<StateRecord>& records, int32_t pid);

}  // namespace vlag::kernel::bpf::checks
