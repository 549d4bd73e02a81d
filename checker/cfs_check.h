// `vlag check` for traces of the CFS policies (header preset "cfs" or "cfs-latency-nice"): one
// streaming pass over a runqueue's history (checker/checker.h runs one per runqueue) that judges
// the SPEC.md §8.5 invariants on the trace's own numbers, read as
// §8.4 defines them (V = min_vruntime, d = vruntime + latency offset, elig = on the latency
// tree). Memory is proportional to the live tasks.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "cfs/tunables.h"
#include "checker/level_facts.h"
#include "checker/report.h"
#include "trace/event.h"

namespace vlag::checker {

class CfsChecker {
 public:
  CfsChecker(const trace::Header& header, std::string file, RunqueueId rq, Report& report);

  /// One event of the runqueue; `index`: its position among the trace's events.
  void consume(const trace::Event& e, int64_t line, int64_t index);
  void finish() {}
  int64_t events() const { return index_; }
  /// What the hierarchy's rules read of this runqueue: its queued tasks' count and weight (kept
  /// as the events change them), and one entity's status and weight.
  LevelFacts level() const { return level_; }
  std::optional<MemberFacts> member(EntityId se) const;

 private:
  struct Task {
    int64_t weight = 0;
    Exact v;
    Exact key;  // d: the latency-tree key
    Status status = Status::Sleeping;
    bool on_latency_tree = false;
    bool slept = false;     // its last dequeue in this trace was a sleep, at vruntime v
    int64_t last_ran = -1;  // when it last ran (picked or ran), -1: not in this trace
    int64_t ran_since_pick = 0;
  };

  void check_min_vruntime(const trace::Event& e);
  void check_place(const trace::Event& e, const Task* before);
  void check_pick(const trace::Event& e);
  bool enters_latency_tree(const Task& t) const;
  int wakeup_preempt(const Task& curr, const Task& se) const;
  bool buddy_bound_allows(const Task& p, const Exact& min_v) const;
  void apply(const trace::Event& e);
  // An entity's part of level_, taken out before an event changes it and put back after.
  void count(const Task& t, int sign);
  void violate(const char* id, std::string detail, Witness w);
  void checked(const char* id) { ++report_.stats[id].checked; }

  cfs::Tunables tun_;
  bool latency_nice_;
  std::string file_;
  Report& report_;
  std::unordered_map<EntityId, Task> tasks_;
  std::optional<EntityId> curr_;
  std::optional<Exact> V_;
  LevelFacts level_;
  int64_t index_ = 0;  // this runqueue's events so far
  int64_t trace_index_ = 0;
  int64_t line_ = 0;
};

}  // namespace vlag::checker
