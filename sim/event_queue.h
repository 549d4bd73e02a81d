// The simulator's agenda: future events ordered by (time, insertion order), so that events at the
// same instant happen in the order they were scheduled and a run is a function of its seed.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace vlag::sim {

enum class EventType : uint8_t {
  Tick,      // the timer tick of `cpu`
  BurstEnd,  // the running task of `cpu` finishes its burst (stale unless gen matches)
  Timer,     // a workload timer of task `task` reaches its hard expiry (stale unless gen matches)
  Resched,   // `cpu` switches after a wakeup's cost (stale unless gen matches)
  HrTick,    // the HRTICK timer of `cpu`: its running task's slice ends (stale unless gen matches)
};

struct SimEvent {
  int64_t time = 0;
  uint64_t order = 0;
  EventType type = EventType::Tick;
  int cpu = 0;
  int64_t task = 0;
  uint64_t gen = 0;  // the CPU's (Timer: the timer's) generation when scheduled
};

class EventQueue {
 public:
  void push(SimEvent e) {
    e.order = next_order_++;
    heap_.push(e);
  }
  bool empty() const { return heap_.empty(); }
  const SimEvent& top() const { return heap_.top(); }
  SimEvent pop() {
    SimEvent e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct Later {
    bool operator()(const SimEvent& a, const SimEvent& b) const {
      return a.time != b.time ? a.time > b.time : a.order > b.order;
    }
  };
  std::priority_queue<SimEvent, std::vector<SimEvent>, Later> heap_;
  uint64_t next_order_ = 0;
};

}  // namespace vlag::sim
