// The operation vocabulary of SPEC.md §4 as data: one Op is one step of the model. The
// reference and the optimized runqueue both take Ops (apply), drivers and fuzzers produce them,
// and observers receive them back with the state they led to.
#pragma once

#include <cstdint>
#include <string>

namespace vlag {

using TaskId = int64_t;

enum class OpKind : uint8_t {
  Create,         // §4.12: id, a = weight, b = slice (0: base slice)
  Exit,           // §4.12: id
  Enqueue,        // §4.3/§4.9: id (a wakeup; a new entity gets ENQUEUE_INITIAL)
  Dequeue,        // §4.7: id, flags & kDequeueSleep
  Pick,           // §4.4: pick_next_entity
  Run,            // §4.1: update_curr, a = δ ns
  Tick,           // §4.2
  Reweight,       // §4.8: id, a = new weight
  SetSlice,       // §4.10: id, a = slice (0: base slice)
  Yield,          // §4.11
  WakeupPreempt,  // §4.6: id = the wakee
  Detach,         // §4.13: id leaves for another runqueue, taking a Migrant (spec/migrant.h)
  Attach,         // §4.13: id arrives from another runqueue; a = weight, b = slice (0: base)
};

inline constexpr uint32_t kDequeueSleep = 1;

struct Op {
  OpKind kind = OpKind::Pick;
  TaskId id = 0;
  int64_t a = 0;
  int64_t b = 0;
  uint32_t flags = 0;
};

/// "enqueue 3", "run 1000", "dequeue 2 sleep": the form used in counterexamples and logs.
std::string to_string(const Op& op);
const char* op_name(OpKind kind);

}  // namespace vlag
