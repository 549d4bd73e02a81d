// The scenario keys (sim/scenario_keys.h): one registry that vlag sim's flags and vlag compare's
// settings are both made from.
#include "sim/scenario_keys.h"

#include <gtest/gtest.h>

#include <set>

#include "spec/error.h"

namespace vlag::sim {
namespace {

std::string text_of(const ScenarioKey& k, double x) {
  return k.type == KeyType::Int || k.type == KeyType::IntList
             ? std::to_string(static_cast<int64_t>(x))
             : std::to_string(x);
}

TEST(ScenarioKeys, NamesAndFlagsAreUnique) {
  std::set<std::string> names, flags;
  for (const ScenarioKey& k : scenario_keys()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_TRUE(flags.insert(k.sim_flag()).second) << k.sim_flag();
    EXPECT_FALSE(k.help.empty()) << k.name;
    EXPECT_TRUE(k.set) << k.name;
  }
  EXPECT_EQ(find_scenario_key("balance_ticks")->sim_flag(), "--balance-ticks");
  EXPECT_EQ(find_scenario_key("balance")->sim_flag(), "--no-balance");
  EXPECT_EQ(find_scenario_key("no_such_key"), nullptr);
}

TEST(ScenarioKeys, ComparableKeysKeepTheirApplicationOrder) {
  // The order vlag compare applies settings in, lists its keys in and labels variants with.
  std::vector<std::string> comparable;
  for (const ScenarioKey& k : scenario_keys())
    if (k.comparable) comparable.push_back(k.name);
  EXPECT_EQ(comparable, (std::vector<std::string>{"preset",
                                                  "features",
                                                  "cpus",
                                                  "hz",
                                                  "kernel_cpus",
                                                  "base_slice_us",
                                                  "placement",
                                                  "jitter",
                                                  "policy",
                                                  "balance",
                                                  "balance_ticks",
                                                  "switch_cost_us",
                                                  "wake_timer_cost_us",
                                                  "wake_task_cost_us",
                                                  "wake_idle_cost_us",
                                                  "tick_cost_us",
                                                  "nice",
                                                  "slice_us",
                                                  "timer_slack_us",
                                                  "latency_nice",
                                                  "tasks",
                                                  "hogs",
                                                  "groups",
                                                  "fds",
                                                  "loops",
                                                  "message_threads",
                                                  "workers",
                                                  "sleep_us",
                                                  "request_us",
                                                  "interval_us",
                                                  "pipe_bytes",
                                                  "rtapp",
                                                  "group",
                                                  "cgroup",
                                                  "autogroup"}));
}

TEST(ScenarioKeys, SettingWhatAConfigHoldsChangesNothing) {
  // get and set agree on each key's unit (us and s against the config's ns).
  ScenarioConfig c;
  c.machine.params = make_params(preset_by_name("linux-6.6"), 300, 3);
  c.schbench.sleep_ns = 123'456;
  c.limit_ns = 2'500'000'000;
  c.options.slice_ns = {0, 150'000};
  c.options.nice = {-3, 4};
  for (const ScenarioKey& k : scenario_keys()) {
    if (!k.get) continue;
    ScenarioConfig d = c;
    k.set(d, k.get(c));
    EXPECT_EQ(k.get(d), k.get(c)) << k.name;
  }
  EXPECT_EQ(std::get<double>(find_scenario_key("sleep_us")->get(c)), 123.456);
  EXPECT_EQ(std::get<double>(find_scenario_key("seconds")->get(c)), 2.5);
}

TEST(ScenarioKeys, OneRangeForTheFlagAndTheSetting) {
  // vlag sim checks a flag against [lo, hi] (CLI11); vlag compare's text parse takes the same.
  for (const ScenarioKey& k : scenario_keys()) {
    if (k.type != KeyType::Int && k.type != KeyType::Real && k.type != KeyType::IntList &&
        k.type != KeyType::RealList)
      continue;
    EXPECT_NO_THROW(parse_key_value(k, text_of(k, k.lo))) << k.name;
    EXPECT_NO_THROW(parse_key_value(k, text_of(k, k.hi))) << k.name;
    EXPECT_THROW(parse_key_value(k, text_of(k, k.lo - 1)), Error) << k.name;
    EXPECT_THROW(parse_key_value(k, text_of(k, k.hi + 1)), Error) << k.name;
  }
  const ScenarioKey& nice = *find_scenario_key("nice");
  EXPECT_EQ(std::get<std::vector<int64_t>>(parse_key_value(nice, "0,-20,19")),
            (std::vector<int64_t>{0, -20, 19}));
  EXPECT_THROW(parse_key_value(nice, "0,,19"), Error);
  EXPECT_THROW(parse_key_value(*find_scenario_key("cpus"), "2x"), Error);
}

TEST(ScenarioKeys, SwitchesAndGroupsAsVlagCompareWritesThem) {
  ScenarioConfig c;
  const ScenarioKey& balance = *find_scenario_key("balance");
  balance.set(c, parse_key_value(balance, "off"));
  EXPECT_FALSE(c.machine.balance);
  EXPECT_THROW(parse_key_value(balance, "maybe"), Error);
  const ScenarioKey& group = *find_scenario_key("group");
  group.set(c, parse_key_value(group, "cyclictest:latency_nice=-20/hackbench:nice=5"));
  ASSERT_EQ(c.workload_settings.size(), 2u);
  EXPECT_EQ(c.workload_settings[0].latency_nice, -20);
  EXPECT_EQ(c.workload_settings[1].nice, 5);
}

}  // namespace
}  // namespace vlag::sim
