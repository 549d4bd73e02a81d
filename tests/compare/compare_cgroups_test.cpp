// Task groups as vlag compare keys (cgroup.PATH.FIELD, compare/settings.h) and the per-group
// metrics of a run (compare/group_metrics.h).
#include <gtest/gtest.h>

#include <string>

#include "compare/aggregate.h"
#include "compare/group_metrics.h"
#include "compare/no_effect.h"
#include "spec/error.h"

namespace vlag::compare {
namespace {

const sim::Metric* find(const sim::Metrics& ms, const std::string& name) {
  for (const sim::Metric& m : ms)
    if (m.name == name) return &m;
  return nullptr;
}

sim::ScenarioConfig applied(const Settings& s) {
  sim::ScenarioConfig c;
  apply_settings(c, s);
  return c;
}

TEST(CompareCgroups, FieldsBuildOneCgroupPerPathInTheOrderOfTheirNames) {
  const sim::ScenarioConfig c = applied({{"cgroup.lat.workload", "cyclictest"},
                                         {"cgroup.lat.latency_nice", "-20"},
                                         {"cgroup.hb.workload", "hackbench"},
                                         {"cgroup.hb.weight", "400"},
                                         {"cgroup.a/b.tasks", "2"}});
  ASSERT_EQ(c.machine.cgroups.size(), 3u);
  EXPECT_EQ(c.machine.cgroups[0].path, "/a/b");
  EXPECT_EQ(c.machine.cgroups[0].tasks, 2);
  EXPECT_EQ(c.machine.cgroups[1].path, "/hb");
  EXPECT_EQ(c.machine.cgroups[1].weight, 400);
  EXPECT_EQ(c.machine.cgroups[1].workload, "hackbench");
  EXPECT_FALSE(c.machine.cgroups[1].latency_nice.has_value());
  EXPECT_EQ(c.machine.cgroups[2].path, "/lat");
  EXPECT_EQ(c.machine.cgroups[2].latency_nice, -20);
  EXPECT_EQ(c.machine.cgroups[2].weight, 100);  // cpu.weight's default
}

TEST(CompareCgroups, VaryTakesOneFieldsValues) {
  const std::vector<Labeled> v = parse_vary("cgroup.lat.latency_nice=0,-20,19");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1].label, "cgroup.lat.latency_nice=-20");
  EXPECT_EQ(applied(v[1].settings).machine.cgroups.at(0).latency_nice, -20);
  const std::vector<Labeled> rows = parse_rows("cgroup.hb.weight=100,400");
  EXPECT_EQ(applied(rows[1].settings).machine.cgroups.at(0).weight, 400);
  // A label lists the settings in registry order: the cgroup's fields after the tasks' keys.
  EXPECT_EQ(settings_label(parse_settings("cgroup.lat.latency_nice=-20 policy=eevdf nice=5")),
            "policy=eevdf nice=5 cgroup.lat.latency_nice=-20");
}

TEST(CompareCgroups, BadNamesAndValuesAreErrorsNamingThem) {
  const auto message = [](const Settings& s) {
    try {
      applied(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"cgroup.lat.colour", "red"}}).find("unknown field 'colour'"),
            std::string::npos);
  EXPECT_NE(message({{"cgroup.lat.colour", "red"}}).find("latency_nice"), std::string::npos);
  EXPECT_NE(message({{"cgroup.weight", "5"}}).find("names no cgroup"), std::string::npos);
  EXPECT_NE(message({{"cgroup..weight", "5"}}).find("names no cgroup"), std::string::npos);
  EXPECT_NE(message({{"cgroup", "/a:weight=5"}}).find("field by field"), std::string::npos);
  const std::string bad = message({{"cgroup.lat.weight", "0"}});
  EXPECT_NE(bad.find("cgroup.lat.weight=0"), std::string::npos) << bad;
  EXPECT_NE(bad.find("1..10000"), std::string::npos) << bad;
  EXPECT_NE(message({{"cgroup.lat.latency_nice", "-21"}}).find("-20..19"), std::string::npos);
  EXPECT_THROW(parse_setting("cgroup.lat.colour=1"), Error);
  // The list of keys names the family's fields.
  const std::vector<std::string> keys = setting_keys();
  EXPECT_NE(std::find(keys.begin(), keys.end(), "cgroup.PATH.latency_nice"), keys.end());
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "cgroup"), keys.end());
}

TEST(CompareCgroups, ACgroupsLatencyNiceUnderAPolicyThatReadsNoneIsWarnedAbout) {
  GridSpec spec;
  spec.base.workload = "cyclictest";
  spec.base.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 1);
  spec.common = {{"cgroup.lat.workload", "cyclictest"}};
  spec.rows = parse_rows("");
  spec.variants = parse_vary("cgroup.lat.latency_nice=0,-20");
  const std::vector<std::string> eevdf = ignored_settings(spec);
  ASSERT_EQ(eevdf.size(), 2u);
  EXPECT_NE(eevdf[1].find("policy eevdf ignores latency_nice"), std::string::npos) << eevdf[1];
  spec.common["policy"] = "eevdf-latency-nice";
  EXPECT_TRUE(ignored_settings(spec).empty());
}

