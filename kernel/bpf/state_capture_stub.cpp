// state_capture.h where the BPF part was not built (clang, bpftool or libbpf was missing when
// CMake ran): every entry point says so, as a NotBuilt CaptureError.
#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf {
namespace {

CaptureError not_built() {
  return CaptureError(CaptureErrorKind::NotBuilt,
                      "this vlag was built without the BPF program (clang, bpftool or libbpf "
                      "was missing, or VLAG_BPF was OFF, when CMake ran; run scripts/setup as "
                      "root, then rebuild)");
}

}  // namespace

bool capture_built() { return false; }

std::optional<CaptureError> capture_unavailable() { return not_built(); }

KernelParameters read_kernel_parameters() { throw not_built(); }

CaptureResult capture(const CaptureOptions&, const std::function<void(const StateRecord&)>&,
                      const std::function<void(const KernelParameters&)>&) {
  throw not_built();
}

}  // namespace vlag::kernel::bpf
