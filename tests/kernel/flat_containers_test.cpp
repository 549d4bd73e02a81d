// The flat containers the kernel checks keep per event: kernel/flat_table.h answers as a
// std::map (and its values stay where they are while it grows, listed in the order their keys
// came), kernel/inline_table.h answers as a std::map (every key listed once), kernel/pid_weights.h
// answers as the std::map it replaced (membership, weights, size, the walk in ascending pid order)
// through removals and re-insertions, and kernel/flat_id_map.h gives a reused entry a fresh value,
// and kernel/value_counts.h answers as the map of counts it replaced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "kernel/flat_id_map.h"
#include "kernel/flat_table.h"
#include "kernel/inline_table.h"
#include "kernel/pid_weights.h"
#include "kernel/value_counts.h"

namespace vlag::kernel {
namespace {

// Whether a lookup of key in a table of counts finds what the std::map it stands for holds.
template <class Table>
::testing::AssertionResult found_as_in(const std::map<int64_t, int64_t>& model, const Table& table,
                                       int64_t key) {
  const int64_t* v = table.find(key);
  const auto it = model.find(key);
  if ((v != nullptr) != (it != model.end()))
    return ::testing::AssertionFailure()
           << "key " << key << (v ? " found, not in the map" : " not found, in the map");
  if (v && *v != it->second)
    return ::testing::AssertionFailure()
           << "key " << key << ": " << *v << ", the map " << it->second;
  return ::testing::AssertionSuccess();
}

TEST(FlatTable, AnswersAsAMapAndItsValuesStayPut) {
  FlatTable<int64_t, int64_t> table;
  std::map<int64_t, int64_t> model;
  std::vector<std::pair<int64_t, int64_t*>> first_met;  // each key, where its value was made
  std::mt19937_64 rng(3);
  for (int step = 0; step < 50'000; ++step) {
    // Keys spread wide and clustered, negative too: ids of group entities are negative.
    const auto key = static_cast<int64_t>(rng() % 3000) * (rng() % 2 ? 1 : -4096);
    if (rng() % 2) {
      const bool fresh = !model.count(key);
      int64_t& v = table[key];
      if (fresh) {
        ASSERT_EQ(v, 0);  // value-initialised
        first_met.emplace_back(key, &v);
      }
      v += 1;
      model[key] += 1;
    } else {
      ASSERT_TRUE(found_as_in(model, table, key));
    }
  }
  ASSERT_EQ(table.size(), model.size());
  for (size_t i = 0; i < first_met.size(); ++i) {
    EXPECT_EQ(table.key(i), first_met[i].first);
    EXPECT_EQ(&table.value(i), first_met[i].second);  // never moved as the table grew
    EXPECT_EQ(table.find(first_met[i].first), first_met[i].second);
    EXPECT_EQ(table.value(i), model.at(first_met[i].first));
  }
  // A copy answers from its own values, the original gone (as in a vector that grew); a moved
  // table from the same values.
  auto copy = std::make_unique<FlatTable<int64_t, int64_t>>(table);
  const FlatTable<int64_t, int64_t> moved(std::move(table));
  FlatTable<int64_t, int64_t> assigned;
  assigned[1] = 5;
  assigned = *copy;
  copy->find(first_met[0].first)[0] += 1000;  // its own values: the others do not see it
  const FlatTable<int64_t, int64_t> kept(std::move(*copy));
  copy.reset();
  for (const auto& [key, value] : model) {
    ASSERT_NE(kept.find(key), nullptr);
    EXPECT_EQ(*kept.find(key), value + (key == first_met[0].first ? 1000 : 0));
    EXPECT_EQ(*assigned.find(key), value);
    EXPECT_EQ(*moved.find(key), value);
  }
  EXPECT_EQ(moved.find(first_met[0].first), first_met[0].second);  // where it was made
  EXPECT_EQ(assigned.find(1) != nullptr, model.count(1) == 1);     // the copy's keys only
  EXPECT_EQ(assigned.size(), model.size());
}

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

TEST(InlineTable, AnswersAsAMap) {
  InlineTable<int64_t> table;
  std::map<int64_t, int64_t> model;
  std::mt19937_64 rng(9);
  for (int step = 0; step < 50'000; ++step) {
    const auto key = static_cast<int64_t>(rng() % 3000) * (rng() % 2 ? 1 : -4096);
    if (rng() % 2) {
      int64_t& v = table[key];
      ASSERT_EQ(v, model[key]);  // value-initialised when new
      v += 1;
      model[key] += 1;
    } else {
      ASSERT_TRUE(found_as_in(model, table, key));
    }
    ASSERT_EQ(table.size(), model.size());
  }
  std::map<int64_t, int64_t> listed;
  table.each([&](int64_t key, int64_t value) { EXPECT_TRUE(listed.emplace(key, value).second); });
  EXPECT_EQ(listed, model);
}

// As the std::map<double, int> of counts the cfs_rq kept: values in and out as members join and
// leave, the largest but one member's after every change, for every value asked about.
TEST(ValueCounts, AnswersAsAMapOfCounts) {
  const auto largest_but = [](const std::map<double, int>& counts, double except) {
    auto top = counts.rbegin();
    if (top == counts.rend()) return 0.0;
    if (top->first == except && top->second == 1) ++top;
    return top == counts.rend() ? 0.0 : std::max(0.0, top->first);
  };
  ValueCounts counts;
  std::map<double, int> model;
  std::vector<double> members;
  std::mt19937_64 rng(5);
  const double values[] = {-1.5, 0.0, 2e6, 2.5e6, 4e6, 1e8};
  for (int step = 0; step < 20'000; ++step) {
    if (members.empty() || rng() % 2) {
      const double v = values[rng() % 6];
      members.push_back(v);
      counts.add(v, 1);
      ++model[v];
    } else {
      const size_t i = rng() % members.size();
      const double v = members[i];
      members.erase(members.begin() + static_cast<std::ptrdiff_t>(i));
      counts.add(v, -1);
      if (--model[v] == 0) model.erase(v);
    }
    for (const double except : values)
      ASSERT_EQ(counts.largest_but(except), largest_but(model, except));
  }
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