TEST(CompareCgroups, AGroupNoTaskCanJoinIsAnError) {
  // cgroup.lta.latency_nice alone (a misspelt name) would hold no task and change nothing.
  sim::ScenarioConfig c = applied({{"cgroup.lta.latency_nice", "-20"}});
  c.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 1);
  c.limit_ns = 10'000'000;
  EXPECT_THROW(sim::run_scenario(c), Error);
  // A parent that only gives a weight to the cgroup below it is not one.
  c = applied({{"cgroup.a.weight", "200"}, {"cgroup.a/b.tasks", "1"}});
  c.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 1);
  c.limit_ns = 10'000'000;
  c.tasks = 1;
  EXPECT_NO_THROW(sim::run_scenario(c));
}

TEST(CompareCgroups, GroupSharesFollowTheirWeights) {
  // One CPU, a hog in each of two cgroups of cpu.weight 100 and 300: THM-GROUP-SHARE gives them
  // 25 % and 75 % of the CPU, within 2·(2·max(b, TICK) + TICK) over 1 s (well under a point).
  GridSpec spec;
  spec.base.workload = "hogs";
  spec.base.limit_ns = 1'000'000'000;
  spec.base.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 1);
  spec.common = {
      {"tasks", "2"}, {"cgroup.a.tasks", "1"}, {"cgroup.b.tasks", "1"}, {"cgroup.a.weight", "100"}};
  spec.rows = parse_rows("");
  spec.variants = parse_vary("cgroup.b.weight=100,300");
  const RunResults r = run_grid(spec, 1, nullptr);
  ASSERT_EQ(r.runs.size(), 2u);
  const sim::Metric* a_even = find(r.runs[0].metrics, "cgroup:/a.share");
  const sim::Metric* a = find(r.runs[1].metrics, "cgroup:/a.share");
  const sim::Metric* b = find(r.runs[1].metrics, "cgroup:/b.share");
  ASSERT_TRUE(a_even && a && b);
  EXPECT_NEAR(a_even->value, 50.0, 1.0);
  EXPECT_NEAR(a->value, 25.0, 1.0);
  EXPECT_NEAR(b->value, 75.0, 1.0);
  EXPECT_EQ(b->unit, "%");
  EXPECT_EQ(b->better, sim::Better::Higher);
  // The group metrics are tables like the others.
  const std::vector<MetricTable> tables = aggregate(r);
  EXPECT_TRUE(std::any_of(tables.begin(), tables.end(),
                          [](const MetricTable& t) { return t.name == "cgroup:/b.share"; }));
}

TEST(CompareCgroups, PolicyVariesWithGroups) {
  // The same cgroups under each policy: EEVDF's hierarchy (SPEC.md §10) and v6.5's CFS one
  // (§8.6) both give cpu.weight 100 and 300 a quarter and three quarters of one CPU.
  GridSpec spec;
  spec.base.workload = "hogs";
  spec.base.limit_ns = 1'000'000'000;
  spec.base.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 1);
  spec.common = {
      {"tasks", "2"}, {"cgroup.a.tasks", "1"}, {"cgroup.b.tasks", "1"}, {"cgroup.b.weight", "300"}};
  spec.rows = parse_rows("");
  spec.variants = parse_vary("policy=eevdf,cfs,cfs-latency-nice");
  const RunResults r = run_grid(spec, 1, nullptr);
  ASSERT_EQ(r.runs.size(), 3u);
  for (const auto& run : r.runs) {
    const sim::Metric* a = find(run.metrics, "cgroup:/a.share");
    ASSERT_TRUE(a);
    EXPECT_NEAR(a->value, 25.0, 1.0);
  }
}

TEST(CompareCgroups, WakeupPercentilesMergeTheGroupsTasks) {
  sim::TaskSummary a, b, root;
  a.group = b.group = "/lat";
  a.runtime_ns = 100;
  b.runtime_ns = 300;
  for (int i = 0; i < 99; ++i) a.latency.add(1000);  // 1 us
  b.latency.add(5'000'000);                          // one wakeup waited 5 ms
  root.runtime_ns = 600;
  const sim::Metrics m = group_metrics({a, b, root}, 1000, 1);
  EXPECT_DOUBLE_EQ(find(m, "cgroup:/lat.share")->value, 40.0);
  EXPECT_DOUBLE_EQ(find(m, "cgroup:/.share")->value, 60.0);
  // The histogram reports a bucket's upper bound, within 1/64 of the sample.
  EXPECT_NEAR(find(m, "cgroup:/lat.wakeup_p50")->value, 1.0, 1.0 / 64);
  EXPECT_NEAR(find(m, "cgroup:/lat.wakeup_p99")->value, 1.0, 1.0 / 64);  // 99 of 100 are 1 us
  EXPECT_NEAR(find(m, "cgroup:/lat.wakeup_max")->value, 5000.0, 5000.0 / 64);
  // Every task in the root group: no group to report.
  EXPECT_TRUE(group_metrics({root}, 1000, 1).empty());
}

}  // namespace
}  // namespace vlag::compare
