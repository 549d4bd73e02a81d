// The flat containers the kernel checks keep per event: kernel/pid_weights.h answers as the
// std::map it replaced (membership, weights, size, the walk in ascending pid order) through
// removals and re-insertions, and kernel/flat_id_map.h gives a reused entry a fresh value.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

#include "kernel/flat_id_map.h"
#include "kernel/pid_weights.h"

namespace vlag::kernel {
namespace {

TEST(PidWeights, AnswersAsAMapThroughRemovalsAndReinsertions) {
  PidWeights set;
  std::map<int64_t, double> model;
  std::mt19937_64 rng(7);
  for (int step = 0; step < 20'000; ++step) {
    const auto pid = static_cast<int64_t>(rng() % 300);
    const double weight = static_cast<double>(rng() % 5000);
    switch (rng() % 3) {
      case 0: {
        const auto [held, fresh] = set.emplace(pid, weight);
        const auto [it, model_fresh] = model.emplace(pid, weight);
        ASSERT_EQ(fresh, model_fresh);
        ASSERT_EQ(*held, it->second);
        break;
      }
      case 1:
        ASSERT_EQ(set.erase(pid), model.erase(pid) == 1);
        break;
      default: {
        const double* w = set.find(pid);
        const auto it = model.find(pid);
        ASSERT_EQ(w != nullptr, it != model.end());
        if (w) {
          ASSERT_EQ(*w, it->second);
        }
      }
    }
    ASSERT_EQ(set.size(), model.size());
    ASSERT_EQ(set.empty(), model.empty());
  }
  const std::vector<std::pair<int64_t, double>> walk(model.begin(), model.end());
  EXPECT_EQ(set.ascending(), walk);
}

TEST(FlatIdMap, AReusedEntryStartsFreshAndTheOrderHolds) {
  FlatIdMap<std::vector<int>> map;
  map[5].push_back(1);
  map[2].push_back(2);
  map[9].push_back(3);
  map.erase(map.find(5));
  EXPECT_EQ(map.find(5), map.end());
  EXPECT_TRUE(map[7].empty());  // made from the node 5 left
  map[7].push_back(4);
  std::vector<int64_t> ids;
  for (const auto& [id, v] : map) ids.push_back(id);
  EXPECT_EQ(ids, (std::vector<int64_t>{2, 7, 9}));
  EXPECT_EQ(map.at(7), std::vector<int>{4});
  EXPECT_EQ(map.at(9), std::vector<int>{3});
  EXPECT_EQ(map.count(2), 1u);
  EXPECT_EQ(map.count(5), 0u);
}

TEST(FlatIdMap, GetFindsWhatFindFindsAsEntriesComeAndGo) {
  FlatIdMap<int> map;
  std::map<int64_t, int> model;
  uint64_t seed = 7;
  for (int step = 0; step < 2000; ++step) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const auto id = static_cast<int64_t>(seed >> 58) - 16;  // few ids, negative ones too
    if ((seed >> 40) % 3 == 0) {
      const auto it = map.find(id);
      if (it != map.end()) map.erase(it);
      model.erase(id);
    } else {
      map[id] = step;
      model[id] = step;
    }
    for (int64_t probe = -16; probe < 48; ++probe) {
      const auto it = model.find(probe);
      const int* got = map.get(probe);
      ASSERT_EQ(got != nullptr, it != model.end()) << "id " << probe << " at step " << step;
      if (got) {
        ASSERT_EQ(*got, it->second);
        ASSERT_EQ(got, &map.find(probe)->second);
      }
    }
  }
}

}  // namespace
}  // namespace vlag::kernel
