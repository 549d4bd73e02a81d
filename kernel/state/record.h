// `vlag kernel record --state`: the kernel's own EEVDF state captured with BPF around a command
// (kernel/bpf/), kept as the ring buffer's raw records and decoded afterwards — decoding as they
// come costs the reader a CPU on a busy machine, and then records are lost — into a directory the
// checks of SPEC.md §6.4 read (kernel/state/capture_file.h): state.raw and capture.json.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::state {

struct StateRecordOptions {
  std::vector<int> cpus;             // empty: every CPU
  double duration_s = 0;             // 0: until the command exits
  std::vector<std::string> command;  // empty: capture for duration_s
  std::string out_dir;               // empty: a new directory under /tmp
  bool queues = true;                // queue snapshots at each switch (INV-PICK-EDF, sums)
};

struct RecordedState {
  std::string dir;
  bpf::CaptureResult result;
};

/// Captures and writes the directory. Throws bpf::CaptureError where capturing is not possible
/// here (not root, no BTF, not built, a tracepoint missing) and vlag::Error where the directory
/// cannot be written. `on_start` runs once the probes are attached.
RecordedState record_state(const StateRecordOptions& options,
                           const std::function<void(const bpf::KernelParameters&)>& on_start = {});

}  // namespace vlag::kernel::state
