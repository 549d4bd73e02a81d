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

// A key as vlag compare names it: a family's as NAME.PATH.FIELD, one per field.
std::vector<std::string> names_of(const sim::ScenarioKey& k) {
  if (k.fields.empty()) return {k.name};
  std::vector<std::string> out;
  for (const std::string& f : k.fields) out.push_back(k.name + ".PATH." + f);
  return out;
}

std::string known_keys() {
  std::string s;
  for (const std::string& name : setting_keys()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

// The settings of key `k` in `settings`, in their order (a family's: every field of every
// instance, by the instances' names).
std::vector<std::pair<std::string, std::string>> settings_of(const sim::ScenarioKey& k,
                                                             const Settings& settings) {
  std::vector<std::pair<std::string, std::string>> out;
  if (k.fields.empty()) {
    if (const auto it = settings.find(k.name); it != settings.end()) out.push_back(*it);
    return out;
  }
  for (const auto& [key, value] : settings)
    if (const auto f = sim::split_family_key(key); f && f->key == &k) out.emplace_back(key, value);
  return out;
}

}  // namespace

std::vector<std::string> setting_keys() {
  std::vector<std::string> out;
  for (const sim::ScenarioKey* k : comparable_keys())
    for (std::string& name : names_of(*k)) out.push_back(std::move(name));
  return out;
}

void require_known_key(std::string_view key) {
  if (sim::split_family_key(key)) return;  // or throws naming the family's fields
  const sim::ScenarioKey* k = sim::find_scenario_key(key);
  if (k && k->comparable && !k->fields.empty())
    throw Error("setting key '" + std::string(key) + "' is set field by field: " + k->name +
                ".PATH.FIELD=value (" + k->name + ".lat." + k->fields.front() + "=...)");
  if (!k || !k->comparable)
    throw Error("unknown setting key '" + std::string(key) + "' (known: " + known_keys() + ")");
}

void apply_settings(sim::ScenarioConfig& config, const Settings& settings) {
  for (const auto& [key, value] : settings) require_known_key(key);
  for (const sim::ScenarioKey* k : comparable_keys()) {
    for (const auto& [key, value] : settings_of(*k, settings)) {
      try {
        if (k->fields.empty()) {
          k->set(config, sim::parse_key_value(*k, value));
        } else {
          const auto f = sim::split_family_key(key);
          k->set_field(config, f->instance, f->field, value);
        }
      } catch (const Error& e) {
        throw Error("bad value for setting " + key + "=" + value + ": " + e.what());
      }
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
  for (const sim::ScenarioKey* k : comparable_keys())
    for (const auto& [key, value] : settings_of(*k, settings))
      s += (s.empty() ? "" : " ") + key + "=" + value;
  return s;
}

}  // namespace vlag::compare
