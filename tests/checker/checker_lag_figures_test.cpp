// The lag figures past the steady part of a run (checker/lag_figures.h): one integer walk per
// decision point finds its largest |lag|. Against the definition sample by sample — every queued
// entity a sample, the largest |lag| the first in id order to reach it — over random queues
// with ties of either sign, sleeping entities and several weights.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>

#include "checker/lag_figures.h"
#include "checker/view.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::checker {
namespace {

RC_GTEST_PROP(LagFiguresProperties, ThePicksLargestLagIsTheFirstToReachItSampleBySample, ()) {
  const Params params = make_params(preset_by_name("linux-6.18"));
  Report report;
  LagFigures figures(params, report, "t.jsonl");
  View view;
  const int n = *rc::gen::inRange(1, 40);
  for (int i = 1; i <= n; ++i) {
    ViewEntity e;
    e.id = e.task.emplace(i);
    e.weight = *rc::gen::element<int64_t>(1024, 1024, 335, 3121);
    e.slice = params.base_slice_ns();
    e.status = *rc::gen::element(Status::Queued, Status::Queued, Status::Delayed, Status::Sleeping);
    view.insert(e);
  }
  // The expected figure: the largest |lag| over every queued sample, the first to reach it.
  double largest = -1;
  std::string who;
  int64_t samples = 0;
  const int picks = *rc::gen::inRange(1, 6);
  for (int p = 0; p < picks; ++p) {
    const int64_t V = *rc::gen::inRange<int64_t>(-3000, 3000);
    for (int i = 1; i <= n; ++i) {
      // Few distinct vruntimes, so that lags tie, of either sign.
      const int64_t v = V + 512 * *rc::gen::inRange<int64_t>(-3, 4);
      View::Edit e = view.edit(i);
      e->vruntime = static_cast<long>(v);
    }
    const int64_t line = 10 + p;
    for (const auto& [id, e] : view.entities()) {
      if (!in_queue(e)) continue;
      ++samples;
      const double lag =
          static_cast<double>((V - *e.v64) * e.weight) / static_cast<double>(kNice0Weight);
      if (std::abs(lag) > largest) {
        largest = std::abs(lag);
        who = fmt::format("task {} lag {:.3f} ms at line {}", id, lag / 1e6, line);
      }
    }
    figures.at_decision(view, Exact(static_cast<long>(V)), false, false, line);
  }
  figures.finish();
  if (samples == 0) {
    RC_ASSERT(report.stats.count(ids::kThmLagBoundLinux) == 0u);
    return;
  }
  const InvariantStats& s = report.stats.at(ids::kThmLagBoundLinux);
  RC_ASSERT(s.checked == samples);
  RC_ASSERT(s.worst.find(fmt::format("max |lag| {:.3f} ms: {}; no bound from line 10",
                                     largest / 1e6, who)) == 0u);
}

}  // namespace
}  // namespace vlag::checker
