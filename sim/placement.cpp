#include "sim/placement.h"

#include <string>

#include "spec/error.h"

namespace vlag::sim {

Placement placement_by_name(std::string_view name) {
  if (name == "prev") return Placement::Prev;
  if (name == "idle") return Placement::Idle;
  if (name == "sis-short") return Placement::SisShort;
  throw Error("unknown placement '" + std::string(name) + "' (prev, idle or sis-short)");
}

int place_wakeup(Placement p, const WakeupSite& site, const std::vector<CpuLoad>& cpus) {
  const int n = static_cast<int>(cpus.size());
  const auto at = [&](int c) -> const CpuLoad& { return cpus[static_cast<size_t>(c)]; };
  if (p == Placement::Prev || at(site.prev).idle) return site.prev;
  // Scan from the previous CPU onwards, as select_idle_cpu wraps around from the target.
  for (int k = 1; k < n; ++k) {
    const int c = (site.prev + k) % n;
    if (at(c).idle) return c;
  }
  // The machine is busy. SIS_SHORT: a short wakee woken by a short waker goes where a short
  // task runs alone, so it runs soon without spreading the pair. The scan starts at the
  // waker's CPU, which Linux's wake_affine makes the target of such a wakeup.
  if (p == Placement::SisShort && site.waker_short && site.wakee_short && site.waker_cpu >= 0)
    for (int k = 0; k < n; ++k) {
      const int c = (site.waker_cpu + k) % n;
      if (at(c).short_alone) return c;
    }
  return site.prev;
}

}  // namespace vlag::sim
