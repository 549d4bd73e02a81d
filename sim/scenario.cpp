#include "sim/scenario.h"

#include <fmt/format.h>

#include <memory>

#include "sim/cyclictest.h"
#include "sim/hackbench.h"
#include "sim/hogs.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

std::string hogs_report(const Machine& m, const MachineStats& st) {
  std::string s =
      fmt::format("{:<8} {:>3} {:>4} {:>10} {:>8}\n", "task", "cpu", "nice", "runtime", "share");
  for (const auto& t : m.tasks())
    s += fmt::format("{:<8} {:>3} {:>4} {:>8.3f} s {:>7.2f}%\n", t->attrs.name, t->cpu,
                     t->attrs.nice, static_cast<double>(t->runtime_ns) / 1e9,
                     100.0 * static_cast<double>(t->runtime_ns) / static_cast<double>(st.end_ns));
  return s;
}

// The measuring threads' latencies, merged: what cyclictest's summary lines are made of.
Metrics cyclictest_metrics(const Cyclictest& w) {
  LatencyHistogram all;
  int64_t max_ns = 0;
  int64_t sum_ns = 0;
  for (const Task* t : w.threads()) {
    all.merge(t->latency.histogram);
    max_ns = std::max(max_ns, t->latency.max_ns);
    sum_ns += t->latency.sum_ns;
  }
  const double n = static_cast<double>(std::max<int64_t>(all.count(), 1));
  return {{"cyclictest.avg", "us", static_cast<double>(sum_ns) / n / 1e3, Better::Lower},
          {"cyclictest.p99", "us", static_cast<double>(all.percentile(99)) / 1e3, Better::Lower},
          {"cyclictest.max", "us", static_cast<double>(max_ns) / 1e3, Better::Lower}};
}

}  // namespace

std::vector<std::string> workload_names() { return {"hogs", "cyclictest", "hackbench"}; }

ScenarioResult run_scenario(const ScenarioConfig& c) {
  const int ncpus = c.machine.params.ncpus;
  const int per_cpu = c.tasks > 0 ? c.tasks : ncpus;
  std::unique_ptr<Workload> w;
  if (c.workload == "hogs") {
    w = std::make_unique<Hogs>(per_cpu, c.options);
  } else if (c.workload == "cyclictest") {
    CyclictestConfig cc;
    cc.threads = per_cpu;
    cc.hogs = c.hogs >= 0 ? c.hogs : ncpus;
    cc.options = c.options;
    w = std::make_unique<Cyclictest>(cc);
  } else if (c.workload == "hackbench") {
    HackbenchConfig hc;
    hc.groups = c.groups;
    hc.fds = c.fds;
    hc.loops = c.loops;
    hc.options = c.options;
    w = std::make_unique<Hackbench>(hc);
  } else {
    throw Error("unknown workload '" + c.workload + "' (hogs, cyclictest or hackbench)");
  }

  Machine m(c.machine);
  ScenarioResult r;
  r.stats = m.run(*w, c.limit_ns);
  if (c.workload == "hogs") r.report = hogs_report(m, r.stats);
  if (auto* cy = dynamic_cast<Cyclictest*>(w.get())) {
    r.report = cyclictest_summary(*cy);
    r.metrics = cyclictest_metrics(*cy);
  }
  if (auto* h = dynamic_cast<Hackbench*>(w.get())) {
    r.report = hackbench_summary(*h, r.stats.end_ns);
    r.metrics.push_back(
        {"hackbench.time", "s", static_cast<double>(r.stats.end_ns) / 1e9, Better::Lower});
  }
  r.metrics.push_back({"switches", "count", static_cast<double>(r.stats.switches), Better::Lower});
  r.metrics.push_back(
      {"migrations", "count", static_cast<double>(r.stats.migrations), Better::Lower});
  for (const auto& t : m.tasks())
    r.tasks.push_back(
        {t->attrs.name, t->cpu, t->attrs.nice, t->runtime_ns, t->migrations, t->latency.histogram});
  return r;
}

}  // namespace vlag::sim
