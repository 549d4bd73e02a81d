#include "sim/placement.h"

#include <string>

#include "spec/error.h"

namespace vlag::sim {

Placement placement_by_name(std::string_view name) {
  if (name == "prev") return Placement::Prev;
  if (name == "idle") return Placement::Idle;
  throw Error("unknown placement '" + std::string(name) + "' (prev or idle)");
}

int place_wakeup(Placement p, int prev, const std::vector<bool>& idle) {
  if (p == Placement::Prev || idle[static_cast<size_t>(prev)]) return prev;
  // Scan from the previous CPU onwards, as select_idle_cpu wraps around from the target.
  const int n = static_cast<int>(idle.size());
  for (int k = 1; k < n; ++k) {
    const int c = (prev + k) % n;
    if (idle[static_cast<size_t>(c)]) return c;
  }
  return prev;
}

}  // namespace vlag::sim
