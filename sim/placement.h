// Wakeup CPU placement: which CPU's runqueue a waking task joins (Linux's select_task_rq_fair,
// reduced to a flat machine: no domains, no wake_affine, no cache or capacity).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vlag::sim {

enum class Placement : uint8_t {
  Prev,      // the task's previous CPU, always
  Idle,      // select_idle_sibling-like: prev if idle, else the first idle CPU from prev on
  SisShort,  // Idle, and when no CPU is idle, the waker's CPU if the one task it runs is short
             // (Chen Yu's SIS_SHORT RFC v2, 2022)
};

/// "prev", "idle" or "sis-short"; throws vlag::Error otherwise.
Placement placement_by_name(std::string_view name);
std::string_view placement_name(Placement p);
std::vector<std::string> placement_names();

/// What placement sees of one CPU.
struct CpuLoad {
  bool idle = false;         // runs nothing and has nothing queued
  bool short_alone = false;  // exactly one runnable task, running, and it is short
};

struct WakeupSite {
  int prev = 0;        // the wakee's previous CPU: where the idle scan starts
  int waker_cpu = -1;  // the CPU of the task that wakes it; -1: a timer or the machine
};

/// The CPU the wakee joins.
int place_wakeup(Placement p, const WakeupSite& site, const std::vector<CpuLoad>& cpus);

/// SIS_SHORT's test (the series' is_short_task, v4 form): a task is short when it has a duration
/// average and that average is at most base_slice / kShortRatio (the base slice is
/// sysctl_sched_min_granularity's successor, scaled by the same log-CPU factor).
inline constexpr int64_t kShortRatio = 8;
inline bool is_short_task(int64_t dur_avg_ns, int64_t base_slice_ns) {
  return dur_avg_ns > 0 && dur_avg_ns * kShortRatio <= base_slice_ns;
}

}  // namespace vlag::sim
