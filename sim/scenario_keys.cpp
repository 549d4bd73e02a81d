#include "sim/scenario_keys.h"

#include <algorithm>
#include <charconv>
#include <type_traits>

#include "sim/cgroups.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

// Where a key is used besides its vlag sim flag, and what vlag sim --help shows of it.
enum Use : unsigned { kSimOnly = 0, kComparable = 1, kShowsDefault = 2 };

ScenarioKey key(std::string name, std::string help, KeyType type, unsigned use) {
  ScenarioKey k;
  k.name = std::move(name);
  k.help = std::move(help);
  k.type = type;
  k.comparable = (use & kComparable) != 0;
  k.shows_default = (use & kShowsDefault) != 0;
  return k;
}

// The rows name a config field through a generic lambda, [](auto& c) -> auto& { return c.fds; },
// which serves a mutable config (set) and a const one (get) alike.

template <class Field>
ScenarioKey integer(std::string name, int64_t lo, int64_t hi, unsigned use, std::string help,
                    Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::Int, use);
  k.lo = static_cast<double>(lo);
  k.hi = static_cast<double>(hi);
  k.set = [field](ScenarioConfig& c, const KeyValue& v) {
    auto& f = field(c);
    f = static_cast<std::remove_reference_t<decltype(f)>>(std::get<int64_t>(v));
  };
  k.get = [field](const ScenarioConfig& c) -> KeyValue { return static_cast<int64_t>(field(c)); };
  return k;
}

template <class Field>
ScenarioKey real(std::string name, double lo, double hi, unsigned use, std::string help,
                 Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::Real, use);
  k.lo = lo;
  k.hi = hi;
  k.set = [field](ScenarioConfig& c, const KeyValue& v) { field(c) = std::get<double>(v); };
  k.get = [field](const ScenarioConfig& c) -> KeyValue { return field(c); };
  return k;
}

// A time kept in ns and given in a coarser unit (us: 1e3 ns, s: 1e9 ns), truncated to whole ns.
template <class Field>
ScenarioKey duration(std::string name, double lo, double hi, double ns_per_unit, unsigned use,
                     std::string help, Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::Real, use);
  k.lo = lo;
  k.hi = hi;
  k.set = [field, ns_per_unit](ScenarioConfig& c, const KeyValue& v) {
    field(c) = static_cast<int64_t>(std::get<double>(v) * ns_per_unit);
  };
  k.get = [field, ns_per_unit](const ScenarioConfig& c) -> KeyValue {
    return static_cast<double>(field(c)) / ns_per_unit;
  };
  return k;
}

// A per-task attribute of int values, cycled over each workload's tasks (sim/task_options.h).
template <class Field>
ScenarioKey int_list(std::string name, int64_t lo, int64_t hi, std::string help, Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::IntList, kComparable);
  k.lo = static_cast<double>(lo);
  k.hi = static_cast<double>(hi);
  k.set = [field](ScenarioConfig& c, const KeyValue& v) {
    const auto& values = std::get<std::vector<int64_t>>(v);
    field(c).clear();
    for (const int64_t x : values) field(c).push_back(static_cast<int>(x));
  };
  k.get = [field](const ScenarioConfig& c) -> KeyValue {
    return std::vector<int64_t>(field(c).begin(), field(c).end());
  };
  return k;
}

// A per-task time kept in ns and given in us, a list cycled over each workload's tasks.
template <class Field>
ScenarioKey us_list(std::string name, std::string help, Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::RealList, kComparable);
  k.lo = 0;
  k.hi = 1e6;
  k.set = [field](ScenarioConfig& c, const KeyValue& v) {
    field(c).clear();
    for (const double us : std::get<std::vector<double>>(v))
      field(c).push_back(static_cast<int64_t>(us * 1e3));
  };
  k.get = [field](const ScenarioConfig& c) -> KeyValue {
    std::vector<double> us;
    for (const int64_t ns : field(c)) us.push_back(static_cast<double>(ns) / 1e3);
    return us;
  };
  return k;
}

template <class Field>
ScenarioKey text(std::string name, KeyType type, unsigned use, std::string help, Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), type, use);
  k.set = [field](ScenarioConfig& c, const KeyValue& v) { field(c) = std::get<std::string>(v); };
  k.get = [field](const ScenarioConfig& c) -> KeyValue { return field(c); };
  return k;
}

