// Decoding the BPF program's ring buffer records (state_record.h) into the StateRecord of
// state_capture.h. Pure: no libbpf, so the decoder is tested on bytes built by hand.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf {

// One per capture: a switch's queue snapshots arrive as records of their own just before it,
// from the same CPU, and wait here for it.
class RecordDecoder {
 public:
  // Decodes one record into `out` (reusing its storage); returns false for a queue snapshot,
  // which is kept for the switch record it belongs to. Throws CaptureError (System) when the
  // bytes do not have the layout of state_record.h.
  bool decode(const void* data, size_t size, StateRecord& out);

 private:
  struct Pending {
    uint64_t time_ns = 0;
    std::vector<QueueSnapshot> queues;
  };
  std::map<int, Pending> pending_;  // by the CPU the probe ran on
};

}  // namespace vlag::kernel::bpf
