// The settings a comparison varies: "key=value" pairs applied to a sim::ScenarioConfig. The keys
// are the comparable scenario keys (sim/scenario_keys.h), so a new scenario option becomes
// comparable by adding its row there. Settings are applied in registry order, not in the order
// they were written, so that "features=..." always lands on top of "preset=..."; the caller
// rebuilds the Params afterwards (grid.h cell_config), so that "cpus=..." rescales the base slice
// of whichever preset was chosen. A family key (cgroup) is set field by field,
// cgroup.PATH.FIELD=value (cgroup.lat.latency_nice=-20, cgroup.a/b.weight=200): one setting per
// field, so that --vary and --rows take one field's values; its instances are created in the
// order of their names.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scenario.h"

namespace vlag::compare {

/// key → value; a later layer (row, then variant) overrides an earlier one key by key.
using Settings = std::map<std::string, std::string>;

/// The registered keys, in the order they are applied (a family's as NAME.PATH.FIELD).
std::vector<std::string> setting_keys();

/// Throws vlag::Error naming the key when it is not registered.
void require_known_key(std::string_view key);

/// Applies every setting to the config in registry order; throws vlag::Error naming the key and
/// the value when a value is rejected.
void apply_settings(sim::ScenarioConfig& config, const Settings& settings);

/// "key=value" → {key, value}; throws vlag::Error on a missing '=' or an unknown key.
std::pair<std::string, std::string> parse_setting(std::string_view text);

/// "k=v k2=v2" (settings separated by spaces) → Settings; throws vlag::Error on a key given twice.
Settings parse_settings(std::string_view text);

/// "k=v k2=v2" in registry order: a settings set's label in tables.
std::string settings_label(const Settings& settings);

}  // namespace vlag::compare