// An enum field set by name: by_name throws vlag::Error on a name that is not one of `choices`.
template <class Field, class ByName, class NameOf>
ScenarioKey choice(std::string name, std::vector<std::string> choices, unsigned use,
                   std::string help, Field field, ByName by_name, NameOf name_of) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::Choice, use);
  k.choices = std::move(choices);
  k.set = [field, by_name](ScenarioConfig& c, const KeyValue& v) {
    field(c) = by_name(std::get<std::string>(v));
  };
  k.get = [field, name_of](const ScenarioConfig& c) -> KeyValue {
    return std::string(name_of(field(c)));
  };
  return k;
}

template <class Field>
ScenarioKey switch_key(std::string name, std::string flag, bool flag_sets, unsigned use,
                       std::string help, Field field) {
  ScenarioKey k = key(std::move(name), std::move(help), KeyType::Switch, use);
  k.flag = std::move(flag);
  k.flag_sets = flag_sets;
  k.set = [field](ScenarioConfig& c, const KeyValue& v) { field(c) = std::get<bool>(v); };
  k.get = [field](const ScenarioConfig& c) -> KeyValue { return field(c); };
  return k;
}

std::string workload_help() {
  std::string names;
  for (const std::string& n : workload_names()) names += (names.empty() ? "" : ", ") + n;
  return "Workload: " + names + "; several joined by '+' (hackbench+cyclictest) run together";
}

