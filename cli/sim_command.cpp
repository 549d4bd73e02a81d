// `vlag sim`: one or more workloads on the multi-CPU simulator (sim/machine.h), printed the way
// the real tools print them, followed by the machine's counters; --trace-dir writes one trace per
// CPU.
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
  double jitter = 0;
  std::string placement = "prev";
  std::string policy = "eevdf";
  bool no_balance = false;
  int balance_ticks = 4;
  double switch_cost_us = 0;
  std::string trace_dir;
  int tasks = 0;
  int hogs = -1;
  int groups = 10;
  int fds = 20;
  int loops = 100;
  bool threads = false;
  int64_t pipe_bytes = 64 * 1024;
  double interval_us = 1000;
  double distance_us = 500;
  int64_t cyclictest_loops = 0;
  int histogram = 0;
  int message_threads = 1;
  int workers = 0;
  double sleep_us = 100;
  double request_us = 17000;
  double warmup = 0;
  std::string rtapp;
  std::vector<int> nice;
  std::vector<double> slice_us;
  std::vector<int> latency_nice;
  std::vector<std::string> group;
};

int64_t ns(double us) { return static_cast<int64_t>(us * 1000); }

int run_sim(const SimOptions& o) {
  Preset preset = preset_by_name(o.preset);
  apply_feature_overrides(preset, o.features);
  sim::ScenarioConfig sc;
  sc.machine.params = make_params(preset, o.hz, o.cpus);
  sc.machine.placement = sim::placement_by_name(o.placement);
  sc.machine.policy = sim::policy_by_name(o.policy);
  sc.machine.balance = !o.no_balance;
  sc.machine.balance_interval_ticks = o.balance_ticks;
  sc.machine.switch_cost_ns = ns(o.switch_cost_us);
  sc.machine.seed = o.seed;
  sc.machine.jitter = o.jitter;
  sc.machine.trace_dir = o.trace_dir;
  sc.workload = o.workload;
  sc.limit_ns = static_cast<int64_t>(o.seconds * 1e9);
  sc.options.nice = o.nice;
  for (double s : o.slice_us) sc.options.slice_ns.push_back(ns(s));
  sc.options.latency_nice = o.latency_nice;
  for (const std::string& g : o.group) sc.group_settings.push_back(sim::parse_group_settings(g));
  sc.tasks = o.tasks;
  sc.hogs = o.hogs;
  sc.groups = o.groups;
  sc.fds = o.fds;
  sc.loops = o.loops;
  sc.hackbench_threads = o.threads;
  sc.pipe_bytes = o.pipe_bytes;
  sc.cyclictest.interval_ns = ns(o.interval_us);
  sc.cyclictest.distance_ns = ns(o.distance_us);
  sc.cyclictest.loops = o.cyclictest_loops;
  sc.cyclictest.histogram_us = o.histogram;
  sc.schbench.message_threads = o.message_threads;
  sc.schbench.workers = o.workers;
  sc.schbench.sleep_ns = ns(o.sleep_us);
  sc.schbench.request_ns = ns(o.request_us);
  sc.schbench.warmup_ns = static_cast<int64_t>(o.warmup * 1e9);
  sc.rtapp_file = o.rtapp;

  const sim::ScenarioResult r = sim::run_scenario(sc);
  const sim::MachineStats& st = r.stats;
  fmt::print("{}", r.report);
  fmt::print(
      "\nvlag sim: {} CPUs, policy {}, HZ {}, placement {}, balance {}, seed {}: {:.3f} "
      "s simulated, {} events, {} runqueue operations, {} context switches, {} migrations ({} by "
      "load balancing), {} wakeups by tasks ({} onto another CPU than the waker's)\n",
      o.cpus,
      sim::is_cfs(sc.machine.policy) ? o.policy
                                     : o.policy + " (preset " + sc.machine.params.preset.name + ")",
      o.hz, o.placement,
      o.no_balance ? "off" : fmt::format("every {} ticks + newidle", o.balance_ticks), o.seed,
      static_cast<double>(st.end_ns) / 1e9, st.events, st.operations, st.switches, st.migrations,
      st.balance_migrations, st.wakeups, st.cross_cpu_wakeups);
  if (!o.trace_dir.empty())
    fmt::print("traces: {}/cpu0.jsonl .. cpu{}.jsonl (check each with vlag check)\n", o.trace_dir,
               o.cpus - 1);
  return 0;
}

