#include "sim/placement.h"

#include <string>

#include "sim/name_table.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

constexpr NameTable<Placement, 3> kPlacements = {{
    {Placement::Prev, "prev"},
    {Placement::Idle, "idle"},
    {Placement::SisShort, "sis-short"},
}};

}  // namespace

Placement placement_by_name(std::string_view name) {
  if (const auto p = value_named(kPlacements, name)) return *p;
  throw Error("unknown placement '" + std::string(name) + "' (prev, idle or sis-short)");
}

std::string_view placement_name(Placement p) { return name_of(kPlacements, p); }

std::vector<std::string> placement_names() { return names_of(kPlacements); }

int place_wakeup(Placement p, const WakeupSite& site, const std::vector<CpuLoad>& cpus) {
  const int n = static_cast<int>(cpus.size());
  const auto at = [&](int c) -> const CpuLoad& { return cpus[static_cast<size_t>(c)]; };
  if (p == Placement::Prev || at(site.prev).idle) return site.prev;
  // Scan from the previous CPU onwards, as select_idle_cpu wraps around from the target.
  for (int k = 1; k < n; ++k) {
    const int c = (site.prev + k) % n;
    if (at(c).idle) return c;
  }
  // The machine is busy. SIS_SHORT (RFC v2): when the waker's CPU runs one task and that task is
  // short, wake_affine_idle takes the waker's CPU as the target and the busy idle scan stops
  // there: the wakee waits for a short task instead of paying for a cross-CPU wakeup. The RFC
  // checks this before the idle scan when the LLC is over half busy; a flat machine has no
  // such estimate, so idle CPUs are taken first (the cover letter's answer to spreading).
  if (p == Placement::SisShort && site.waker_cpu >= 0 && at(site.waker_cpu).short_alone)
    return site.waker_cpu;
  return site.prev;
}

}  // namespace vlag::sim