std::vector<ScenarioKey> make_registry() {
  std::vector<ScenarioKey> keys;
  // The comparable keys, in the order vlag compare applies them and lists them.
  ScenarioKey preset = text(
      "preset", KeyType::Text, kComparable | kShowsDefault,
      // The simulator runs the optimized runqueue: Linux arithmetic, Linux presets (SPEC.md §7).
      preset_help(PresetFamily::Linux),
      [](auto& c) -> auto& { return c.machine.params.preset.name; });
  preset.set = [](ScenarioConfig& c, const KeyValue& v) {
    c.machine.params.preset = preset_by_name(std::get<std::string>(v));
  };
  keys.push_back(std::move(preset));
  ScenarioKey features = key("features", "Feature overrides: NAME,-NAME,...", KeyType::Text,
                             kComparable);  // no get: a config keeps the preset they made
  features.set = [](ScenarioConfig& c, const KeyValue& v) {
    apply_feature_overrides(c.machine.params.preset, std::get<std::string>(v));
  };
  keys.push_back(std::move(features));
  keys.push_back(integer(
      "cpus", 1, 4096, kComparable | kShowsDefault, "CPUs",
      [](auto& c) -> auto& { return c.machine.params.ncpus; }));
  keys.push_back(integer(
      "hz", 100, 1000, kComparable | kShowsDefault, "Timer tick frequency",
      [](auto& c) -> auto& { return c.machine.params.hz; }));
  keys.push_back(integer(
      "kernel_cpus", 0, 4096, kComparable | kShowsDefault,
      "CPUs the kernel counts for the base slice's factor 1 + ilog2(min(N, 8)), when the run "
      "simulates fewer than the machine has (one CPU of a 2-CPU machine: 2); 0: --cpus",
      [](auto& c) -> auto& { return c.machine.params.kernel_cpus; }));
  keys.push_back(duration(
      "base_slice_us", 0, 100000, 1e3, kComparable | kShowsDefault,
      "Base slice set by hand, us (debugfs sched/base_slice_ns; 100..100000); 0: the preset's "
      "times the CPU factor",
      [](auto& c) -> auto& { return c.machine.params.base_slice_override_ns; }));
  keys.push_back(choice(
      "placement", placement_names(), kComparable | kShowsDefault,
      "Wakeup CPU placement: prev, idle or sis-short",
      [](auto& c) -> auto& { return c.machine.placement; }, placement_by_name, placement_name));
  keys.push_back(real(
      "jitter", 0, 0.5, kComparable | kShowsDefault,
      "Scale every burst by a factor drawn from [1-J, 1+J] (seeded; 0: exact)",
      [](auto& c) -> auto& { return c.machine.jitter; }));
  keys.push_back(choice(
      "policy", policy_names(), kComparable | kShowsDefault,
      "Scheduling policy: eevdf, eevdf-latency-nice, no-same-prio-preempt, cfs "
      "or cfs-latency-nice",
      [](auto& c) -> auto& { return c.machine.policy; }, policy_by_name, policy_name));
  keys.push_back(switch_key(
      "balance", "--no-balance", false, kComparable,
      "Turn load balancing (newidle and periodic) off",
      [](auto& c) -> auto& { return c.machine.balance; }));
  keys.push_back(integer(
      "balance_ticks", 1, 100000, kComparable | kShowsDefault,
      "Periodic load balance every N ticks",
      [](auto& c) -> auto& { return c.machine.balance_interval_ticks; }));
  keys.push_back(duration(
      "switch_cost_us", 0, 1000, 1e3, kComparable | kShowsDefault, "Context-switch cost, us",
      [](auto& c) -> auto& { return c.machine.switch_cost_ns; }));
  keys.push_back(duration(
      "wake_timer_cost_us", 0, 1000, 1e3, kComparable | kShowsDefault,
      "Wakeup cost, us: a timer's wakeup that preempts switches this much later",
      [](auto& c) -> auto& { return c.machine.wake_timer_cost_ns; }));
  keys.push_back(duration(
      "wake_task_cost_us", 0, 1000, 1e3, kComparable | kShowsDefault,
      "Wakeup cost, us: a task's wakeup of another that preempts switches this much later",
      [](auto& c) -> auto& { return c.machine.wake_task_cost_ns; }));
  keys.push_back(duration(
      "wake_idle_cost_us", 0, 1000, 1e3, kComparable | kShowsDefault,
      "Wakeup cost, us: a wakeup onto an idle CPU switches this much later",
      [](auto& c) -> auto& { return c.machine.wake_idle_cost_ns; }));
  keys.push_back(duration(
      "tick_cost_us", 0, 1000, 1e3, kComparable | kShowsDefault,
      "Tick cost, us: the switch a tick calls for comes this much after the tick",
      [](auto& c) -> auto& { return c.machine.tick_cost_ns; }));
  keys.push_back(int_list(
      "nice", -20, 19, "Nice per task, a list cycled over each workload's tasks",
      [](auto& c) -> auto& { return c.options.nice; }));
  keys.push_back(us_list(
      "slice_us", "Custom slice per task in us (0: base slice), a list cycled over the tasks",
      [](auto& c) -> auto& { return c.options.slice_ns; }));
  keys.push_back(us_list(
      "timer_slack_us",
      "Timer slack per task in us (Linux's default 50 for SCHED_OTHER), a list cycled over the "
      "tasks",
      [](auto& c) -> auto& { return c.options.timer_slack_ns; }));
  keys.push_back(int_list(
      "latency_nice", -20, 19,
      "latency_nice per task (used by --policy eevdf-latency-nice and cfs-latency-nice), "
      "a list cycled over the tasks",
      [](auto& c) -> auto& { return c.options.latency_nice; }));
  keys.push_back(integer(
      "tasks", 1, 100000, kComparable, "hogs: count; cyclictest: threads (default: one per CPU)",
      [](auto& c) -> auto& { return c.tasks; }));
  keys.push_back(integer(
      "hogs", 0, 100000, kComparable,
      "Background CPU hogs, group 'background' "
      "(default: one per CPU under a lone cyclictest, else none)",
      [](auto& c) -> auto& { return c.hogs; }));
  keys.push_back(integer(
      "groups", 1, 10000, kComparable | kShowsDefault, "hackbench: groups (-g)",
      [](auto& c) -> auto& { return c.hackbench_groups; }));
  keys.push_back(integer(
      "fds", 1, 1000, kComparable | kShowsDefault, "hackbench: senders (and receivers) per group",
      [](auto& c) -> auto& { return c.fds; }));
  keys.push_back(integer(
      "loops", 1, 1000000, kComparable | kShowsDefault,
      "hackbench: messages per sender to each receiver (-l)",
      [](auto& c) -> auto& { return c.loops; }));
  keys.push_back(integer(
      "message_threads", 1, 10000, kComparable | kShowsDefault, "schbench: message threads (-m)",
      [](auto& c) -> auto& { return c.schbench.message_threads; }));
  keys.push_back(integer(
      "workers", 1, 100000, kComparable,
      "schbench: workers per message thread (-t; default: CPUs / message threads)",
      [](auto& c) -> auto& { return c.schbench.workers; }));
  keys.push_back(duration(
      "sleep_us", 0, 1e7, 1e3, kComparable | kShowsDefault, "schbench: sleep per request (-s), us",
      [](auto& c) -> auto& { return c.schbench.sleep_ns; }));
  keys.push_back(duration(
      "request_us", 0.001, 1e7, 1e3, kComparable | kShowsDefault,
      "schbench: CPU time per request, us",
      [](auto& c) -> auto& { return c.schbench.request_ns; }));
  keys.push_back(duration(
      "interval_us", 1, 1e7, 1e3, kComparable | kShowsDefault,
      "cyclictest: timer interval (-i), us",
      [](auto& c) -> auto& { return c.cyclictest.interval_ns; }));
  keys.push_back(integer(
      "pipe_bytes", 100, int64_t{1} << 30, kComparable | kShowsDefault,
      "hackbench: a pipe's buffer, bytes", [](auto& c) -> auto& { return c.pipe_bytes; }));
  keys.push_back(text(
      "rtapp", KeyType::File, kComparable, "rtapp: the rt-app JSON description (docs/rt-app.md)",
      [](auto& c) -> auto& { return c.rtapp_file; }));
  ScenarioKey settings =
      key("group",
          "A group's settings, GROUP:nice=N,slice_us=N,latency_nice=N,timer_slack_us=N (groups: "
          "the workload names and 'background'); repeatable",
          KeyType::PerWorkload, kComparable);  // no get: a config keeps them parsed
  settings.set = [](ScenarioConfig& c, const KeyValue& v) {
    for (const std::string& g : std::get<std::vector<std::string>>(v))
      c.workload_settings.push_back(parse_workload_settings(g));
  };
  keys.push_back(std::move(settings));
  ScenarioKey cgroup =
      key("cgroup",
          "A task group (SPEC.md §10), PATH:weight=N[,latency_nice=N][,tasks=N][,workload=NAME]: "
          "cpu.weight 1..10000 (100: nice 0's 1024); the next N tasks created, or every task of "
          "the workload, join it; repeatable; the CFS policies schedule groups as v6.5 (§8.6)",
          KeyType::PerWorkload, kComparable);  // no get: a config keeps them parsed
  cgroup.set = [](ScenarioConfig& c, const KeyValue& v) {
    for (const std::string& g : std::get<std::vector<std::string>>(v))
      c.machine.cgroups.push_back(parse_cgroup_spec(g));
  };
  // vlag compare joins a key's values by ',' and '/', which a cgroup's settings and paths hold:
  // it takes a cgroup field by field instead, cgroup.PATH.FIELD=value.
  cgroup.fields = cgroup_fields();
  cgroup.set_field = [](ScenarioConfig& c, const std::string& path, const std::string& field,
                        const std::string& value) {
    set_cgroup_field(cgroup_named(c.machine.cgroups, path), field, value);
  };
  keys.push_back(std::move(cgroup));
  keys.push_back(switch_key(
      "autogroup", "--autogroup", true, kComparable,
      "Each workload's tasks in an autogroup of their own (one session each, nice 0's weight)",
      [](auto& c) -> auto& { return c.machine.autogroup; }));

  // vlag sim's alone: vlag compare sets the workload, the time and the seeds of its grid itself.
  keys.push_back(text(
      "workload", KeyType::Text, kShowsDefault, workload_help(),
      [](auto& c) -> auto& { return c.workload; }));
  keys.push_back(duration(
      "seconds", 0.001, 3600, 1e9, kShowsDefault,
      "Simulated time (a limit for workloads that end by themselves)",
      [](auto& c) -> auto& { return c.limit_ns; }));
  ScenarioKey seed =
      key("seed", "Random seed: the same seed gives the same run", KeyType::Seed, kShowsDefault);
  seed.set = [](ScenarioConfig& c, const KeyValue& v) { c.machine.seed = std::get<uint64_t>(v); };
  seed.get = [](const ScenarioConfig& c) -> KeyValue { return c.machine.seed; };
  keys.push_back(std::move(seed));
  keys.push_back(text(
      "trace_dir", KeyType::Text, kSimOnly, "Write one trace per CPU into DIR/cpuN.jsonl",
      [](auto& c) -> auto& { return c.machine.trace_dir; }));
  keys.push_back(switch_key(
      "thread", "-T,--thread", true, kSimOnly, "hackbench: threads instead of processes",
      [](auto& c) -> auto& { return c.hackbench_threads; }));
  keys.push_back(duration(
      "distance_us", 0, 1e7, 1e3, kShowsDefault, "cyclictest: thread distance (-d), us",
      [](auto& c) -> auto& { return c.cyclictest.distance_ns; }));
  keys.push_back(integer(
      "cyclictest_loops", 0, 1'000'000'000, kShowsDefault,
      "cyclictest: cycles per thread (-l); 0: until --seconds",
      [](auto& c) -> auto& { return c.cyclictest.loops; }));
  keys.push_back(integer(
      "histogram", 0, 1'000'000, kSimOnly, "cyclictest: histogram of N 1-us buckets (-h)",
      [](auto& c) -> auto& { return c.cyclictest.histogram_us; }));
  keys.push_back(duration(
      "warmup", 0, 3600, 1e9, kShowsDefault, "schbench: seconds of statistics dropped (-w)",
      [](auto& c) -> auto& { return c.schbench.warmup_ns; }));
  return keys;
}

