// One number a simulated run reports (hackbench's total time, a latency percentile, context
// switches), with the direction that counts as better, so that comparisons can say "regression"
// or "improvement" without knowing the metric.
#pragma once

#include <string>
#include <vector>

namespace vlag::sim {

enum class Better : bool { Lower, Higher };

struct Metric {
  std::string name;  // "hackbench.time", "cyclictest.max", "switches"
  std::string unit;  // "s", "us", "count", "req/s"
  double value = 0;
  Better better = Better::Lower;
};

using Metrics = std::vector<Metric>;

}  // namespace vlag::sim
