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
  }
  return "?";
}

std::string to_string(const Op& op) {
  std::string s = op_name(op.kind);
  const auto id = [&] { s += " " + std::to_string(op.se); };
  switch (op.kind) {
    case OpKind::Create:
      id();
      s += " w=" + std::to_string(op.a) + " slice=" + std::to_string(op.b);
      break;
    case OpKind::Exit:
    case OpKind::Enqueue:
    case OpKind::WakeupPreempt:
    case OpKind::Detach:
      id();
      break;
    case OpKind::Attach:
      id();
      s += " w=" + std::to_string(op.a) + " slice=" + std::to_string(op.b);
      break;
    case OpKind::Dequeue:
      id();
      if (op.flags & kDequeueSleep) s += " sleep";
      break;
    case OpKind::Run:
      s += " " + std::to_string(op.a);
      break;
    case OpKind::Reweight:
    case OpKind::SetSlice:
      id();
      s += " " + std::to_string(op.a);
      break;
    case OpKind::Pick:
    case OpKind::Tick:
    case OpKind::Yield:
      break;
  }
  return s;
}

}  // namespace vlag
