// The held records of perf.data's rounds (kernel/sorted_runs.h) against a stable sort of all held:
// through rounds of runs (a few, and more than a look at each run's next record serves), ties of
// time across and within runs, and limits that cut runs anywhere, each round passes on the
// records no later than its limit in the order the stable sort puts them, and keeps the rest.
#include "kernel/sorted_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace vlag::kernel {
namespace {

struct Rec {
  uint64_t time;
  int id;  // the order it came in
};

TEST(SortedRuns, PassesOnWhatAStableSortOfAllHeldPutsFirst) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 400; ++trial) {
    SortedRuns<Rec> runs(16);
    std::vector<Rec> model;  // held, in the order they came
    int next_id = 0;
    const int cpus = 1 + static_cast<int>(rng() % (trial % 2 ? 3 : 20));
    std::vector<uint64_t> clock(static_cast<size_t>(cpus), 100);
    for (int round = 0; round < 6; ++round) {
      // A round: each CPU's buffer drained in turn, its records in time order (ties often).
      for (int c = 0; c < cpus; ++c) {
        const int n = static_cast<int>(rng() % 12);
        for (int i = 0; i < n; ++i) {
          clock[static_cast<size_t>(c)] += rng() % 3;
          const Rec r{clock[static_cast<size_t>(c)], next_id++};
          runs.push(r);
          model.push_back(r);
        }
      }
      const uint64_t limit = round == 5 ? UINT64_MAX : 100 + rng() % (20 * (round + 1));
      std::vector<int> got;
      runs.pass_until(limit, [&](const Rec& r) { got.push_back(r.id); });
      std::stable_sort(model.begin(), model.end(),
                       [](const Rec& a, const Rec& b) { return a.time < b.time; });
      std::vector<int> want;
      size_t n = 0;
      while (n < model.size() && model[n].time <= limit) want.push_back(model[n++].id);
      model.erase(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(n));
      ASSERT_EQ(got, want) << "trial " << trial << ", round " << round << ", " << cpus << " CPUs";
      std::vector<int> held, kept;
      runs.each([&](const Rec& r) { held.push_back(r.id); });
      for (const Rec& r : model) kept.push_back(r.id);
      std::sort(held.begin(), held.end());
      std::sort(kept.begin(), kept.end());
      ASSERT_EQ(held, kept);
      ASSERT_EQ(runs.empty(), model.empty());
    }
  }
}

}  // namespace
}  // namespace vlag::kernel
