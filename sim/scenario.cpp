#include "sim/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "sim/composite.h"
#include "sim/hackbench.h"
#include "sim/hogs.h"
#include "sim/rtapp.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

std::unique_ptr<Benchmark> make(const std::string& name, const ScenarioConfig& c,
                                const TaskOptions& options) {
  const int per_cpu = c.tasks > 0 ? c.tasks : c.machine.params.ncpus;
  if (name == "hogs") return std::make_unique<Hogs>(per_cpu, options);
  if (name == "cyclictest") {
    CyclictestConfig cc = c.cyclictest;
    cc.threads = per_cpu;
    cc.options = options;
    return std::make_unique<Cyclictest>(cc);
  }
  if (name == "hackbench") {
    HackbenchConfig hc;
    hc.groups = c.hackbench_groups;
    hc.fds = c.fds;
    hc.loops = c.loops;
    hc.threads = c.hackbench_threads;
    hc.capacity_bytes = c.pipe_bytes;
    hc.options = options;
    return std::make_unique<Hackbench>(hc);
  }
  if (name == "schbench") {
    SchbenchConfig sc = c.schbench;
    sc.options = options;
    return std::make_unique<Schbench>(sc);
  }
  if (c.rtapp_file.empty()) throw Error("workload rtapp needs an rt-app JSON file");
  return std::make_unique<RtApp>(load_rtapp(c.rtapp_file), "rtapp", c.workload_settings);
}

// Settings that reach no task of this run are mistakes, not no-ops: a --group for a workload the
// run does not have, an rt-app file without the rtapp workload.
void require_targets(const ScenarioConfig& c, const std::vector<std::string>& names, int hogs) {
  std::string present;
  for (const std::string& n : names) present += (present.empty() ? "" : ", ") + n;
  if (hogs > 0) present += ", background";
  for (const WorkloadSettings& g : c.workload_settings) {
    const bool found = g.workload == "background"
                           ? hogs > 0
                           : std::find(names.begin(), names.end(), g.workload) != names.end();
    if (!found)
      throw Error("--group " + g.workload + ": no workload '" + g.workload +
                  "' in this run (its workloads: " + present + ")");
  }
  if (!c.rtapp_file.empty() && std::find(names.begin(), names.end(), "rtapp") == names.end())
    throw Error("--rtapp " + c.rtapp_file + " is for the rtapp workload, and --workload is '" +
                c.workload + "' (add rtapp: --workload rtapp)");
}

}  // namespace

std::vector<std::string> split_workloads(const std::string& spec) {
  std::vector<std::string> names;
  size_t pos = 0;
  for (;;) {
    const size_t plus = spec.find('+', pos);
    names.push_back(spec.substr(pos, plus - pos));
    if (plus == std::string::npos) break;
    pos = plus + 1;
  }
  const auto known = workload_names();
  for (const std::string& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end())
      throw Error("unknown workload '" + n + "' in '" + spec +
                  "' (hogs, cyclictest, hackbench, schbench or rtapp, joined by '+')");
  for (size_t i = 0; i < names.size(); ++i)
    if (std::find(names.begin() + static_cast<std::ptrdiff_t>(i) + 1, names.end(), names[i]) !=
        names.end())
      throw Error("workload '" + names[i] + "' given twice in '" + spec + "'");
  return names;
}

std::vector<std::string> workload_names() {
  return {"hogs", "cyclictest", "hackbench", "schbench", "rtapp"};
}

ScenarioResult run_scenario(const ScenarioConfig& c, trace::EventSink* events) {
  const std::vector<std::string> names = split_workloads(c.workload);
  const int ncpus = c.machine.params.ncpus;
  const int hogs =
      c.hogs >= 0 ? c.hogs : (names == std::vector<std::string>{"cyclictest"} ? ncpus : 0);
  require_targets(c, names, hogs);
  Composite w;
  for (const std::string& name : names)
    w.add(name, make(name, c, c.options.for_workload(name, c.workload_settings)));
  if (hogs > 0)
    w.add("background",
          std::make_unique<Hogs>(
              hogs, TaskOptions{}.for_workload("background", c.workload_settings), "bg"));

  // rt-app's global duration ends the whole run, as rt-app kills its threads then.
  int64_t limit = c.limit_ns;
  for (const Composite::Part& p : w.parts())
    if (const auto* rt = dynamic_cast<const RtApp*>(p.bench.get()); rt && rt->duration_ns() > 0)
      limit = std::min(limit, rt->duration_ns());

  Machine m(c.machine);
  if (events) m.report_to(*events);
  ScenarioResult r;
  r.stats = m.run(w, limit);
  for (const Composite::Part& p : w.parts()) {
    if (p.workload == "background") continue;  // load, not a tool with output
    if (!r.report.empty()) r.report += "\n";
    r.report += p.bench->report(r.stats);
    for (Metric& metric : p.bench->metrics(r.stats)) r.metrics.push_back(std::move(metric));
  }
  r.metrics.push_back({"switches", "count", static_cast<double>(r.stats.switches), Better::Lower});
  r.metrics.push_back(
      {"migrations", "count", static_cast<double>(r.stats.migrations), Better::Lower});
  r.metrics.push_back({"cross_cpu_wakeups", "count", static_cast<double>(r.stats.cross_cpu_wakeups),
                       Better::Lower});
  for (const auto& t : m.tasks())
    r.tasks.push_back({t->attrs.name, t->attrs.workload, t->cpu, t->attrs.nice, t->attrs.slice_ns,
                       t->attrs.latency_nice, t->runtime_ns, t->migrations, t->latency.histogram,
                       m.group_path(*t)});
  return r;
}

}  // namespace vlag::sim
