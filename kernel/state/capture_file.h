// A saved capture of the kernel's own EEVDF state (kernel/bpf/README.md) as the checks of
// SPEC.md §6.4 read it: its records in time order, the kernel's parameters at start, which CPUs
// it covered and how many records each lost. Three forms are read:
// - a directory `vlag kernel record --state` wrote: state.raw (the ring buffer's records, as
//   kernel/bpf/raw_capture.h keeps them) and capture.json (the parameters and the capture's
//   facts, written here);
// - a raw file alone, with capture.json beside it when there is one;
// - JSON Lines as `state_dump --json` prints them: a first "kernel" object, then one per record
//   (such a file does not say whether records were lost).
// Bad input throws vlag::Error naming the file, the line (or byte offset) and the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::state {

struct CaptureFacts {
  std::vector<int> cpus;                              // the CPUs captured; empty: every CPU
  std::optional<std::vector<uint64_t>> lost_per_cpu;  // nullopt: not known
  uint64_t records = 0;
  double seconds = 0;
  std::string stopped_by;
  std::vector<std::string> command;
  bool queues = false;  // queue snapshots were asked for
};

struct StateCapture {
  std::string source;
  std::optional<bpf::KernelParameters> kernel;  // nullopt: the file does not carry them
  CaptureFacts facts;
  std::vector<bpf::StateRecord> records;  // sorted by time_ns (stable)
};

inline constexpr char kRawName[] = "state.raw";
inline constexpr char kFactsName[] = "capture.json";

/// Reads a capture directory, raw file or JSON Lines file (above).
StateCapture read_state_capture(const std::string& path);

/// capture.json: the kernel's parameters and the capture's facts, one JSON object.
std::string capture_json(const bpf::KernelParameters& kernel, const CaptureFacts& facts);

/// Sorts records by time, keeping the ring buffer's order among equal times.
void sort_by_time(std::vector<bpf::StateRecord>& records);

}  // namespace vlag::kernel::state
