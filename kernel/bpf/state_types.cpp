// The parts of state_capture.h that need no BPF: names, the error type, the layout's summary.
#include <numeric>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf {

const char* kind_name(RecordKind kind) {
  switch (kind) {
    case RecordKind::Switch:
      return "switch";
    case RecordKind::Wakeup:
      return "wakeup";
    case RecordKind::WakeupNew:
      return "wakeup_new";
    case RecordKind::Migrate:
      return "migrate";
    case RecordKind::Runtime:
      return "runtime";
    case RecordKind::Exit:
      return "exit";
    case RecordKind::SetAttr:
      return "setattr";
  }
  return "?";
}

const char* error_kind_name(CaptureErrorKind kind) {
  switch (kind) {
    case CaptureErrorKind::NotBuilt:
      return "not built";
    case CaptureErrorKind::NotRoot:
      return "not root";
    case CaptureErrorKind::NoBtf:
      return "no BTF";
    case CaptureErrorKind::MissingTracepoint:
      return "missing tracepoint";
    case CaptureErrorKind::Load:
      return "load";
    case CaptureErrorKind::Attach:
      return "attach";
    case CaptureErrorKind::Command:
      return "command";
    case CaptureErrorKind::System:
      return "system";
  }
  return "?";
}

CaptureError::CaptureError(CaptureErrorKind kind, const std::string& message)
    : Error("kernel state capture: " + message), kind_(kind) {}

std::string KernelLayout::describe() const {
  std::string s = zero_vruntime ? "zero_vruntime" : "min_vruntime";
  s += sum_names ? " sum_w_vruntime/sum_weight" : " avg_vruntime/avg_load";
  s += nr_queued ? " nr_queued" : " nr_running";
  s += !vprot ? " vlag" : vprot_union ? " vlag|vprot(union)" : " vlag,vprot";
  if (sched_delayed) s += " sched_delayed";
  if (rel_deadline) s += " rel_deadline";
  if (custom_slice) s += " custom_slice";
  if (min_slice) s += " min_slice";
  if (max_slice) s += " max_slice";
  return s;
}

uint64_t CaptureResult::lost_total() const {
  return std::accumulate(lost_per_cpu.begin(), lost_per_cpu.end(), uint64_t{0});
}

}  // namespace vlag::kernel::bpf
