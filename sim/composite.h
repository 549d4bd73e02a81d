// Several benchmarks in one run (`--workload hackbench+cyclictest`): each starts its own tasks, in
// the order given, and the composite hands every burst end and timer to the benchmark that owns
// the task. The run ends when every part that ends by itself has ended (or at the time limit when
// none does); parts that run until stopped (hogs, cyclictest without -l) are load meanwhile.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/benchmark.h"

namespace vlag::sim {

class Composite : public Workload {
 public:
  struct Part {
    std::string workload;  // the name its tasks carry ("hackbench", "background", ...)
    std::unique_ptr<Benchmark> bench;
    int64_t first_id = 0;  // the task ids it created: [first_id, end_id)
    int64_t end_id = 0;
  };

  void add(std::string workload, std::unique_ptr<Benchmark> bench);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;
  const std::vector<Part>& parts() const { return parts_; }

 private:
  Benchmark& owner(const Task& t);

  std::vector<Part> parts_;
  int unfinished_ = 0;
};

}  // namespace vlag::sim
