// Fuzzes the /sys/kernel/debug/sched/debug parser and the SNAP-* checks: any input either
// parses or is rejected with vlag::Error; nothing crashes.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "kernel/sched_debug.h"
#include "kernel/snapshot_check.h"
#include "spec/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    vlag::kernel::check_snapshot(vlag::kernel::parse_sched_debug(in, "fuzz"));
  } catch (const vlag::Error&) {
  }
  return 0;
}
