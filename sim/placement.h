// Wakeup CPU placement: which CPU's runqueue a waking task joins (Linux's select_task_rq_fair,
// reduced to the two policies the simulator models so far).
#pragma once

#include <string_view>
#include <vector>

namespace vlag::sim {

enum class Placement : uint8_t {
  Prev,  // the task's previous CPU, always
  Idle,  // an idle CPU if there is one (the previous first), else the previous CPU
};

/// "prev" or "idle"; throws vlag::Error otherwise.
Placement placement_by_name(std::string_view name);

/// The CPU a task whose previous CPU is prev wakes on; idle[c] says whether CPU c runs nothing
/// and has nothing queued.
int place_wakeup(Placement p, int prev, const std::vector<bool>& idle);

}  // namespace vlag::sim
