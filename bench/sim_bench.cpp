// The simulator's speed (issue target: at least 2 million simulated scheduling events per second
// on one core with trace writing off): a hackbench-like run of `groups` groups (40 tasks each) on
// 2 CPUs, per policy. items/s counts the machine's events (ticks, burst ends, timers);
// `sim_s_per_wall_s` is simulated seconds per wall-clock second; `ops/s` counts runqueue
// operations.
#include <benchmark/benchmark.h>

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

// 2 groups = the 80-task run the target names; 10 = perf bench's default 400 tasks.
BENCHMARK(BM_HackbenchEevdf)->Arg(2)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HackbenchCfs)->Arg(2)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
