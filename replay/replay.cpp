#include "replay/replay.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/script.h"
#include "spec/error.h"
#include "trace/observer.h"

namespace vlag::replay {
namespace {

// The model's context switches per CPU, from the runqueues' picks: a pick of another task than
// the CPU's last (none: idle) is a switch.
class SwitchRecorder final : public trace::EventSink {
 public:
  struct Switch {
    int64_t t = 0;
    int64_t task = 0;  // machine task id; 0: idle
  };
  void on_event(const trace::Event& e) override {
    int64_t& last = last_[e.cpu];
    auto& list = switches_[e.cpu];
    // A running task that sleeps leaves the CPU idle unless a pick at the same instant follows
    // (the machine does not pick on an empty queue).
    if ((e.kind == trace::EventKind::Sleep || e.kind == trace::EventKind::Dequeue) && e.task &&
        *e.task == last) {
      list.push_back({e.t, 0});
      last = 0;
      return;
    }
    if (e.kind != trace::EventKind::Pick) return;
    const int64_t next = e.task.value_or(0);
    if (next == last) return;
    if (next != 0 && !list.empty() && list.back().task == 0 && list.back().t == e.t) {
      list.pop_back();  // the idle moment was no moment
      if (!list.empty() && list.back().task == next) {
        last = next;
        return;
      }
    }
    list.push_back({e.t, next});
    last = next;
  }
  const std::map<int, std::vector<Switch>>& switches() const { return switches_; }

  // Each task's time on each CPU up to end_ns, from the picks: by machine task id, then CPU.
  std::map<int64_t, std::vector<int64_t>> time_on_cpus(int cpus, int64_t end_ns) const {
    std::map<int64_t, std::vector<int64_t>> out;
    for (const auto& [cpu, list] : switches_)
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].task == 0) continue;
        auto& v = out[list[i].task];
        v.resize(static_cast<size_t>(cpus));
        const int64_t until = i + 1 < list.size() ? list[i + 1].t : end_ns;
        v[static_cast<size_t>(cpu)] += std::max<int64_t>(0, until - list[i].t);
      }
    return out;
  }

 private:
  std::map<int, int64_t> last_;
  std::map<int, std::vector<Switch>> switches_;
};

sim::MachineConfig machine_for(const Extraction& x, const ReplayOptions& o) {
  sim::MachineConfig mc;
  Preset preset = preset_by_name(o.preset);
  apply_feature_overrides(preset, o.features);
  mc.params = make_params(preset, o.extract.hz, static_cast<int>(x.cpus.size()));
  const int kernel_cpus = o.kernel_cpus > 0   ? o.kernel_cpus
                          : x.kernel_cpus > 0 ? x.kernel_cpus
                                              : mc.params.ncpus;
  set_base_slice_params(mc.params, kernel_cpus, 0);
  int64_t slice = o.base_slice_ns;
  if (slice == 0 && x.base_slice_ns > 0 && x.base_slice_ns != mc.params.base_slice_ns())
    slice = x.base_slice_ns;  // set by hand on that machine (debugfs), or another factor
  set_base_slice_params(mc.params, kernel_cpus, slice);
  mc.placement = sim::Placement::Idle;
  mc.balance = mc.params.ncpus > 1;
  mc.wake_timer_cost_ns = o.wake_timer_cost_ns;
  mc.wake_task_cost_ns = o.wake_task_cost_ns;
  mc.wake_idle_cost_ns = o.wake_idle_cost_ns;
  mc.tick_cost_ns = o.tick_cost_ns;
  return mc;
}

Divergence first_divergence(const Extraction& x, const SwitchRecorder& rec,
                            const std::vector<int64_t>& pid_of_task) {
  Divergence best;
  int64_t agreed = 0;
  for (const auto& [cpu, kernel] : x.switches) {
    static const std::vector<SwitchRecorder::Switch> kNone;
    const auto it = rec.switches().find(cpu);
    const auto& model = it == rec.switches().end() ? kNone : it->second;
    size_t i = 0;
    for (; i < kernel.size(); ++i) {
      const int64_t mpid = i < model.size() ? pid_of_task[static_cast<size_t>(model[i].task)] : -1;
      if (mpid != kernel[i].next_pid) break;
    }
    agreed += static_cast<int64_t>(i);
    if (i == kernel.size()) continue;
    if (best.found && kernel[i].t >= best.kernel_t) continue;
    best.found = true;
    best.cpu = cpu;
    best.index = i;
    best.kernel_t = kernel[i].t;
    best.prev_pid = kernel[i].prev_pid;
    best.kernel_prev_state = kernel[i].prev_state;
    best.kernel_next = kernel[i].next_pid;
    best.model_t = i < model.size() ? model[i].t : -1;
    best.model_next = i < model.size() ? pid_of_task[static_cast<size_t>(model[i].task)] : -1;
    best.kernel_around.clear();
    best.model_around.clear();
    for (size_t j = i >= 2 ? i - 2 : 0; j < i + 3; ++j) {
      if (j < kernel.size()) best.kernel_around.emplace_back(kernel[j].t, kernel[j].next_pid);
      if (j < model.size())
        best.model_around.emplace_back(model[j].t, pid_of_task[static_cast<size_t>(model[j].task)]);
    }
  }
  best.agreed = agreed;
  return best;
}

