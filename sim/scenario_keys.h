// The keys of a scenario (sim/scenario.h), each registered once: its name, the type and range of
// its value, its help text and how it sets a ScenarioConfig. `vlag sim` makes one flag of every
// key (cli/sim_command.cpp); `vlag compare` takes the comparable ones as key=value settings
// (compare/settings.h), a family key (cgroup) field by field as NAME.INSTANCE.FIELD=value. A new
// scenario option is one row in scenario_keys.cpp.
//
// Registry order is application order: the preset comes before its feature overrides, and a key
// that sets a Params field (cpus, hz) leaves the preset alone, so that whoever applies keys
// rebuilds the Params once at the end (make_params) and the CPU count rescales the base slice of
// whichever preset was chosen.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/scenario.h"

namespace vlag::sim {

/// A key's value: the alternative its KeyType names.
using KeyValue = std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<int64_t>,
                              std::vector<double>, std::vector<std::string>>;

enum class KeyType : uint8_t {
  Int,          // int64_t in [lo, hi]
  Real,         // double in [lo, hi]
  IntList,      // std::vector<int64_t>, each in [lo, hi], written "0,0,5": cycled over the tasks
  RealList,     // std::vector<double>, each in [lo, hi]
  Seed,         // uint64_t
  Text,         // std::string
  Choice,       // std::string, one of `choices`
  File,         // std::string naming a file that exists
  Switch,       // bool: vlag sim's flag sets `flag_sets`; vlag compare takes on or off
  PerWorkload,  // std::vector<std::string>, each WORKLOAD:key=value,... (sim/task_options.h):
                // one per --group in vlag sim, joined by '/' in vlag compare
};

struct ScenarioKey {
  std::string name;  // the compare key; vlag sim's flag is --name with '-' for '_'
  std::string flag;  // vlag sim's flag where it is not that, in CLI11's form ("-T,--thread")
  std::string help;  // vlag sim's help text
  KeyType type = KeyType::Int;
  double lo = 0;  // Int, Real and the lists: the accepted range
  double hi = 0;
  std::vector<std::string> choices;  // Choice
  bool flag_sets = true;             // Switch: the value vlag sim's flag sets
  bool comparable = false;           // a vlag compare key
  /// A family key (cgroup): vlag compare takes it field by field, NAME.INSTANCE.FIELD=value
  /// (cgroup.lat.latency_nice=-20), so that --vary and --rows vary one field of one instance;
  /// these are the FIELDs. Empty: vlag compare takes NAME=value.
  std::vector<std::string> fields;
  /// A family key: sets FIELD of INSTANCE from its text, creating the instance; throws
  /// vlag::Error "FIELD: why".
  std::function<void(ScenarioConfig&, const std::string& instance, const std::string& field,
                     const std::string& value)>
      set_field;
  bool shows_default = false;  // vlag sim --help shows the default config's value
  /// Sets the value; throws vlag::Error on one the config cannot take (an unknown preset).
  std::function<void(ScenarioConfig&, const KeyValue&)> set;
  /// The value a config holds, in the key's own unit.
  std::function<KeyValue(const ScenarioConfig&)> get;

  /// vlag sim's flag in CLI11's form: `flag`, or --name with '-' for '_'.
  std::string sim_flag() const;
};

/// Every key, in application order.
const std::vector<ScenarioKey>& scenario_keys();

/// The key named `name`, or nullptr.
const ScenarioKey* find_scenario_key(std::string_view name);

/// A family key's setting name, NAME.INSTANCE.FIELD, split.
struct FamilyKeyName {
  const ScenarioKey* key = nullptr;
  std::string instance;  // between the first '.' and the last: "lat", "a/b"
  std::string field;
};

/// `name` as a family key's NAME.INSTANCE.FIELD; nullopt when NAME before the first '.' is no
/// family key's. Throws vlag::Error on a family's name with no or an empty INSTANCE or an
/// unknown FIELD, naming the fields.
std::optional<FamilyKeyName> split_family_key(std::string_view name);

/// `text` as the key's value, the way vlag compare writes it (numbers as from_chars reads them,
/// lists comma-separated, Switch as on or off, PerWorkload joined by '/'); throws vlag::Error
/// saying what is expected.
KeyValue parse_key_value(const ScenarioKey& key, std::string_view text);

}  // namespace vlag::sim
