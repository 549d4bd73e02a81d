// The simulator's speed (issue target: at least 2 million simulated scheduling events per second
// on one core with trace writing off): a hackbench-like run of `groups` groups (40 tasks each) on
// 2 CPUs, per policy. items/s counts the machine's events (ticks, burst ends, timers);
// `sim_s_per_wall_s` is simulated seconds per wall-clock second; `ops/s` counts runqueue
// operations. And the cost of task groups three levels deep against the flat machine, as the
// ratio of their events/s within one run (`groups_over_flat`).
#include <benchmark/benchmark.h>
#include <time.h>

#include <string>

#include "sim/cgroups.h"
#include "sim/scenario.h"

namespace {

using namespace vlag;

void hackbench(benchmark::State& state, sim::Policy policy) {
  sim::ScenarioConfig c;
  c.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 2);
  c.machine.policy = policy;
  c.workload = "hackbench";
  c.hackbench_groups = static_cast<int>(state.range(0));
  int64_t events = 0;
  int64_t operations = 0;
  double simulated_s = 0;
  for (auto _ : state) {
    const sim::ScenarioResult r = sim::run_scenario(c);
    events += r.stats.events;
    operations += r.stats.operations;
    simulated_s += static_cast<double>(r.stats.end_ns) / 1e9;
  }
  state.SetItemsProcessed(events);
  state.counters["ops/s"] =
      benchmark::Counter(static_cast<double>(operations), benchmark::Counter::kIsRate);
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(simulated_s, benchmark::Counter::kIsRate);
  state.counters["tasks"] = 40.0 * static_cast<double>(c.hackbench_groups);
}

void BM_HackbenchEevdf(benchmark::State& s) { hackbench(s, sim::Policy::Eevdf); }
void BM_HackbenchCfs(benchmark::State& s) { hackbench(s, sim::Policy::Cfs); }

// The cost of task groups (SPEC.md §10): the same run on the flat machine and with every task
// three levels down (/l1/l2/g0 and /l1/l2/g1, half the tasks each), where each operation walks
// the hierarchy, the shares rule runs at every level and the balance goes by hierarchical load
// (§10.6). hackbench (2 groups, 80 tasks, 2 CPUs) wakes and sleeps, and the groups change its
// schedule (wakeup preemption between group entities: many more switches); 8 hogs on 2 CPUs
// keep the same schedule shape. Both runs of a pair are made in each iteration and timed in the
// thread's CPU time (the machine is shared), so `groups_over_flat`, the ratio of their events/s,
// comes from one run.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void three_levels_vs_flat(benchmark::State& state, const std::string& workload) {
  sim::ScenarioConfig flat;
  flat.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 2);
  flat.workload = workload;
  flat.hackbench_groups = 2;
  flat.tasks = 8;
  flat.limit_ns = 1'000'000'000;
  const int half = workload == "hogs" ? 4 : 40;
  sim::ScenarioConfig grouped = flat;
  for (int g = 0; g < 2; ++g)
    grouped.machine.cgroups.push_back(sim::parse_cgroup_spec(
        "l1/l2/g" + std::to_string(g) + ":weight=100,tasks=" + std::to_string(half)));
  double flat_events = 0, flat_s = 0, grouped_events = 0, grouped_s = 0;
  for (auto _ : state) {
    double t0 = thread_cpu_s();
    flat_events += static_cast<double>(sim::run_scenario(flat).stats.events);
    flat_s += thread_cpu_s() - t0;
    t0 = thread_cpu_s();
    grouped_events += static_cast<double>(sim::run_scenario(grouped).stats.events);
    grouped_s += thread_cpu_s() - t0;
  }
  const double flat_rate = flat_events / flat_s;
  const double grouped_rate = grouped_events / grouped_s;
  state.counters["flat_events/s"] = flat_rate;
  state.counters["groups_events/s"] = grouped_rate;
  state.counters["groups_over_flat"] = grouped_rate / flat_rate;
}

void BM_HackbenchThreeLevelsVsFlat(benchmark::State& s) { three_levels_vs_flat(s, "hackbench"); }
void BM_HogsThreeLevelsVsFlat(benchmark::State& s) { three_levels_vs_flat(s, "hogs"); }

// 2 groups = the 80-task run the target names; 10 = perf bench's default 400 tasks.
BENCHMARK(BM_HackbenchEevdf)->Arg(2)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HackbenchCfs)->Arg(2)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HackbenchThreeLevelsVsFlat)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HogsThreeLevelsVsFlat)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
