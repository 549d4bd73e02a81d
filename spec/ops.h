// The operation vocabulary of SPEC.md §4 as data: one Op is one step of the model, on one
// entity of one runqueue. The reference and the optimized runqueue both take Ops (apply), drivers
// and fuzzers produce them, and observers receive them back with the state they led to
// (spec/observer.h).
#pragma once

#include <cstdint>
#include <string>

namespace vlag {

/// A task: a pid.
using TaskId = int64_t;
/// A scheduling entity of one runqueue (SPEC.md §2). A task's entity has its task's id; a group
/// entity (the entity of a task group's runqueue in its parent runqueue) has an id of its own.
using EntityId = int64_t;
/// A runqueue: a CPU's root runqueue or a task group's on that CPU (spec/TRACE.md §2). 0 is the
/// runqueue of a trace, a machine's CPU or a test that names no other.
using RunqueueId = int64_t;

enum class OpKind : uint8_t {
  Create,         // §4.12: se, a = weight, b = slice (0: base slice)
  Exit,           // §4.12: se
  Enqueue,        // §4.3/§4.9: se (a wakeup; a new entity gets ENQUEUE_INITIAL)
  Dequeue,        // §4.7: se, flags & kDequeueSleep
  Pick,           // §4.4: pick_next_entity
  Run,            // §4.1: update_curr, a = δ ns
  Tick,           // §4.2
  Reweight,       // §4.8: se, a = new weight
  SetSlice,       // §4.10: se, a = slice (0: base slice)
  Yield,          // §4.11
  WakeupPreempt,  // §4.6: se = the wakee
  Detach,         // §4.13: se leaves for another runqueue, taking a Migrant (spec/migrant.h)
  Attach,         // §4.13: se arrives from another runqueue; a = weight, b = slice (0: base)
  PutPrev,        // §10.2 put_prev_entity: se, the running entity, returns to the tree
};

inline constexpr uint32_t kDequeueSleep = 1;

struct Op {
  OpKind kind = OpKind::Pick;
  EntityId se = 0;  // the entity the operation names (none for Pick, Run, Tick, Yield)
  int64_t a = 0;
  int64_t b = 0;
  uint32_t flags = 0;
  /// The runqueue it applies to: a runqueue ignores it or checks that it is its own.
  RunqueueId rq = 0;
};

/// "enqueue 3", "run 1000", "dequeue 2 sleep": the form used in counterexamples and logs.
std::string to_string(const Op& op);
const char* op_name(OpKind kind);

}  // namespace vlag
