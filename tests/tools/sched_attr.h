// Nice and custom slice of the calling task through sched_setattr(2), for the workload programs
// of the kernel captures (tests/tools/). glibc has no wrapper, so the struct is our own copy of
// the kernel's UAPI layout (SCHED_ATTR_SIZE_VER0, 48 bytes). For SCHED_NORMAL, Linux >= 6.12
// takes sched_runtime as the task's custom slice (clamped to 0.1..100 ms); 0 restores the default
// base slice.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace vlag::tools {

struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};
static_assert(sizeof(SchedAttr) == 48, "SCHED_ATTR_SIZE_VER0");

/// Sets SCHED_NORMAL with `nice` and a slice of `slice_us` (0: the default); false (with a
/// message on stderr) when the kernel refuses.
inline bool set_fair_attr(int nice, int64_t slice_us) {
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = 0;  // SCHED_NORMAL
  attr.sched_nice = nice;
  attr.sched_runtime = static_cast<uint64_t>(slice_us) * 1000;
  if (syscall(SYS_sched_setattr, 0, &attr, 0) == 0) return true;
  std::perror("sched_setattr");
  return false;
}

}  // namespace vlag::tools
