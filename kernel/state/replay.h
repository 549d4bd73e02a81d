// The replay of a capture of the kernel's own state through the model (SPEC.md §6.4, "The
// replay"): every cfs_rq — group entities, at the weights the records show, included — runs,
// record by record, through reference::LinuxRunqueue — seeded from the kernel's state at a complete
// queue snapshot (or at the first switch where the records account for everything queued on it),
// then driven by the capture: each run delta (update_curr with the kernel's delta), each sleep
// (dequeue_entity), each pick at a switch (at every level of the hierarchy), each wakeup
// (enqueue_entity, wakeup_preempt), each migration away, each change of weight or slice a task made
// to itself. Each comparison of the model's result with the kernel's is a decision: agreed,
// differed (the field, both values, the record and what the model had), or not judged with the
// reason. After every record the model takes in what the record shows of the kernel's state
// (kernel/state/replay_mirror.h), so a difference is counted once and the replay goes on from the
// kernel's numbers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernel/bpf/state_capture.h"
#include "kernel/state/replay_mirror.h"
#include "spec/features.h"

namespace vlag::kernel::state {

class StateModel;

/// The ids the replay gives group entities in the model: above every pid (pid_max ≤ 2^22).
inline constexpr int32_t kGroupIdBase = 1 << 30;

enum class DecisionKind { Run, Dequeue, Pick, Placement, Reweight };
inline constexpr size_t kDecisionKinds = 5;
const char* decision_name(DecisionKind kind);

struct DecisionTally {
  uint64_t agreed = 0;
  uint64_t differed = 0;
  std::map<std::string, uint64_t> not_judged;  // by reason
  uint64_t compared() const { return agreed + differed; }
  uint64_t not_judged_total() const;
};

/// One decision where the model and the kernel part.
struct Difference {
  DecisionKind kind = DecisionKind::Run;
  size_t record = 0;  // its index in the capture, in time order
  uint64_t time_ns = 0;
  int cpu = -1;
  uint64_t cfs_rq = 0;
  std::string task;   // "comm:pid"
  std::string field;  // "pick", "v", "d", "vlag", "vprot", "delayed", "rel_deadline"
  std::string kernel, model;
  std::string model_had;  // the model's state of the entities concerned before the decision
  std::string text() const;
};

struct ReplayResult {
  std::array<DecisionTally, kDecisionKinds> kinds;
  std::vector<Difference> differences;  // the first kMaxDifferences
  static constexpr size_t kMaxDifferences = 5;
  uint64_t cfs_rqs_replayed = 0;  // seeded at least once
  uint64_t cfs_rqs_with_groups = 0;
  uint64_t seeds = 0;  // times a cfs_rq was seeded from a complete snapshot
  // Picks and runs on cfs_rqs holding group entities whose protection (vprot) was not compared:
  // the slice it is armed over there was seen to be neither the recorded slices' smallest nor
  // the deadline's (docs/kernel-state.md).
  uint64_t group_protections_not_compared = 0;
  DecisionTally group_picks;  // the picks on cfs_rqs holding group entities (also in kinds)
  std::string preset;         // the model's preset and features

  const DecisionTally& tally(DecisionKind k) const { return kinds[static_cast<size_t>(k)]; }
  uint64_t compared() const;
  uint64_t agreed() const;
  uint64_t differed() const;
};

class DecisionReplay {
 public:
  /// `params`: the kernel's (KernelSetup), the base slice the capture's; `vprot`: the capture's
  /// layout has se->vprot; `max_slice_clamp`: its entity_lag clamps to the largest slice + TICK.
  DecisionReplay(const Params& params, bool vprot, bool max_slice_clamp);

  /// Record `index`, after StateModel::begin and before StateModel::apply of it.
  void feed(const bpf::StateRecord& r, size_t index, const StateModel& model);
  ReplayResult& result() { return result_; }

 private:
  struct Field {
    const char* name;
    std::string kernel, model;
  };
  struct Pending {  // a decision of the record, final once the cfs_rq's counts are checked
    DecisionKind kind;
    uint64_t cfs_rq;
    bool groups;      // made on a cfs_rq holding group entities
    Difference diff;  // field empty: agreed
  };

  Mirror& mirror(uint64_t id, int cpu);
  /// The cfs_rq of a task's own entity, if the record shows one and it is to be replayed.
  Mirror* replayed(const bpf::TaskState& t, int cpu);
  std::string cannot_judge(const Mirror& m, const bpf::StateRecord& r, int cpu,
                           bool needs_curr) const;
  void decide(DecisionKind kind, const Mirror& m, const bpf::StateRecord& r, size_t index,
              const std::string& who, const std::vector<Field>& fields, std::string had);
  /// The model's id of an entity: a task's pid, or one the replay gives each group entity.
  int32_t id_of(const bpf::QueuedEntity& e);
  static std::string name_of(const Mirror& m, int32_t id);
  void not_judged(DecisionKind kind, const std::string& why);
  std::string had(const Mirror& m, int32_t pid) const;
  void note_groups(const bpf::StateRecord& r);
  void follow_moves(const bpf::StateRecord& r);
  void settle(const bpf::StateRecord& r);

  bool changed_params(const Member& m, const bpf::EntityState& k) const;
  /// Whether the kernel's v, d and protection of curr are what a dequeue and enqueue of it from
  /// the model's state give: sched_setaffinity() and group moves re-place the running task with
  /// no record, and on 6.18 leave the saved lag in the word vprot shares.
  bool replaced(const Mirror& m, int32_t pid, const bpf::EntityState& k) const;
  void on_reweight(Mirror& m, const bpf::StateRecord& r, size_t index, const bpf::TaskState& t);
  void on_runtime(const bpf::StateRecord& r, size_t index, int cpu);
  void on_switch(const bpf::StateRecord& r, size_t index, int cpu);
  void put_prev_groups(const bpf::StateRecord& r, size_t index, int cpu,
                       const std::set<uint64_t>& picked);
  void pick_at(const bpf::StateRecord& r, size_t index, int cpu, size_t level);
  bool state_at_pick_known(const Mirror& m, const bpf::StateRecord& r, size_t level);
  /// The cfs_rq a group entity of `m` owns, where the records showed it.
  Mirror* group_below(const Mirror& m, int32_t group);
  static bool only_delayed(const Mirror& m);
  void on_wakeup(const bpf::StateRecord& r, size_t index, int cpu);
  void on_migrate(const bpf::StateRecord& r, size_t index, int cpu);
  /// At a switch to a task of the cfs_rq: the tree from a complete queue snapshot, or, for a
  /// cfs_rq not in step, the entities the records last showed queued there if they account for
  /// the kernel's count, weights and key sum; the pick as curr.
  void seed_at_switch(Mirror& m, const bpf::StateRecord& r, size_t index, size_t level);

  Params params_;
  bool vprot_;
  bool max_slice_clamp_;
  std::unordered_map<uint64_t, Mirror> mirrors_;
  std::unordered_map<int32_t, uint64_t> home_;       // pid -> the cfs_rq it is a member of
  std::unordered_map<uint64_t, int32_t> group_ids_;  // a group entity's address -> its id
  std::unordered_map<uint64_t, uint64_t> group_rq_;  // a group entity's address -> its cfs_rq
  std::unordered_map<int32_t, Member> transit_;      // left for another CPU, not arrived yet
  std::vector<Pending> pending_;
  std::unordered_set<uint64_t> disturbed_;  // cfs_rqs whose snapshot the model did not expect
  const StateModel* model_ = nullptr;
  ReplayResult result_;
};

}  // namespace vlag::kernel::state
