// A workload that stands for a real benchmark tool: besides driving its tasks it prints the
// tool's own output and hands its figures to comparisons as metrics. A benchmark that ends by
// itself (hackbench after the last message, cyclictest after -l loops) calls finish(); alone on
// a machine that stops the run, inside a composition (sim/composite.h) the run goes on until
// every benchmark that ends by itself has ended.
#pragma once

#include <functional>
#include <string>

#include "sim/machine.h"
#include "sim/metric.h"

namespace vlag::sim {

class Benchmark : public Workload {
 public:
  /// The tool's output for the run that ended with st.
  virtual std::string report(const MachineStats& st) const = 0;
  virtual Metrics metrics(const MachineStats& st) const = 0;
  /// True for a benchmark that finishes its work and exits; false for one stopped from outside.
  virtual bool ends_by_itself() const { return false; }

  bool finished() const { return finished_at_ns_ >= 0; }
  int64_t finished_at_ns() const { return finished_at_ns_; }
  /// What finish() does instead of stopping the machine.
  void on_finish(std::function<void(Machine&)> f) { on_finish_ = std::move(f); }

 protected:
  void finish(Machine& m) {
    finished_at_ns_ = m.now();
    if (on_finish_)
      on_finish_(m);
    else
      m.stop();
  }

 private:
  int64_t finished_at_ns_ = -1;
  std::function<void(Machine&)> on_finish_;
};

}  // namespace vlag::sim
