#include "sim/uniprocessor.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::sim {
namespace {

Params params(const std::string& preset) { return make_params(preset_by_name(preset)); }

TEST(Uniprocessor, DemoHogsGetTheirIdealShareWithinOnePoint) {
  const RunReport r = run_uniprocessor(params("linux-6.18"), demo_workload(), 2'000'000'000);
  ASSERT_EQ(r.tasks.size(), 4u);
  for (const auto& t : r.tasks) {
    if (t.spec.period_ns != 0) continue;
    EXPECT_NEAR(t.share, t.ideal_share, 0.01) << t.spec.name;
  }
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_GT(r.invariant_checks, 1000);
  const TaskReport& periodic = r.tasks.back();
  // It gets all its work done, and every activation either woke it or found it still busy.
  EXPECT_NEAR(periodic.share, 0.1, 0.001);
  EXPECT_EQ(periodic.wakeup.count + periodic.overruns, 2000);
  EXPECT_GT(periodic.wakeup.count, 1000);
}

TEST(Uniprocessor, RejectsABadTask) {
  EXPECT_THROW(run_uniprocessor(params("linux-6.18"), {{"x", 0, 0, 1000, 0}}, 1000), Error);
  EXPECT_THROW(run_uniprocessor(params("linux-6.18"), {{"x", 30, 0, 0, 0}}, 1000), Error);
  EXPECT_THROW(run_uniprocessor(params("linux-6.18"), demo_workload(), 0), Error);
}

// THM-SHARE: CPU hogs converge to weight-proportional shares under every preset.
RC_GTEST_PROP(UniprocessorProperties, HogsGetWeightProportionalShares, ()) {
  const auto preset =
      *rc::gen::element<std::string>("linux-6.18", "linux-6.12", "linux-6.6", "paper-1");
  const auto nices = *rc::gen::container<std::vector<int>>(*rc::gen::inRange<size_t>(2, 6),
                                                           rc::gen::inRange(-5, 11));
  std::vector<TaskSpec> tasks;
  for (size_t i = 0; i < nices.size(); ++i) tasks.push_back({"hog" + std::to_string(i), nices[i]});
  const Params p = params(preset);
  const int64_t T = 1'000'000'000;
  const RunReport r = run_uniprocessor(p, tasks, T, false);
  const double bound =
      static_cast<double>(2 * std::max(p.base_slice_ns(), p.tick_ns()) + p.tick_ns());
  for (const auto& t : r.tasks) {
    const double err = std::abs(t.share - t.ideal_share) * static_cast<double>(T);
    RC_ASSERT(err <= bound);
  }
}

}  // namespace
}  // namespace vlag::sim
