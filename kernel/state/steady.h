// Which cfs_rqs of a capture of the kernel's own state are, at a decision point, the system
// THM-LAG-BOUND-LINUX speaks of (SPEC.md §6): a steady system of CPU-bound entities — every
// entity joined at zero lag and none has left since the system began. A capture never sees a
// cfs_rq begin, but it sees it fresh: a record showing a cfs_rq with at most one entity queued
// (one entity is its own average, lag 0) starts a steady system there, with that entity as its
// member. From then on:
// - a new task's first enqueue (a wakeup_new record) joins at zero lag (__sched_fork clears
//   se->vlag): a member;
// - a woken task joins with the lag it saved when it slept, an entity that sleeps, becomes
//   delayed, migrates, exits or is reniced leaves or changes the system: not steady, until the
//   cfs_rq is fresh again;
// - an enqueue or dequeue below a group entity reweights it (update_cfs_group) with no record:
//   the cfs_rqs above the task's own are not steady;
// - an entity in the tree that is no member joined unrecorded (a remote wakeup on a CPU the
//   capture filters out, a pull), and a gap or lost records on the CPU since the system began
//   hide what happened: whether the system is steady is not known.
// Records are taken in time order, each before the checks judge it (a switch's record comes
// after the dequeue of its prev, so its pick is made in the system that remains).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernel/bpf/state_capture.h"
#include "kernel/state/model.h"

namespace vlag::kernel::state {

struct Steadiness {
  enum class State { Steady, NotSteady, Unknown };
  State state = State::Unknown;
  std::string why;  // NotSteady, Unknown: the reason
};

class SteadySystems {
 public:
  /// What record `r` shows joining, leaving and fresh; before the checks judge it.
  void take(const bpf::StateRecord& r, const StateModel& model);
  /// The cfs_rq `cfs_rq` of CPU `cpu` at a decision point whose queued entities (the tree and
  /// curr, from a complete queue snapshot) are `queued`: steady, not, or not known.
  Steadiness at_decision(uint64_t cfs_rq, int cpu,
                         const std::vector<const bpf::QueuedEntity*>& queued,
                         const StateModel& model);

 private:
  struct System {
    Steadiness::State state = Steadiness::State::Unknown;
    std::string why;
    uint64_t epoch = 0;  // the CPU's epoch when it began (a gap since: not known)
    std::unordered_map<uint64_t, uint64_t> members;  // entity -> its weight when it joined
    uint32_t unnamed = 0;  // members the fresh record did not name (queued, not in its chains)
  };
  void spoil(uint64_t cfs_rq, std::string why);
  std::unordered_map<uint64_t, System> systems_;
};

}  // namespace vlag::kernel::state
