// compare/plot_selection.h by hand, and the plots of an 80-task hackbench grid as their .gp and
// .dat files say: a share chart of 12 named tasks and the others' mean on a zoomed axis, a CCDF
// per variant on log-log axes with the share at 0 in its key, a lag band of all tasks with the
// three largest as lines.
#include "compare/plot_selection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "compare/plots.h"

namespace vlag::compare {
namespace {

TEST(PlotSelection, NamesEveryTaskWhenFew) {
  const std::vector<std::vector<double>> shares{{10, 20, 30}, {11, 20, 29}};
  const ShareSelection s = select_share_tasks(shares, 2);  // 3 tasks <= 2 + 1
  EXPECT_EQ(s.rank, ShareSelection::Rank::Every);
  EXPECT_EQ(s.named, (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(s.others.empty());
}

TEST(PlotSelection, NamesTheTasksTheVariantsChangeMost) {
  // 80 tasks at 2.5 %; the second variant moves tasks 7, 3 and 60 by 0.03, 0.02, 0.01 pp and
  // takes task 41 away.
  std::vector<std::vector<double>> shares(2, std::vector<double>(80, 2.5));
  shares[1][7] += 0.03;
  shares[1][3] -= 0.02;
  shares[1][60] += 0.01;
  shares[1][41] = std::nan("");
  const ShareSelection s = select_share_tasks(shares, 3);
  EXPECT_EQ(s.rank, ShareSelection::Rank::ByChange);
  EXPECT_EQ(s.named, (std::vector<size_t>{3, 7, 41}));  // task order; 60 is fourth
  EXPECT_EQ(s.others.size(), 77u);
  EXPECT_EQ(s.others.front(), 0u);
}

TEST(PlotSelection, WithoutChangesNamesTheTasksFarthestFromTheMean) {
  std::vector<double> one(20, 5.0);
  one[4] = 5.5;
  one[9] = 4.0;
  for (const auto& shares :
       {std::vector<std::vector<double>>{one}, std::vector<std::vector<double>>{one, one}}) {
    const ShareSelection s = select_share_tasks(shares, 2);
    EXPECT_EQ(s.rank, ShareSelection::Rank::ByMean);
    EXPECT_EQ(s.named, (std::vector<size_t>{4, 9}));
    EXPECT_EQ(s.others.size(), 18u);
  }
}

TEST(PlotSelection, ValueAxisZoomsOnSmallDifferences) {
  const AxisRange near = value_axis({2.498, 2.5, 2.503, std::nan("")});
  EXPECT_FALSE(near.from_zero);
  EXPECT_LT(near.lo, 2.498);
  EXPECT_GT(near.lo, 2.49);  // a hundredth of a per cent is a visible part of the axis
  EXPECT_GT(near.hi, 2.503);
  EXPECT_LT(near.hi - near.lo, 0.01);
  const AxisRange far = value_axis({0.5, 50, 49});
  EXPECT_TRUE(far.from_zero);
  EXPECT_EQ(far.lo, 0);
  EXPECT_GT(far.hi, 50);
  EXPECT_TRUE(value_axis({-1, 1}).from_zero);
  EXPECT_TRUE(value_axis({}).from_zero);
}

LagSeries two_tasks() {
  LagSeries lag;
  lag.by_task[1] = {{0, 0}, {100, 100}};    // rises through both buckets of 50 ns
  lag.by_task[2] = {{10, -40}, {90, -40}};  // flat
  lag.by_task[3] = {{60, 5}};               // one sample
  return lag;
}

TEST(PlotSelection, LagBandFollowsEveryTaskLine) {
  const std::vector<LagBand> band = lag_band(two_tasks(), 100, 2);
  ASSERT_EQ(band.size(), 2u);
  EXPECT_DOUBLE_EQ(band[0].t_ns, 25);
  EXPECT_DOUBLE_EQ(band[0].lo_ns, -40);
  EXPECT_DOUBLE_EQ(band[0].hi_ns, 50);  // task 1's line leaves the first bucket at 50
  EXPECT_DOUBLE_EQ(band[1].t_ns, 75);
  EXPECT_DOUBLE_EQ(band[1].lo_ns, -40);
  EXPECT_DOUBLE_EQ(band[1].hi_ns, 100);
}

TEST(PlotSelection, LargestLagTasksInIdOrder) {
  EXPECT_EQ(largest_lag_tasks(two_tasks(), 2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(largest_lag_tasks(two_tasks(), 1), (std::vector<int64_t>{1}));
  EXPECT_EQ(largest_lag_tasks(two_tasks(), 5).size(), 3u);
}

TEST(PlotSelection, CcdfKeepsTheShareAtZeroApart) {
  stats::LatencyHistogram h;
  for (int i = 0; i < 8; ++i) h.add(0);
  h.add(100);
  h.add(100'000);
  const Ccdf c = ccdf_of(h);
  EXPECT_EQ(c.count, 10);
  EXPECT_DOUBLE_EQ(c.zero_fraction, 0.8);
  ASSERT_EQ(c.later_than.size(), 2u);
  EXPECT_EQ(c.later_than[0].first, 100);
  EXPECT_DOUBLE_EQ(c.later_than[0].second, 0.1);  // one of ten later than 100 ns
  EXPECT_GE(c.later_than[1].first, 100'000);
  EXPECT_DOUBLE_EQ(c.later_than[1].second, 0.0);
  stats::LatencyHistogram zeros;
  zeros.add(0);
  EXPECT_TRUE(ccdf_of(zeros).later_than.empty());
  EXPECT_DOUBLE_EQ(ccdf_of(zeros).zero_fraction, 1.0);
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PlotSelection, AnEightyTaskHackbenchReadsAtAGlance) {
  GridSpec spec;
  spec.base.workload = "hackbench";
  spec.base.limit_ns = 1'000'000'000;
  spec.base.machine.params = make_params(preset_by_name("linux-6.18"), 250, 2);
  spec.base.machine.seed = 1;
  spec.base.machine.jitter = 0.05;
  spec.rows = parse_rows("groups=2");  // 2 × (20 senders + 20 receivers)
  spec.variants = parse_variants("preset=linux-6.18;preset=linux-6.6");
  spec.repeat = 1;
  const RunResults res = run_grid(spec, 1, nullptr);
  ASSERT_EQ(res.runs.front().tasks.size(), 80u);
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("vlag-plot-80-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  write_plots(res, {.dir = dir.string(), .gnuplot = "/nonexistent/vlag-no-gnuplot"});

  // The share chart: a header, 12 named tasks and the others' mean; a zoomed axis, said so.
  const std::string share_dat = read(dir / "cpu-share-groups-2.dat");
  EXPECT_EQ(std::count(share_dat.begin(), share_dat.end(), '\n'), 1 + 12 + 1) << share_dat;
  EXPECT_NE(share_dat.find("\n\"others (68, mean)\" "), std::string::npos) << share_dat;
  const std::string share_gp = read(dir / "cpu-share-groups-2.gp");
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(share_gp, m, std::regex(R"(set yrange \[([0-9.e+-]+):([0-9.e+-]+)\])")))
      << share_gp;
  const double lo = std::stod(m[1]);
  const double hi = std::stod(m[2]);
  EXPECT_GT(lo, 2.4);  // not from 0: 80 tasks share 2 CPUs, 2.5 % each
  EXPECT_LT(hi, 2.6);
  EXPECT_NE(share_gp.find("the 12 of 80 tasks"), std::string::npos);
  EXPECT_NE(share_gp.find("not 0"), std::string::npos);

  // The latency CCDF: log-log, one data set per variant, each with its own dash and width and
  // its share at 0 in the key.
  const std::string ccdf_gp = read(dir / "latency-ccdf-groups-2.gp");
  EXPECT_NE(ccdf_gp.find("set logscale xy"), std::string::npos);
  EXPECT_NE(ccdf_gp.find("index 0 using 1:2 with steps lw 3.5 dt 1"), std::string::npos) << ccdf_gp;
  EXPECT_NE(ccdf_gp.find("index 1 using 1:2 with steps lw 1.5 dt 2"), std::string::npos);
  const std::regex key(R"re(title "preset=linux-6\.[0-9]+ \([0-9.]+% at 0 us\)")re");
  EXPECT_EQ(std::distance(std::sregex_iterator(ccdf_gp.begin(), ccdf_gp.end(), key),
                          std::sregex_iterator()),
            2)
      << ccdf_gp;

  // The lag plot: the band of all 80 tasks and the 3 of largest |lag|, said in the title.
  const std::string lag_gp = read(dir / "lag-groups-2-preset-linux-6.6.gp");
  EXPECT_NE(lag_gp.find("all 80 tasks (grey band"), std::string::npos) << lag_gp;
  EXPECT_NE(lag_gp.find("index 0 using 1:2:3 with filledcurves"), std::string::npos);
  const std::regex line(R"(index [0-9]+ using 1:2 with lines)");
  EXPECT_EQ(std::distance(std::sregex_iterator(lag_gp.begin(), lag_gp.end(), line),
                          std::sregex_iterator()),
            3);
  // The data file keeps every task: the band, then 80 data sets.
  const std::string lag_dat = read(dir / "lag-groups-2-preset-linux-6.6.dat");
  size_t sets = 0;
  for (size_t at = lag_dat.find("\n\n\n"); at != std::string::npos;
       at = lag_dat.find("\n\n\n", at + 1))
    ++sets;
  EXPECT_EQ(sets, 1u + 80u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vlag::compare