int64_t parse_int(std::string_view v, double lo, double hi) {
  const auto min = static_cast<int64_t>(lo);
  const auto max = static_cast<int64_t>(hi);
  int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || x < min || x > max)
    throw Error("not an integer in " + std::to_string(min) + ".." + std::to_string(max));
  return x;
}

double parse_real(std::string_view v, double lo, double hi) {
  double x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || !(x >= lo && x <= hi))
    throw Error("not a number in " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

std::vector<std::string_view> split(std::string_view v, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = v.find(sep, start);
    out.push_back(v.substr(start, end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

}  // namespace

std::string ScenarioKey::sim_flag() const {
  if (!flag.empty()) return flag;
  std::string f = "--" + name;
  for (char& c : f)
    if (c == '_') c = '-';
  return f;
}

const std::vector<ScenarioKey>& scenario_keys() {
  static const std::vector<ScenarioKey> keys = make_registry();
  return keys;
}

const ScenarioKey* find_scenario_key(std::string_view name) {
  for (const ScenarioKey& k : scenario_keys())
    if (k.name == name) return &k;
  return nullptr;
}

std::optional<FamilyKeyName> split_family_key(std::string_view name) {
  const size_t first = name.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const ScenarioKey* k = find_scenario_key(name.substr(0, first));
  if (!k || k->fields.empty()) return std::nullopt;
  std::string fields;
  for (const std::string& f : k->fields) fields += (fields.empty() ? "" : ", ") + f;
  const size_t last = name.rfind('.');
  const std::string_view instance =
      last > first ? name.substr(first + 1, last - first - 1) : std::string_view();
  const std::string usage = " (" + k->name + ".PATH.FIELD, FIELD one of " + fields + ")";
  if (instance.empty() || instance == "/")
    throw Error("'" + std::string(name) + "' names no " + k->name + usage);
  const std::string field(name.substr(last + 1));
  if (std::find(k->fields.begin(), k->fields.end(), field) == k->fields.end())
    throw Error("'" + std::string(name) + "': unknown field '" + field + "'" + usage);
  return FamilyKeyName{k, std::string(instance), field};
}

KeyValue parse_key_value(const ScenarioKey& key, std::string_view text) {
  switch (key.type) {
    case KeyType::Int:
      return parse_int(text, key.lo, key.hi);
    case KeyType::Real:
      return parse_real(text, key.lo, key.hi);
    case KeyType::IntList: {
      std::vector<int64_t> out;
      for (const std::string_view item : split(text, ','))
        out.push_back(parse_int(item, key.lo, key.hi));
      return out;
    }
    case KeyType::RealList: {
      std::vector<double> out;
      for (const std::string_view item : split(text, ','))
        out.push_back(parse_real(item, key.lo, key.hi));
      return out;
    }
    case KeyType::Seed: {
      uint64_t x = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
      if (ec != std::errc{} || end != text.data() + text.size())
        throw Error("not an integer in 0..18446744073709551615");
      return x;
    }
    case KeyType::Switch:
      if (text != "on" && text != "off") throw Error("not on or off");
      return text == "on";
    case KeyType::PerWorkload: {
      std::vector<std::string> out;
      for (const std::string_view g : split(text, '/')) out.emplace_back(g);
      return out;
    }
    case KeyType::Text:
    case KeyType::Choice:
    case KeyType::File:
      break;
  }
  return std::string(text);
}

}  // namespace vlag::sim
