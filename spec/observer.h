// The observer interface (SPEC.md §4): every runqueue reports each operation it completed as a
// StepReport, with the state it led to. Num is the runqueue's virtual-time type (exact rational in
// the reference, 64-bit integers in Linux arithmetic). Trace writers and statistics plug in here;
// nothing an observer does can change the runqueue.
#pragma once

#include <cstdint>
#include <optional>

#include "spec/ops.h"

namespace vlag {

enum class Status : uint8_t { Sleeping, Queued, Delayed };

/// One entity of the reporting runqueue after the operation (SPEC.md §2).
template <class Num>
struct EntityState {
  EntityId se = 0;
  std::optional<TaskId> task;  // the task whose entity it is; none for a group entity
  int64_t weight = 0;
  int64_t slice = 0;
  Num vruntime{};
  Num deadline{};
  Num vlag{};  // V − v while queued; the saved lag while sleeping
  Status status = Status::Sleeping;
  bool running = false;
  bool eligible = false;
};

/// What a runqueue reports after one operation: the operation, its decision, the entity it
/// named and the runqueue's V, W and |Q|.
template <class Num>
struct StepReport {
  Op op;
  RunqueueId rq = 0;  // the runqueue that made the step
  int64_t now = 0;
  std::optional<EntityId> picked;  // Pick: the entity now running (nullopt: idle)
  bool preempt = false;            // WakeupPreempt: the decision
  bool need_resched = false;
  std::optional<EntityState<Num>> entity;  // the entity op.se names, after the operation
  Num V{};
  int64_t W = 0;
  int64_t nr_queued = 0;
};

template <class Num>
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_step(const StepReport<Num>& report) = 0;
};

}  // namespace vlag
