#include "spec/ops.h"

namespace vlag {

const char* op_name(OpKind kind) {
  switch (kind) {
    case OpKind::Create:
      return "create";
    case OpKind::Exit:
      return "exit";
    case OpKind::Enqueue:
      return "enqueue";
    case OpKind::Dequeue:
      return "dequeue";
    case OpKind::Pick:
      return "pick";
    case OpKind::Run:
      return "run";
    case OpKind::Tick:
      return "tick";
    case OpKind::Reweight:
      return "reweight";
    case OpKind::SetSlice:
      return "set_slice";
    case OpKind::Yield:
      return "yield";
    case OpKind::WakeupPreempt:
      return "wakeup_preempt";
    case OpKind::Detach:
      return "detach";
    case OpKind::Attach:
      return "attach";
    case OpKind::PutPrev:
      return "put_prev";
  }
  return "?";
}

namespace {

// Each piece is appended on its own: `" w=" + std::to_string(x)` inserts the literal at the front
// of the temporary, which gcc 12 at -O3 reports as a -Wrestrict overlap that cannot happen (GCC
// bug 105651), failing Release builds under -Werror.
void append(std::string& s, const char* label, int64_t value) {
  s += label;
  s += std::to_string(value);
}

}  // namespace

std::string to_string(const Op& op) {
  std::string s = op_name(op.kind);
  const auto id = [&] { append(s, " ", op.se); };
  switch (op.kind) {
    case OpKind::Create:
      id();
      append(s, " w=", op.a);
      append(s, " slice=", op.b);
      break;
    case OpKind::Exit:
    case OpKind::Enqueue:
    case OpKind::WakeupPreempt:
    case OpKind::Detach:
    case OpKind::PutPrev:
      id();
      break;
    case OpKind::Attach:
      id();
      append(s, " w=", op.a);
      append(s, " slice=", op.b);
      break;
    case OpKind::Dequeue:
      id();
      if (op.flags & kDequeueSleep) s += " sleep";
      break;
    case OpKind::Run:
      append(s, " ", op.a);
      break;
    case OpKind::Reweight:
    case OpKind::SetSlice:
      id();
      append(s, " ", op.a);
      break;
    case OpKind::Pick:
    case OpKind::Tick:
    case OpKind::Yield:
      break;
  }
  return s;
}

}  // namespace vlag