std::string workload_help() {
  std::string names;
  for (const std::string& n : sim::workload_names()) names += (names.empty() ? "" : ", ") + n;
  return "Workload: " + names + "; several joined by '+' (hackbench+cyclictest) run together";
}

}  // namespace

void add_sim_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SimOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sim",
      "Runs workloads (hogs, cyclictest-, hackbench-, schbench-like, rt-app) on simulated CPUs");
  cmd->add_option("--workload", o->workload, workload_help())->capture_default_str();
  cmd->add_option("--cpus", o->cpus, "CPUs")->check(CLI::Range(1, 4096))->capture_default_str();
  // The simulator runs the optimized runqueue: Linux arithmetic, Linux presets (SPEC.md §7).
  cmd->add_option("--preset", o->preset, preset_help(PresetFamily::Linux))->capture_default_str();
  cmd->add_option("--features", o->features, "Feature overrides: NAME,-NAME,...");
  cmd->add_option("--hz", o->hz, "Timer tick frequency")
      ->check(CLI::Range(100, 1000))
      ->capture_default_str();
  cmd->add_option("--seconds", o->seconds,
                  "Simulated time (a limit for workloads that end by themselves)")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--jitter", o->jitter,
                  "Scale every burst by a factor drawn from [1-J, 1+J] (seeded; 0: exact)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed: the same seed gives the same run")
      ->capture_default_str();
  cmd->add_option("--placement", o->placement, "Wakeup CPU placement: prev, idle or sis-short")
      ->check(CLI::IsMember({"prev", "idle", "sis-short"}))
      ->capture_default_str();
  cmd->add_option("--policy", o->policy,
                  "Scheduling policy: eevdf, eevdf-latency-nice, no-same-prio-preempt, cfs or "
                  "cfs-latency-nice")
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
  cmd->add_option("--hogs", o->hogs,
                  "Background CPU hogs, group 'background' (default: one per CPU under a lone "
                  "cyclictest, else none)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--groups", o->groups, "hackbench: groups (-g)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--fds", o->fds, "hackbench: senders (and receivers) per group")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--loops", o->loops, "hackbench: messages per sender to each receiver (-l)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_flag("-T,--thread", o->threads, "hackbench: threads instead of processes");
  cmd->add_option("--pipe-bytes", o->pipe_bytes, "hackbench: a pipe's buffer, bytes")
      ->check(CLI::Range(int64_t{100}, int64_t{1} << 30))
      ->capture_default_str();
  cmd->add_option("--interval-us", o->interval_us, "cyclictest: timer interval (-i), us")
      ->check(CLI::Range(1.0, 1e7))
      ->capture_default_str();
  cmd->add_option("--distance-us", o->distance_us, "cyclictest: thread distance (-d), us")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd->add_option("--cyclictest-loops", o->cyclictest_loops,
                  "cyclictest: cycles per thread (-l); 0: until --seconds")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000}))
      ->capture_default_str();
  cmd->add_option("--histogram", o->histogram, "cyclictest: histogram of N 1-us buckets (-h)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("--message-threads", o->message_threads, "schbench: message threads (-m)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--workers", o->workers,
                  "schbench: workers per message thread (-t; default: CPUs / message threads)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--sleep-us", o->sleep_us, "schbench: sleep per request (-s), us")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd->add_option("--request-us", o->request_us, "schbench: CPU time per request, us")
      ->check(CLI::Range(0.001, 1e7))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "schbench: seconds of statistics dropped (-w)")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--rtapp", o->rtapp, "rtapp: the rt-app JSON description (docs/rt-app.md)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--nice", o->nice, "Nice per task, a list cycled over each workload's tasks")
      ->delimiter(',')
      ->check(CLI::Range(-20, 19));
  cmd->add_option("--slice-us", o->slice_us,
                  "Custom slice per task in us (0: base slice), a list cycled over the tasks")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--latency-nice", o->latency_nice,
                  "latency_nice per task (used by --policy eevdf-latency-nice and "
                  "cfs-latency-nice), a list cycled "
                  "over the tasks")
      ->delimiter(',')
      ->check(CLI::Range(-20, 19));
  cmd->add_option("--group", o->group,
                  "A group's settings, GROUP:nice=N,slice_us=N,latency_nice=N (groups: the "
                  "workload names and 'background'); repeatable");
  cmd->callback([o, &exit_code] { exit_code = run_sim(*o); });
}

}  // namespace vlag::cli
