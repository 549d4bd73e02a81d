// `vlag sim`: one workload on the multi-CPU simulator (sim/machine.h), printed the way the real
// tool prints it, followed by the machine's counters; --trace-dir writes one trace per CPU.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "sim/scenario.h"

namespace vlag::cli {
namespace {

struct SimOptions {
  std::string workload = "hogs";
  int cpus = 1;
  std::string preset{kDefaultPreset};
  std::string features;
  int hz = 250;
  double seconds = 10.0;
  uint64_t seed = 1;
  std::string placement = "prev";
  std::string policy = "eevdf";
  bool no_balance = false;
  int balance_ticks = 4;
  double switch_cost_us = 0;
  std::string trace_dir;
  int tasks = 0;  // hogs: count; cyclictest: threads; 0: one per CPU
  int hogs = -1;  // cyclictest background hogs; -1: one per CPU
  int groups = 10;
  int fds = 20;
  int loops = 100;
  std::vector<int> nice;
  std::vector<int> latency_nice;
  std::vector<double> slice_us;
};

int run_sim(const SimOptions& o) {
  Preset preset = preset_by_name(o.preset);
  apply_feature_overrides(preset, o.features);
  sim::ScenarioConfig sc;
  sc.machine.params = make_params(preset, o.hz, o.cpus);
  sc.machine.placement = sim::placement_by_name(o.placement);
  sc.machine.policy = sim::policy_by_name(o.policy);
  sc.machine.balance = !o.no_balance;
  sc.machine.balance_interval_ticks = o.balance_ticks;
  sc.machine.switch_cost_ns = static_cast<int64_t>(o.switch_cost_us * 1000);
  sc.machine.seed = o.seed;
  sc.machine.trace_dir = o.trace_dir;
  sc.workload = o.workload;
  sc.limit_ns = static_cast<int64_t>(o.seconds * 1e9);
  sc.options.nice = o.nice;
  sc.options.latency_nice = o.latency_nice;
  for (double s : o.slice_us) sc.options.slice_ns.push_back(static_cast<int64_t>(s * 1000));
  sc.tasks = o.tasks;
  sc.hogs = o.hogs;
  sc.groups = o.groups;
  sc.fds = o.fds;
  sc.loops = o.loops;

  const sim::ScenarioResult r = sim::run_scenario(sc);
  const sim::MachineStats& st = r.stats;
  fmt::print("{}", r.report);
  fmt::print(
      "\nvlag sim: {} CPUs, preset {}, policy {}, HZ {}, placement {}, balance {}, seed {}: {:.3f} "
      "s simulated, {} events, {} runqueue operations, {} context switches, {} migrations ({} by "
      "load balancing), {} wakeups by tasks ({} onto another CPU than the waker's)\n",
      o.cpus, sc.machine.params.preset.name, o.policy, o.hz, o.placement,
      o.no_balance ? "off" : fmt::format("every {} ticks + newidle", o.balance_ticks), o.seed,
      static_cast<double>(st.end_ns) / 1e9, st.events, st.operations, st.switches, st.migrations,
      st.balance_migrations, st.wakeups, st.cross_cpu_wakeups);
  if (!o.trace_dir.empty())
    fmt::print("traces: {}/cpu0.jsonl .. cpu{}.jsonl (check each with vlag check)\n", o.trace_dir,
               o.cpus - 1);
  return 0;
}

}  // namespace

void add_sim_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SimOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sim", "Runs a workload (hogs, cyclictest- or hackbench-like) on simulated CPUs");
  cmd->add_option("--workload", o->workload, "hogs, cyclictest or hackbench")
      ->check(CLI::IsMember({"hogs", "cyclictest", "hackbench"}))
      ->capture_default_str();
  cmd->add_option("--cpus", o->cpus, "CPUs")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--preset", o->preset, "Preset (linux-6.18, linux-6.12, linux-6.6)")
      ->capture_default_str();
  cmd->add_option("--features", o->features, "Feature overrides: NAME,-NAME,...");
  cmd->add_option("--hz", o->hz, "Timer tick frequency")
      ->check(CLI::Range(100, 1000))
      ->capture_default_str();
  cmd->add_option("--seconds", o->seconds, "Simulated time (hackbench: a limit)")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed: the same seed gives the same run")
      ->capture_default_str();
  cmd->add_option("--placement", o->placement, "Wakeup CPU placement: prev, idle or sis-short")
      ->check(CLI::IsMember({"prev", "idle", "sis-short"}))
      ->capture_default_str();
  cmd->add_option("--policy", o->policy,
                  "Scheduling policy: eevdf, eevdf-latency-nice or no-same-prio-preempt")
      ->check(CLI::IsMember(sim::policy_names()))
      ->capture_default_str();
  cmd->add_flag("--no-balance", o->no_balance, "Turn load balancing (newidle and periodic) off");
  cmd->add_option("--balance-ticks", o->balance_ticks, "Periodic load balance every N ticks")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--switch-cost-us", o->switch_cost_us, "Context-switch cost, us")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--trace-dir", o->trace_dir, "Write one trace per CPU into DIR/cpuN.jsonl");
  cmd->add_option("--tasks", o->tasks, "hogs: count; cyclictest: threads (default: one per CPU)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--hogs", o->hogs, "cyclictest: background hogs (default: one per CPU)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--groups", o->groups, "hackbench: groups")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--fds", o->fds, "hackbench: senders (and receivers) per group")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--loops", o->loops, "hackbench: messages per sender and receiver")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--nice", o->nice, "Nice per task, a list cycled over the tasks")
      ->delimiter(',')
      ->check(CLI::Range(-20, 19));
  cmd->add_option("--latency-nice", o->latency_nice,
                  "latency_nice per task (used by --policy eevdf-latency-nice), a list cycled "
                  "over the tasks")
      ->delimiter(',')
      ->check(CLI::Range(-20, 19));
  cmd->add_option("--slice-us", o->slice_us,
                  "Custom slice per task in us (0: base slice), a list cycled over the tasks")
      ->delimiter(',');
  cmd->callback([o, &exit_code] { exit_code = run_sim(*o); });
}

}  // namespace vlag::cli
