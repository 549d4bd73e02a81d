// The observer interface (SPEC.md §4): every runqueue reports each operation it completed, with
// the state it led to. Num is the runqueue's virtual-time type (exact rational in the reference,
// 64-bit integers in Linux arithmetic). Trace writers and statistics plug in here; nothing an
// observer does can change the runqueue.
#pragma once

#include <cstdint>
#include <optional>

#include "spec/ops.h"

namespace vlag {

enum class Status : uint8_t { Sleeping, Queued, Delayed };

template <class Num>
struct EntityState {
  TaskId id = 0;
  int64_t weight = 0;
  int64_t slice = 0;
  Num vruntime{};
  Num deadline{};
  Num vlag{};  // V − v while queued; the saved lag while sleeping
  Status status = Status::Sleeping;
  bool running = false;
  bool eligible = false;
};

template <class Num>
struct Event {
  Op op;
  int64_t now = 0;
  std::optional<TaskId> picked;  // Pick: the entity now running (nullopt: idle)
  bool preempt = false;          // WakeupPreempt: the decision
  bool need_resched = false;
  std::optional<EntityState<Num>> entity;  // the entity op.id names, after the operation
  Num V{};
  int64_t W = 0;
  int64_t nr_queued = 0;
};

template <class Num>
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_event(const Event<Num>& event) = 0;
};

}  // namespace vlag
