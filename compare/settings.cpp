#include "compare/settings.h"

#include <algorithm>
#include <charconv>
#include <functional>

#include "spec/error.h"

namespace vlag::compare {
namespace {

using Setter = std::function<void(sim::ScenarioConfig&, std::string_view)>;

struct Key {
  std::string_view name;
  Setter set;
};

int64_t parse_int(std::string_view v, int64_t lo, int64_t hi) {
  int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || x < lo || x > hi)
    throw Error("not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

double parse_real(std::string_view v, double lo, double hi) {
  double x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || !(x >= lo && x <= hi))
    throw Error("not a number in " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

// Per-task attributes take a list cycled over the tasks, as `vlag sim` does ("0,5").
template <typename T, typename Parse>
std::vector<T> parse_list(std::string_view v, Parse parse) {
  std::vector<T> out;
  size_t start = 0;
  while (true) {
    const size_t comma = v.find(',', start);
    out.push_back(parse(v.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

int to_int(int64_t x) { return static_cast<int>(x); }

// Registry order is application order: the preset before its feature overrides, and every
// Params field after the preset that replaces the Params' preset.
const std::vector<Key>& registry() {
  static const std::vector<Key> keys = {
      {"preset", [](sim::ScenarioConfig& c,
                    std::string_view v) { c.machine.params.preset = preset_by_name(v); }},
      {"features", [](sim::ScenarioConfig& c,
                      std::string_view v) { apply_feature_overrides(c.machine.params.preset, v); }},
      {"cpus", [](sim::ScenarioConfig& c,
                  std::string_view v) { c.machine.params.ncpus = to_int(parse_int(v, 1, 4096)); }},
      {"hz", [](sim::ScenarioConfig& c,
                std::string_view v) { c.machine.params.hz = to_int(parse_int(v, 100, 1000)); }},
      {"placement", [](sim::ScenarioConfig& c,
                       std::string_view v) { c.machine.placement = sim::placement_by_name(v); }},
      {"jitter", [](sim::ScenarioConfig& c,
                    std::string_view v) { c.machine.jitter = parse_real(v, 0, 0.5); }},
      {"policy", [](sim::ScenarioConfig& c,
                    std::string_view v) { c.machine.policy = sim::policy_by_name(v); }},
      {"balance",
       [](sim::ScenarioConfig& c, std::string_view v) {
         if (v != "on" && v != "off") throw Error("not on or off");
         c.machine.balance = v == "on";
       }},
      {"balance_ticks",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.machine.balance_interval_ticks = to_int(parse_int(v, 1, 1000000));
       }},
      {"switch_cost_us",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.machine.switch_cost_ns = static_cast<int64_t>(parse_real(v, 0, 1000) * 1000);
       }},
      {"nice",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.options.nice = parse_list<int>(v, [](auto s) { return to_int(parse_int(s, -20, 19)); });
       }},
      {"slice_us",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.options.slice_ns = parse_list<int64_t>(
             v, [](auto s) { return static_cast<int64_t>(parse_real(s, 0, 1e6) * 1000); });
       }},
      {"latency_nice",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.options.latency_nice =
             parse_list<int>(v, [](auto s) { return to_int(parse_int(s, -20, 19)); });
       }},
      {"tasks", [](sim::ScenarioConfig& c,
                   std::string_view v) { c.tasks = to_int(parse_int(v, 1, 100000)); }},
      {"hogs", [](sim::ScenarioConfig& c,
                  std::string_view v) { c.hogs = to_int(parse_int(v, 0, 100000)); }},
      {"groups", [](sim::ScenarioConfig& c,
                    std::string_view v) { c.groups = to_int(parse_int(v, 1, 10000)); }},
      {"fds",
       [](sim::ScenarioConfig& c, std::string_view v) { c.fds = to_int(parse_int(v, 1, 1000)); }},
      {"loops", [](sim::ScenarioConfig& c,
                   std::string_view v) { c.loops = to_int(parse_int(v, 1, 1000000)); }},
      {"message_threads",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.schbench.message_threads = to_int(parse_int(v, 1, 4096));
       }},
      {"workers", [](sim::ScenarioConfig& c,
                     std::string_view v) { c.schbench.workers = to_int(parse_int(v, 0, 100000)); }},
      {"sleep_us",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.schbench.sleep_ns = static_cast<int64_t>(parse_real(v, 1, 1e7) * 1000);
       }},
      {"request_us",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.schbench.request_ns = static_cast<int64_t>(parse_real(v, 1, 1e7) * 1000);
       }},
      {"interval_us",
       [](sim::ScenarioConfig& c, std::string_view v) {
         c.cyclictest.interval_ns = static_cast<int64_t>(parse_real(v, 10, 1e7) * 1000);
       }},
      {"pipe_bytes", [](sim::ScenarioConfig& c,
                        std::string_view v) { c.pipe_bytes = parse_int(v, 100, 1 << 30); }},
      // Per-group settings as `vlag sim --group` takes them; several groups joined by '/':
      // group=cyclictest:latency_nice=-20/hackbench:nice=5.
      {"group",
       [](sim::ScenarioConfig& c, std::string_view v) {
         size_t start = 0;
         while (true) {
           const size_t slash = v.find('/', start);
           c.group_settings.push_back(
               sim::parse_group_settings(std::string(v.substr(start, slash - start))));
           if (slash == std::string_view::npos) break;
           start = slash + 1;
         }
       }},
  };
  return keys;
}

std::string known_keys() {
  std::string s;
  for (const Key& k : registry()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

}  // namespace

std::vector<std::string> setting_keys() {
  std::vector<std::string> out;
  for (const Key& k : registry()) out.emplace_back(k.name);
  return out;
}

void require_known_key(std::string_view key) {
  for (const Key& k : registry())
    if (k.name == key) return;
  throw Error("unknown setting key '" + std::string(key) + "' (known: " + known_keys() + ")");
}

void apply_settings(sim::ScenarioConfig& config, const Settings& settings) {
  for (const auto& [key, value] : settings) require_known_key(key);
  for (const Key& k : registry()) {
    const auto it = settings.find(std::string(k.name));
    if (it == settings.end()) continue;
    try {
      k.set(config, it->second);
    } catch (const Error& e) {
      throw Error("bad value for setting " + it->first + "=" + it->second + ": " + e.what());
    }
  }
}

std::pair<std::string, std::string> parse_setting(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw Error("setting '" + std::string(text) + "' is not key=value");
  std::string key(text.substr(0, eq));
  require_known_key(key);
  return {key, std::string(text.substr(eq + 1))};
}

Settings parse_settings(std::string_view text) {
  Settings out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const size_t end = std::min(text.find(' ', i), text.size());
    auto [key, value] = parse_setting(text.substr(i, end - i));
    out[key] = value;
    i = end;
  }
  return out;
}

std::string settings_label(const Settings& settings) {
  std::string s;
  for (const Key& k : registry()) {
    const auto it = settings.find(std::string(k.name));
    if (it != settings.end()) s += (s.empty() ? "" : " ") + it->first + "=" + it->second;
  }
  return s;
}

}  // namespace vlag::compare
