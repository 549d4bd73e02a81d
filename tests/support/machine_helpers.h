// The machine the simulator tests run on: the default preset at HZ 250 with a 1 µs context switch,
// the wakeup placement and trace directory each test chooses.
#pragma once

#include <string>
#include <utility>

#include "sim/machine.h"

namespace vlag::testing {

inline sim::MachineConfig test_machine(int cpus, sim::Placement placement,
                                       std::string trace_dir = {}) {
  sim::MachineConfig c;
  c.params = make_params(preset_by_name(kDefaultPreset), 250, cpus);
  c.placement = placement;
  c.switch_cost_ns = 1'000;
  c.trace_dir = std::move(trace_dir);
  return c;
}

}  // namespace vlag::testing
