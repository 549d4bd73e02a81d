// A capture's ring buffer records kept as they came, to decode later: the cheap way to record
// a busy machine, since decoding and formatting each record as it arrives costs the reader a
// whole CPU under a hackbench-like load (README.md, "Overhead"). The file is "VLAGBPF1" and
// then, per record, its size as a little-endian u32 and its bytes (state_record.h).
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf {

class RawWriter {
 public:
  explicit RawWriter(const std::string& path);  // throws CaptureError (System)
  void write(const void* data, size_t size);    // throws CaptureError (System)
  void close();                                 // flushes; throws CaptureError (System)

 private:
  std::string path_;
  std::unique_ptr<FILE, int (*)(FILE*)> file_;
};

// Decodes every record of a raw capture, in file order; returns how many. Throws CaptureError
// (System) naming the file and the byte offset where it is not a raw capture.
uint64_t read_raw_capture(const std::string& path,
                          const std::function<void(const StateRecord&)>& on_record);

}  // namespace vlag::kernel::bpf
