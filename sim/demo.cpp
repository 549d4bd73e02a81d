#include "sim/demo.h"

#include "sim/cpu_runqueue.h"
#include "sim/demo_probe.h"
#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::sim {

DemoWorkload::DemoWorkload(std::vector<DemoTask> tasks)
    : tasks_(std::move(tasks)), overruns_(tasks_.size(), 0) {
  for (const DemoTask& s : tasks_)
    if (s.period_ns < 0 || s.work_ns < 0 || (s.period_ns > 0 && s.work_ns == 0))
      throw Error("task " + s.name + ": a periodic task needs period > 0 and work > 0");
}

void DemoWorkload::start(Machine& m) {
  std::vector<Task*> created;
  for (const DemoTask& s : tasks_) {
    TaskAttrs attrs;
    attrs.name = s.name;
    attrs.nice = s.nice;
    attrs.slice_ns = s.slice_ns;
    created.push_back(&m.add_task(attrs, 0));
  }
  for (Task* t : created) {
    const DemoTask& s = spec(*t);
    m.wake(*t, s.period_ns > 0 ? s.work_ns : kForever);
    if (s.period_ns > 0) m.set_timer(*t, s.period_ns);
  }
}

int64_t DemoWorkload::burst_done(Machine&, Task& t) {
  return spec(t).period_ns > 0 ? 0 : kForever;  // an activation's work done: sleep
}

void DemoWorkload::timer(Machine& m, Task& t) {
  const DemoTask& s = spec(t);
  // Every period_ns from 0: the next expiry is on the grid, however late the timer's slack
  // (SPEC.md §9.2) made this one.
  m.set_timer(t, m.now() - t.timer_late_ns + s.period_ns);
  if (m.wake(t, s.work_ns)) return;
  ++overruns_[static_cast<size_t>(t.id - 1)];
  m.extend(t, s.work_ns);
}

DemoReport run_demo(const Params& params, const std::vector<DemoTask>& tasks, int64_t duration_ns,
                    bool check_invariants, Observer<reference::Num>* observer) {
  if (duration_ns <= 0) throw Error("duration must be positive");
  if (params.ncpus != 1) throw Error("the demo runs on one CPU (ncpus is 1)");
  for (const DemoTask& s : tasks) nice_to_weight(s.nice);  // throws on a nice out of range
  DemoWorkload workload(tasks);
  MachineConfig config;
  config.params = params;
  config.arith = Arith::Exact;
  config.balance = false;
  Machine m(config);
  // The machine made the exact kind, so CPU 0 runs reference::Runqueue.
  auto& cpu0 = dynamic_cast<CpuRunqueueAdapter<reference::Runqueue>&>(m.runqueue(0));
  ExactProbe probe(cpu0.runqueue(), check_invariants);
  cpu0.add_observer(&probe);
  if (observer) cpu0.add_observer(observer);

  DemoReport r;
  r.machine = m.run(workload, duration_ns);
  r.params = params;
  r.duration_ns = duration_ns;
  r.invariant_checks = probe.invariant_checks();
  r.violations = probe.violations();
  std::vector<int64_t> weights;
  std::vector<double> demands;
  for (const DemoTask& s : tasks) {
    weights.push_back(nice_to_weight(s.nice));
    demands.push_back(
        s.period_ns > 0 ? static_cast<double>(s.work_ns) / static_cast<double>(s.period_ns) : 1.0);
  }
  const std::vector<double> ideal = stats::ideal_shares(weights, demands);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = *m.tasks()[i];
    const LagExtremes lag = probe.lag(t.id);
    DemoTaskReport tr;
    tr.spec = tasks[i];
    tr.weight = weights[i];
    tr.slice_ns = cpu0.runqueue().entity(t.id).slice;
    tr.runtime_ns = t.runtime_ns;
    tr.share = static_cast<double>(t.runtime_ns) / static_cast<double>(duration_ns);
    tr.ideal_share = ideal[i];
    tr.min_lag_ns = lag.min_ns;
    tr.max_lag_ns = lag.max_ns;
    // A hog's only wakeup is its start at time 0: not a latency the demo reports.
    if (tasks[i].period_ns > 0) tr.wakeup = stats::summarize(probe.wakeup_latencies(t.id));
    tr.overruns = workload.overruns()[i];
    r.tasks.push_back(tr);
  }
  return r;
}

std::vector<DemoTask> demo_workload() {
  return {
      {"hog-a", 0, 0, 0, 0},
      {"hog-b", 0, 0, 0, 0},
      {"hog-c", 5, 0, 0, 0},
      {"periodic", 0, 500'000, 1'000'000, 100'000},
  };
}

}  // namespace vlag::sim
