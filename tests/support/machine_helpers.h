// The machine the simulator tests run on: the default preset at HZ 250 with a 1 µs context switch,
// the wakeup placement and trace directory each test chooses; a workload of hogs all started on
// CPU 0.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

/// n hogs created and woken on CPU 0 with prev placement: only balancing can spread them.
class HogsOnCpu0 : public sim::Workload {
 public:
  explicit HogsOnCpu0(int n) : n_(n) {}
  void start(sim::Machine& m) override {
    for (int i = 0; i < n_; ++i) {
      sim::TaskAttrs a;
      a.name = "hog" + std::to_string(i);
      tasks_.push_back(&m.add_task(a, 0));
      m.wake(*tasks_.back(), sim::kForever);
    }
  }
  int64_t burst_done(sim::Machine&, sim::Task&) override { return sim::kForever; }
  const std::vector<sim::Task*>& tasks() const { return tasks_; }

 private:
  int n_;
  std::vector<sim::Task*> tasks_;
};

}  // namespace vlag::testing
