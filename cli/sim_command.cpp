// `vlag sim`: one or more workloads on the multi-CPU simulator (sim/machine.h), printed the way
// the real tools print them, followed by the machine's counters; --trace-dir writes one trace per
// CPU. Its flags are the scenario keys (sim/scenario_keys.h), one each.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli/commands.h"
#include "sim/scenario_keys.h"
#include "spec/error.h"

namespace vlag::cli {
namespace {

using sim::KeyType;
using sim::KeyValue;
using sim::ScenarioKey;

// The order vlag sim --help lists the keys' flags in; a key not named here comes after them.
constexpr std::string_view kHelpOrder[] = {"workload",
                                           "cpus",
                                           "preset",
                                           "features",
                                           "hz",
                                           "kernel_cpus",
                                           "base_slice_us",
                                           "seconds",
                                           "jitter",
                                           "seed",
                                           "placement",
                                           "policy",
                                           "balance",
                                           "balance_ticks",
                                           "switch_cost_us",
                                           "wake_timer_cost_us",
                                           "wake_task_cost_us",
                                           "wake_idle_cost_us",
                                           "tick_cost_us",
                                           "trace_dir",
                                           "tasks",
                                           "hogs",
                                           "groups",
                                           "fds",
                                           "loops",
                                           "thread",
                                           "pipe_bytes",
                                           "interval_us",
                                           "distance_us",
                                           "cyclictest_loops",
                                           "histogram",
                                           "message_threads",
                                           "workers",
                                           "sleep_us",
                                           "request_us",
                                           "warmup",
                                           "rtapp",
                                           "nice",
                                           "slice_us",
                                           "latency_nice",
                                           "timer_slack_us",
                                           "group",
                                           "cgroup",
                                           "autogroup"};

// One scenario key as a flag: the value CLI11 parses into (the default config's until the flag
// is given) and the option that says whether it was. A number or list of numbers is taken as
// text and read by sim::parse_key_value, as vlag compare reads the same key, so that both reject
// the same values with the same message ("1,,2", a seed of -1 or 2^64).
struct Flag {
  const ScenarioKey* key = nullptr;
  KeyValue value;
  std::vector<std::string> text;  // the numeric keys' values as given, one per occurrence
  CLI::Option* option = nullptr;
};

// What vlag sim runs when no flag says otherwise: the default preset, 250 Hz, one CPU.
sim::ScenarioConfig default_config() {
  sim::ScenarioConfig c;
  c.machine.params = make_params(preset_by_name(kDefaultPreset));
  return c;
}

KeyValue initial_value(const ScenarioKey& k, const sim::ScenarioConfig& base) {
  if (k.get) return k.get(base);
  if (k.type == KeyType::PerWorkload) return std::vector<std::string>();
  return std::string();  // features: no overrides
}

bool is_list(KeyType t) { return t == KeyType::IntList || t == KeyType::RealList; }
bool is_numeric(KeyType t) {
  return t == KeyType::Int || t == KeyType::Real || t == KeyType::Seed || is_list(t);
}

// A default as --help shows it: "250", "0.5", "0,0,5".
std::string value_text(const KeyValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                      std::is_same_v<T, std::vector<double>>)
          return fmt::format("{}", fmt::join(x, ","));
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return "";
        else
          return fmt::format("{}", x);
      },
      v);
}

// The accepted values, for --help: "INT in [1 - 4096]", "FLOAT,... each in [0 - 1e+06]".
std::string range_text(const ScenarioKey& k) {
  if (k.type == KeyType::Seed) return "UINT in [0 - 18446744073709551615]";
  const bool integral = k.type == KeyType::Int || k.type == KeyType::IntList;
  const std::string type = integral ? "INT" : "FLOAT";
  const std::string range = fmt::format("[{:g} - {:g}]", k.lo, k.hi);
  return is_list(k.type) ? type + ",... each in " + range : type + " in " + range;
}

CLI::Option* add_numeric_flag(CLI::App& cmd, Flag& f) {
  const ScenarioKey& k = *f.key;
  CLI::Validator parses(
      [&k](std::string& text) {
        try {
          sim::parse_key_value(k, text);
          return std::string();
        } catch (const Error& e) {
          return "'" + text + "' is " + e.what();
        }
      },
      range_text(k));
  CLI::Option* o = cmd.add_option(k.sim_flag(), f.text, k.help)->check(parses);
  const bool integral = k.type == KeyType::Int || k.type == KeyType::IntList;
  o->type_name(k.type == KeyType::Seed ? "UINT" : (integral ? "INT" : "FLOAT"));
  // A list may be given once ("0,0,5") or piecewise (--nice 0 --nice 5); a number once.
  if (!is_list(k.type)) o->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  if (k.shows_default) o->default_str(value_text(f.value));
  return o;
}