double pct_of(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

ReplayReport replay_capture(const CaptureFiles& files, const ReplayOptions& o) {
  ReplayReport r;
  r.capture = extract_capture(files, o.extract);
  const Extraction& x = r.capture;
  r.machine = machine_for(x, o);
  if (x.end_ns <= 0) throw Error(files.perf + ": the capture holds no time");

  sim::ScriptWorkload w(x.script);
  sim::Machine m(r.machine);
  SwitchRecorder rec;
  m.report_to(rec);
  m.run(w, x.end_ns + 1);

  std::vector<int64_t> pid_of_task(x.tasks.size() + 1, 0);  // machine id → pid; 0: idle
  int64_t kernel_total = 0, model_total = 0;
  for (size_t i = 0; i < x.tasks.size(); ++i) {
    pid_of_task[static_cast<size_t>(w.task(i).id)] = x.tasks[i].pid;
    if (!x.tasks[i].workload) continue;
    kernel_total += x.tasks[i].kernel.runtime_ns;
    model_total += w.task(i).runtime_ns;
  }
  const int ncpus = static_cast<int>(x.cpus.size());
  const auto model_on_cpus = rec.time_on_cpus(ncpus, x.end_ns);
  for (size_t i = 0; i < x.tasks.size(); ++i) {
    const ExtractedTask& et = x.tasks[i];
    ReplayTask t;
    t.task = et;
    t.kernel.runtime_ns = et.kernel.runtime_ns;
    t.kernel.runtime_on_cpu_ns.resize(static_cast<size_t>(ncpus));
    for (int c = 0; c < ncpus; ++c)
      if (const auto it = et.kernel.runtime_on_cpu_ns.find(x.cpus[static_cast<size_t>(c)]);
          it != et.kernel.runtime_on_cpu_ns.end())
        t.kernel.runtime_on_cpu_ns[static_cast<size_t>(c)] = it->second;
    const auto on = model_on_cpus.find(w.task(i).id);
    t.model.runtime_on_cpu_ns =
        on == model_on_cpus.end() ? std::vector<int64_t>(static_cast<size_t>(ncpus)) : on->second;
    t.kernel.switches = et.kernel.switches;
    t.kernel.wake_to_run = stats::summarize(et.kernel.wake_to_run_ns);
    const sim::Task& mt = w.task(i);
    t.model.runtime_ns = mt.runtime_ns;
    t.model.switches = mt.switches;
    t.model.wake_to_run = stats::summarize(w.result(i).wake_to_run_ns);
    t.model_finished = w.result(i).finished;
    if (et.workload) {
      t.kernel.share = pct_of(t.kernel.runtime_ns, kernel_total);
      t.model.share = pct_of(t.model.runtime_ns, model_total);
      r.kernel_switches += t.kernel.switches;
      r.model_switches += t.model.switches;
    } else {
      r.kernel_other_ns += t.kernel.runtime_ns;
      r.model_other_ns += t.model.runtime_ns;
    }
    r.tasks.push_back(std::move(t));
  }
  r.divergence = first_divergence(x, rec, pid_of_task);
  return r;
}

std::vector<Verdict> judge(const ReplayReport& r, const FidelityGoal& g) {
  std::vector<Verdict> out;
  const auto latency = [&](const std::string& name, const char* metric, int64_t k, int64_t m) {
    const double allowed =
        std::max(g.latency_rel * static_cast<double>(k), static_cast<double>(g.latency_abs_ns));
    out.push_back({name, metric, static_cast<double>(k), static_cast<double>(m), allowed,
                   std::abs(static_cast<double>(m - k)) <= allowed});
  };
  for (const ReplayTask& t : r.tasks) {
    if (!t.task.workload) continue;
    const std::string name = t.task.comm + ":" + std::to_string(t.task.pid);
    out.push_back({name, "share", 100 * t.kernel.share, 100 * t.model.share, g.share_pp,
                   std::abs(100 * (t.model.share - t.kernel.share)) <= g.share_pp});
    if (t.kernel.wake_to_run.count < g.min_samples) continue;
    latency(name, "p50", t.kernel.wake_to_run.p50_ns, t.model.wake_to_run.p50_ns);
    if (g.tails) latency(name, "p99", t.kernel.wake_to_run.p99_ns, t.model.wake_to_run.p99_ns);
  }
  if (g.tails) {
    const double allowed = g.switches_rel * static_cast<double>(r.kernel_switches);
    out.push_back({"workload", "switches", static_cast<double>(r.kernel_switches),
                   static_cast<double>(r.model_switches), allowed,
                   std::abs(static_cast<double>(r.model_switches - r.kernel_switches)) <= allowed});
  }
  return out;
}

}  // namespace vlag::replay
