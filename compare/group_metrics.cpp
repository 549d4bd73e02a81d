#include "compare/group_metrics.h"

#include <algorithm>
#include <map>
#include <string>

namespace vlag::compare {

sim::Metrics group_metrics(const std::vector<sim::TaskSummary>& tasks, int64_t end_ns, int ncpus) {
  if (std::all_of(tasks.begin(), tasks.end(),
                  [](const sim::TaskSummary& t) { return t.group == "/"; }))
    return {};
  struct Group {
    int64_t runtime_ns = 0;
    stats::LatencyHistogram latency;
  };
  std::map<std::string, Group> groups;  // by path: the same order in every run of a grid
  for (const sim::TaskSummary& t : tasks) {
    Group& g = groups[t.group];
    g.runtime_ns += t.runtime_ns;
    g.latency.merge(t.latency);
  }
  const double machine_ns = static_cast<double>(end_ns) * ncpus;
  sim::Metrics out;
  for (const auto& [path, g] : groups) {
    const std::string name = "cgroup:" + path;
    out.push_back({name + ".share", "%",
                   machine_ns > 0 ? 100.0 * static_cast<double>(g.runtime_ns) / machine_ns : 0,
                   sim::Better::Higher});
    if (g.latency.count() == 0) continue;
    for (const auto& [suffix, p] : {std::pair{".wakeup_p50", 50.0}, std::pair{".wakeup_p99", 99.0},
                                    std::pair{".wakeup_max", 100.0}})
      out.push_back({name + suffix, "us", static_cast<double>(g.latency.percentile(p)) / 1e3,
                     sim::Better::Lower});
  }
  return out;
}

}  // namespace vlag::compare
