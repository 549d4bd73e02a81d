#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "compare/aggregate.h"
#include "compare/json.h"
#include "compare/lag_series.h"
#include "compare/plots.h"
#include "compare/report.h"
#include "spec/error.h"
#include "trace/reader.h"

namespace vlag::compare {
namespace {

using sim::Better;
using sim::Metric;
using sim::ScenarioConfig;

// The tiny grid of the task: hogs, 2 variants, 2 rows, 2 repetitions, 0.05 s.
GridSpec tiny_grid(const std::string& workload = "hogs") {
  GridSpec spec;
  spec.base.workload = workload;
  spec.base.limit_ns = 50'000'000;
  spec.base.machine.params = make_params(preset_by_name(kDefaultPreset), 250, 2);
  spec.base.machine.seed = 7;
  spec.rows = parse_rows("tasks=2,3");
  spec.variants = parse_variants("nice=0;nice=0,5 switch_cost_us=5");
  spec.repeat = 2;
  return spec;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(Compare, MeanAndStddevOfHandValues) {
  // Mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32/7.
  const Sample s = sample_of({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  const Sample one = sample_of({3.5});
  EXPECT_DOUBLE_EQ(one.mean, 3.5);
  EXPECT_EQ(one.stddev, 0.0);
  EXPECT_EQ(sample_of({}).n, 0);
}

TEST(Compare, ChangeIsPositiveWhenBetter) {
  // A lower-is-better metric that drops from 10 to 8 improved by 20 %.
  EXPECT_DOUBLE_EQ(*better_change_pct(10, 8, Better::Lower), 20.0);
  EXPECT_DOUBLE_EQ(*better_change_pct(10, 8, Better::Higher), -20.0);
  EXPECT_DOUBLE_EQ(*better_change_pct(4, 5, Better::Higher), 25.0);
  EXPECT_DOUBLE_EQ(*better_change_pct(4, 5, Better::Lower), -25.0);
  EXPECT_DOUBLE_EQ(*better_change_pct(0, 0, Better::Lower), 0.0);
  EXPECT_FALSE(better_change_pct(0, 1, Better::Lower).has_value());
}

RC_GTEST_PROP(Compare, ChangeSignFollowsDirection, ()) {
  const double base = *rc::gen::inRange(1, 100000);
  const double value = *rc::gen::inRange(0, 100000);
  const double lower = *better_change_pct(base, value, Better::Lower);
  const double higher = *better_change_pct(base, value, Better::Higher);
  RC_ASSERT(lower == -higher);
  RC_ASSERT((lower > 0) == (value < base));
  RC_ASSERT(std::abs(std::abs(higher) - std::abs(value - base) / base * 100) < 1e-9);
}

TEST(Compare, NoiseRuleOnHandValues) {
  // Standard error of the difference: sqrt(1²/4 + 1²/4) = 0.7071; twice that is 1.414.
  const Sample base{10, 1, 4};
  EXPECT_TRUE(within_noise(base, {11.4, 1, 4}));
  EXPECT_FALSE(within_noise(base, {11.5, 1, 4}));
  EXPECT_TRUE(within_noise(base, {8.6, 1, 4}));
  // One run has no stddev: nothing is called noise.
  EXPECT_FALSE(within_noise({10, 0, 1}, {10.001, 0, 1}));
}

MetricTable table_of(const std::string& name, Better better, std::vector<double> means) {
  MetricTable t{name, "s", better, {{}}};
  for (double m : means) {
    Cell c;
    c.sample = Sample{m, 0, 1};
    if (!t.cells[0].empty()) c.change_pct = better_change_pct(means[0], m, better);
    t.cells[0].push_back(c);
  }
  return t;
}

TEST(Compare, SummaryIsSortedWorstToBest) {
  // time (lower is better): 10 → 12 is -20 %, 10 → 9 is +10 %; ops (higher): 100 → 50 is -50 %.
  const std::vector<MetricTable> tables = {table_of("time", Better::Lower, {10, 12, 9}),
                                           table_of("ops", Better::Higher, {100, 50, 101})};
  const std::vector<Change> changes = sorted_changes(tables);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(changes[0].metric, "ops");
  EXPECT_DOUBLE_EQ(*changes[0].change_pct, -50.0);
  EXPECT_EQ(changes[1].metric, "time");
  EXPECT_DOUBLE_EQ(*changes[1].change_pct, -20.0);
  EXPECT_DOUBLE_EQ(*changes[2].change_pct, 1.0);
  EXPECT_DOUBLE_EQ(*changes[3].change_pct, 10.0);
}

RC_GTEST_PROP(Compare, SummaryOrderHoldsForAnyMeans, ()) {
  const auto means = *rc::gen::container<std::vector<int>>(*rc::gen::inRange<size_t>(2, 8),
                                                           rc::gen::inRange(1, 1000));
  const Better better = *rc::gen::element(Better::Lower, Better::Higher);
  const std::vector<double> values(means.begin(), means.end());
  const std::vector<Change> changes = sorted_changes({table_of("m", better, values)});
  RC_ASSERT(changes.size() == values.size() - 1);
  for (size_t i = 1; i < changes.size(); ++i)
    RC_ASSERT(*changes[i - 1].change_pct <= *changes[i].change_pct);
}

TEST(Compare, TinyGridTablesHaveTheGridShape) {
  const GridSpec spec = tiny_grid();
  const RunResults res = run_grid(spec, 1, nullptr);
  ASSERT_EQ(res.runs.size(), 2u * 2u * 2u);
  const std::vector<MetricTable> tables = aggregate(res);
  ASSERT_FALSE(tables.empty());
  for (const MetricTable& t : tables) {
    ASSERT_EQ(t.cells.size(), 2u);
    for (size_t r = 0; r < 2; ++r) {
      ASSERT_EQ(t.cells[r].size(), 2u);
      // The mean recomputed from the runs' own values.
      for (size_t v = 0; v < 2; ++v) {
        std::vector<double> values;
        for (const RunRecord& run : res.runs)
          if (run.row == r && run.variant == v)
            for (const Metric& m : run.metrics)
              if (m.name == t.name) values.push_back(m.value);
        ASSERT_EQ(values.size(), 2u);
        ASSERT_TRUE(t.cells[r][v].sample);
        EXPECT_DOUBLE_EQ(t.cells[r][v].sample->mean, (values[0] + values[1]) / 2);
        // A change exists for non-baseline cells unless it would divide a non-zero by zero.
        const double base = t.cells[r][0].sample->mean;
        EXPECT_EQ(t.cells[r][v].change_pct.has_value(),
                  v > 0 && (base != 0 || t.cells[r][v].sample->mean == 0));
      }
    }
    // Text: the metric header, the column header, one line per row, three columns each.
    const std::string text = table_text(t, spec);
    std::vector<std::string> lines;
    for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
         start = end + 1)
      lines.push_back(text.substr(start, end - start));
    ASSERT_EQ(lines.size(), 4u) << text;
    EXPECT_NE(lines[0].find("[" + t.unit + "]"), std::string::npos);
    EXPECT_NE(lines[2].find("tasks=2"), std::string::npos);
    EXPECT_NE(lines[3].find("tasks=3"), std::string::npos);
    for (size_t i = 1; i < lines.size(); ++i) {
      size_t bars = 0;
      for (size_t p = 0; (p = lines[i].find(" | ", p)) != std::string::npos; ++p) ++bars;
      EXPECT_EQ(bars, 2u) << lines[i];
    }
  }
}

TEST(Compare, SameSeedGivesSameNumbersWhateverTheThreads) {
  const GridSpec spec = tiny_grid();
  const RunResults a = run_grid(spec, 1, nullptr);
  const RunResults b = run_grid(spec, 3, nullptr);
  ASSERT_EQ(a.runs.size(), b.runs.size());
  std::set<uint64_t> seeds;
  for (size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(a.runs[i].seed, b.runs[i].seed);
    EXPECT_EQ(a.runs[i].end_ns, b.runs[i].end_ns);
    ASSERT_EQ(a.runs[i].metrics.size(), b.runs[i].metrics.size());
    for (size_t m = 0; m < a.runs[i].metrics.size(); ++m)
      EXPECT_EQ(a.runs[i].metrics[m].value, b.runs[i].metrics[m].value);
    seeds.insert(a.runs[i].seed);
  }
  EXPECT_EQ(seeds, (std::set<uint64_t>{7, 8}));  // seed_i = base seed + i
}

TEST(Compare, JsonParsesAndHoldsEveryRun) {
  const GridSpec spec = tiny_grid();
  const RunResults res = run_grid(spec, 2, nullptr);
  const std::vector<MetricTable> tables = aggregate(res);
  const std::vector<Change> changes = sorted_changes(tables);
  const std::string json = comparison_json(res, tables, changes, {"a \"quoted\" name.svg"});
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(simdjson::padded_string(json));
  const simdjson::dom::array runs = doc["runs"].get_array();
  ASSERT_EQ(runs.size(), res.runs.size());
  size_t i = 0;
  for (const simdjson::dom::element run : runs) {
    EXPECT_EQ(uint64_t(run["seed"].get_int64()), res.runs[i].seed);
    EXPECT_EQ(std::string_view(run["variant"].get_string()),
              spec.variants[res.runs[i].variant].label);
    EXPECT_EQ(run["metrics"].get_array().size(), res.runs[i].metrics.size());
    ++i;
  }
  EXPECT_EQ(doc["metrics"].get_array().size(), tables.size());
  EXPECT_EQ(doc["summary"].get_array().size(), changes.size());
  EXPECT_EQ(std::string_view(doc["config"]["baseline"].get_string()), "nice=0");
  EXPECT_EQ(std::string_view(doc["plots"].at(0).get_string()), "a \"quoted\" name.svg");
}

TEST(Compare, BadKeyOrValueIsAnErrorNamingIt) {
  try {
    parse_variants("preset=linux-6.6;bogus_key=3");
    FAIL() << "an unknown key was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bogus_key"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_rows("groups"), Error);
  EXPECT_THROW(parse_vary("latency_nice=0,,19"), Error);
  GridSpec spec = tiny_grid();
  spec.variants = parse_variants("hz=7");
  try {
    run_grid(spec, 1, nullptr);
    FAIL() << "hz=7 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hz=7"), std::string::npos) << e.what();
  }
}

TEST(Compare, SettingsApplyInRegistryOrder) {
  // features after preset whatever the order written: linux-6.6 without RUN_TO_PARITY.
  ScenarioConfig c;
  apply_settings(c, parse_settings("features=-RUN_TO_PARITY preset=linux-6.6 latency_nice=-20,19"));
  EXPECT_EQ(c.machine.params.preset.name, "linux-6.6");
  EXPECT_FALSE(c.machine.params.preset.has(Feature::RUN_TO_PARITY));
  EXPECT_EQ(c.options.latency_nice, (std::vector<int>{-20, 19}));
  EXPECT_TRUE(preset_by_name("linux-6.6").has(Feature::RUN_TO_PARITY));
}

TEST(Compare, LagSeriesOfEqualHogsStaysWithinTheBound) {
  // Two nice-0 hogs on one linux-6.18 CPU: THM-LAG-BOUND-LINUX promises |lag| <= r + TICK, and
  // round-robin by whole ticks swings each lag by about half a tick, so a unit slip (vlag not
  // weighted, or not divided by N) shows on one side or the other.
  ScenarioConfig c;
  c.machine.params = make_params(preset_by_name("linux-6.18"), 250, 1);
  c.limit_ns = 200'000'000;
  c.tasks = 2;
  LagSampler sampler;
  const sim::ScenarioResult r = sim::run_scenario(c, &sampler);
  const LagSeries lag = sampler.series(c.machine.params, r.stats.end_ns, 100);
  EXPECT_DOUBLE_EQ(lag.bound_ns, static_cast<double>(c.machine.params.base_slice_ns() +
                                                     c.machine.params.tick_ns()));
  EXPECT_LE(lag.max_abs_lag_ns, lag.bound_ns);
  EXPECT_GT(lag.max_abs_lag_ns, static_cast<double>(c.machine.params.tick_ns()) / 4);
  ASSERT_EQ(lag.by_task.size(), 2u);
  for (const auto& [id, points] : lag.by_task) {
    EXPECT_LE(points.size(), 100u + 1u);
    EXPECT_GT(points.size(), 10u);
    for (size_t i = 1; i < points.size(); ++i) EXPECT_LE(points[i - 1].t_ns, points[i].t_ns);
  }
}

TEST(Compare, LagSampledFromTheRunIsTheLagItsTracesHold) {
  // The lag plot samples the run's own events; what --trace-dir writes of the same run, read
  // back, gives the same series point for point (schbench on two CPUs, placed on an idle CPU,
  // migrates tasks).
  ScenarioConfig c;
  c.machine.params = make_params(preset_by_name("linux-6.18"), 250, 2);
  c.machine.placement = sim::Placement::Idle;
  c.workload = "schbench";
  c.limit_ns = 50'000'000;
  const auto dir = fresh_dir("vlag-compare-lag");
  c.machine.trace_dir = dir.string();
  LagSampler live;
  const sim::ScenarioResult r = sim::run_scenario(c, &live);
  ASSERT_GT(r.stats.migrations, 0);
  LagSampler from_traces;
  for (int cpu = 0; cpu < 2; ++cpu) {
    const std::string file = (dir / ("cpu" + std::to_string(cpu) + ".jsonl")).string();
    std::ifstream in(file);
    trace::Reader reader(in, file);
    while (std::optional<trace::Event> e = reader.next()) {
      e->cpu = cpu;
      from_traces.on_event(*e);
    }
  }
  std::filesystem::remove_all(dir);
  const LagSeries a = live.series(c.machine.params, r.stats.end_ns, 50);
  const LagSeries b = from_traces.series(c.machine.params, r.stats.end_ns, 50);
  EXPECT_EQ(a.max_abs_lag_ns, b.max_abs_lag_ns);
  ASSERT_EQ(a.by_task.size(), b.by_task.size());
  ASSERT_EQ(a.by_task.size(), 3u);  // the message thread and its two workers
  for (const auto& [id, points] : a.by_task) {
    const std::vector<LagPoint>& other = b.by_task.at(id);
    ASSERT_EQ(points.size(), other.size()) << "task " << id;
    for (size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(points[i].t_ns, other[i].t_ns) << "task " << id;
      EXPECT_EQ(points[i].lag_ns, other[i].lag_ns) << "task " << id;
    }
  }
}

TEST(Compare, PlotFilesAreWritten) {
  GridSpec spec = tiny_grid("cyclictest");
  spec.rows = parse_rows("");
  const RunResults res = run_grid(spec, 2, nullptr);
  const auto dir = fresh_dir("vlag-compare-plots");
  if (!gnuplot_available("gnuplot")) GTEST_SKIP() << "gnuplot is not installed: plots not drawn";
  const PlotFiles files = write_plots(res, {.dir = dir.string()});
  ASSERT_TRUE(files.gnuplot_found);
  // Per row a latency CDF and a CPU share plot; per variant a lag plot.
  EXPECT_EQ(files.images.size(), 2u + 2u) << files.notes.size();
  for (const std::string& image : files.images) {
    EXPECT_GT(std::filesystem::file_size(image), 0u) << image;
    const std::string stem = image.substr(0, image.size() - 4);
    EXPECT_GT(std::filesystem::file_size(stem + ".gp"), 0u) << stem;
    EXPECT_GT(std::filesystem::file_size(stem + ".dat"), 0u) << stem;
  }
  std::filesystem::remove_all(dir);
}

TEST(Compare, WithoutGnuplotDataAndScriptsAreStillWritten) {
  GridSpec spec = tiny_grid("cyclictest");
  spec.rows = parse_rows("");
  spec.repeat = 1;
  const RunResults res = run_grid(spec, 1, nullptr);
  const auto dir = fresh_dir("vlag-compare-noplot");
  const PlotFiles files =
      write_plots(res, {.dir = dir.string(), .gnuplot = "/nonexistent/vlag-no-gnuplot"});
  EXPECT_FALSE(files.gnuplot_found);
  EXPECT_TRUE(files.images.empty());
  EXPECT_EQ(files.scripts.size(), 4u);
  for (const std::string& script : files.scripts) {
    EXPECT_GT(std::filesystem::file_size(script), 0u);
    EXPECT_FALSE(std::filesystem::exists(script.substr(0, script.size() - 3) + ".svg"));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vlag::compare
