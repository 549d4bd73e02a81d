#include "sim/composite.h"

#include "spec/error.h"

namespace vlag::sim {

void Composite::add(std::string workload, std::unique_ptr<Benchmark> bench) {
  parts_.push_back({std::move(workload), std::move(bench)});
}

void Composite::start(Machine& m) {
  for (Part& p : parts_) {
    if (p.bench->ends_by_itself()) {
      ++unfinished_;
      p.bench->on_finish([this](Machine& machine) {
        if (--unfinished_ == 0) machine.stop();
      });
    }
    p.first_id = static_cast<int64_t>(m.tasks().size()) + 1;
    p.bench->start(m);
    p.end_id = static_cast<int64_t>(m.tasks().size()) + 1;
  }
}

Benchmark& Composite::owner(const Task& t) {
  for (Part& p : parts_)
    if (t.id >= p.first_id && t.id < p.end_id) return *p.bench;
  throw Error("task " + std::to_string(t.id) + " belongs to no workload");
}

int64_t Composite::burst_done(Machine& m, Task& t) { return owner(t).burst_done(m, t); }

void Composite::timer(Machine& m, Task& t) { owner(t).timer(m, t); }

}  // namespace vlag::sim
