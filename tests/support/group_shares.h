// What the tests of task groups in the simulator expect of CPU shares: a task's share of a run,
// and THM-GROUP-SHARE per CPU with each group entity weighing what the shares rule gives it
// (SPEC.md §10.3, §10.5), for every policy's hierarchy.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/machine.h"
#include "sim/scenario.h"
#include "spec/properties.h"

namespace vlag::testing {

/// The named task's CPU time over the run's length.
inline double share(const sim::ScenarioResult& r, const std::string& name) {
  for (const sim::TaskSummary& t : r.tasks)
    if (t.name == name)
      return static_cast<double>(t.runtime_ns) / static_cast<double>(r.stats.end_ns);
  ADD_FAILURE() << "no task " << name;
  return 0;
}

/// CPU-bound tasks of weight 1024 where they ended: on each CPU a group entity weighs
/// S_G·L(G, c)/ΣL(G, ·) (`shares`: S_G by group path), and a task's share is its group entity's
/// fraction of its CPU over the group's tasks there, within 1 pp.
inline void expect_shares_follow_the_shares_rule(const sim::Machine& m,
                                                 const std::vector<sim::Task*>& tasks,
                                                 const sim::MachineStats& st,
                                                 const std::map<std::string, int64_t>& shares) {
  std::map<std::string, int64_t> load;                  // per group, over the CPUs
  std::map<std::pair<int, std::string>, int64_t> here;  // per CPU and group
  for (const sim::Task* t : tasks) {
    load[m.group_path(*t)] += 1024;
    here[{t->cpu, m.group_path(*t)}] += 1024;
  }
  for (const sim::Task* t : tasks) {
    const auto weight = [&](const std::string& g) {
      const auto it = here.find({t->cpu, g});
      return it == here.end() ? 0.0 : static_cast<double>(shares.at(g) * it->second / load[g]);
    };
    double cpu_weight = 0;
    for (const auto& [g, s] : shares) cpu_weight += weight(g);
    const std::string g = m.group_path(*t);
    const double want = weight(g) / cpu_weight / static_cast<double>(here[{t->cpu, g}] / 1024);
    EXPECT_NEAR(static_cast<double>(t->runtime_ns) / static_cast<double>(st.end_ns), want, 0.01)
        << ids::kThmGroupShare << " " << t->attrs.name << " in " << g << " on CPU " << t->cpu;
  }
}

}  // namespace vlag::testing