CLI::Option* add_flag(CLI::App& cmd, Flag& f) {
  const ScenarioKey& k = *f.key;
  if (is_numeric(k.type)) return add_numeric_flag(cmd, f);
  const std::string name = k.sim_flag();
  CLI::Option* o = nullptr;
  switch (k.type) {
    case KeyType::Text:
      o = cmd.add_option(name, std::get<std::string>(f.value), k.help);
      break;
    case KeyType::Choice:
      o = cmd.add_option(name, std::get<std::string>(f.value), k.help)
              ->check(CLI::IsMember(k.choices));
      break;
    case KeyType::File:
      o = cmd.add_option(name, std::get<std::string>(f.value), k.help)->check(CLI::ExistingFile);
      break;
    case KeyType::Switch:
      o = cmd.add_flag(name, std::get<bool>(f.value), k.help);
      break;
    case KeyType::PerWorkload:
      o = cmd.add_option(name, std::get<std::vector<std::string>>(f.value), k.help);
      break;
    default:
      break;
  }
  if (k.shows_default) o->capture_default_str();
  return o;
}

// The flag's value: the numeric keys' text read once more (the validator accepted it).
KeyValue flag_value(const Flag& f) {
  const ScenarioKey& k = *f.key;
  if (k.type == KeyType::Switch) return k.flag_sets;
  if (!is_numeric(k.type)) return f.value;
  return sim::parse_key_value(k, fmt::format("{}", fmt::join(f.text, ",")));
}

int run_sim(const std::vector<Flag>& flags) {
  sim::ScenarioConfig sc = default_config();
  for (const Flag& f : flags)  // in registry order: the preset before its feature overrides
    if (f.option->count() > 0) f.key->set(sc, flag_value(f));
  sc.machine.params = remake_params(sc.machine.params);

  const sim::ScenarioResult r = sim::run_scenario(sc);
  const sim::MachineStats& st = r.stats;
  const sim::MachineConfig& m = sc.machine;
  const std::string policy(sim::policy_name(m.policy));
  fmt::print("{}", r.report);
  fmt::print(
      "\nvlag sim: {} CPU{}, policy {}, HZ {}, placement {}, balance {}, seed {}: {:.3f} "
      "s simulated, {} events, {} runqueue operations, {} context switches, {} migrations ({} by "
      "load balancing), {} wakeups by tasks ({} onto another CPU than the waker's)\n",
      m.params.ncpus, m.params.ncpus == 1 ? "" : "s",
      sim::is_cfs(m.policy) ? policy : policy + " (preset " + m.params.preset.name + ")",
      m.params.hz, sim::placement_name(m.placement),
      m.balance ? fmt::format("every {} ticks + newidle", m.balance_interval_ticks) : "off", m.seed,
      static_cast<double>(st.end_ns) / 1e9, st.events, st.operations, st.switches, st.migrations,
      st.balance_migrations, st.wakeups, st.cross_cpu_wakeups);
  if (!m.trace_dir.empty())
    fmt::print("traces: {}/cpu0.jsonl .. cpu{}.jsonl (check each with vlag check)\n", m.trace_dir,
               m.params.ncpus - 1);
  return 0;
}

}  // namespace

void add_sim_command(CLI::App& app, int& exit_code) {
  const sim::ScenarioConfig base = default_config();
  auto flags = std::make_shared<std::vector<Flag>>();
  for (const ScenarioKey& k : sim::scenario_keys())
    flags->push_back({&k, initial_value(k, base), {}, nullptr});
  CLI::App* cmd = app.add_subcommand(
      "sim",
      "Runs workloads (hogs, cyclictest-, hackbench-, schbench-like, rt-app) on simulated CPUs");
  std::vector<Flag*> order;
  for (const std::string_view name : kHelpOrder)
    for (Flag& f : *flags)
      if (f.key->name == name) order.push_back(&f);
  for (Flag& f : *flags)
    if (std::find(order.begin(), order.end(), &f) == order.end()) order.push_back(&f);
  for (Flag* f : order) f->option = add_flag(*cmd, *f);
  cmd->callback([flags, &exit_code] { exit_code = run_sim(*flags); });
}

}  // namespace vlag::cli
