#include "compare/settings.h"

#include <algorithm>

#include "sim/scenario_keys.h"
#include "spec/error.h"

namespace vlag::compare {
namespace {

// vlag compare's keys: the comparable ones of the scenario keys, in their order.
std::vector<const sim::ScenarioKey*> comparable_keys() {
  std::vector<const sim::ScenarioKey*> out;
  for (const sim::ScenarioKey& k : sim::scenario_keys())
    if (k.comparable) out.push_back(&k);
  return out;
}

std::string known_keys() {
  std::string s;
  for (const sim::ScenarioKey* k : comparable_keys()) s += (s.empty() ? "" : ", ") + k->name;
  return s;
}

}  // namespace

std::vector<std::string> setting_keys() {
  std::vector<std::string> out;
  for (const sim::ScenarioKey* k : comparable_keys()) out.push_back(k->name);
  return out;
}

void require_known_key(std::string_view key) {
  const sim::ScenarioKey* k = sim::find_scenario_key(key);
  if (!k || !k->comparable)
    throw Error("unknown setting key '" + std::string(key) + "' (known: " + known_keys() + ")");
}

void apply_settings(sim::ScenarioConfig& config, const Settings& settings) {
  for (const auto& [key, value] : settings) require_known_key(key);
  for (const sim::ScenarioKey* k : comparable_keys()) {
    const auto it = settings.find(k->name);
    if (it == settings.end()) continue;
    try {
      k->set(config, sim::parse_key_value(*k, it->second));
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
    if (!out.emplace(key, value).second)
      throw Error("'" + std::string(text) + "' gives " + key + " twice: give each key once");
    i = end;
  }
  return out;
}

std::string settings_label(const Settings& settings) {
  std::string s;
  for (const sim::ScenarioKey* k : comparable_keys()) {
    const auto it = settings.find(k->name);
    if (it != settings.end()) s += (s.empty() ? "" : " ") + it->first + "=" + it->second;
  }
  return s;
}

}  // namespace vlag::compare
