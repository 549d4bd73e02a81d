#include "trace/perfetto.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "spec/weights.h"
#include "trace/writer.h"

namespace vlag::trace {
namespace {

// Perfetto's process model reserves pid 0 for the kernel's idle task, so CPU n is process n + 1
// (its one thread, the CPU's track, has the same id).
int pid_of(int cpu) { return cpu + 1; }

struct Cpu {
  std::optional<TaskId> curr;  // the task a pick made current
  int64_t since = 0;           // when it became current
};

struct Task {
  int64_t weight = 0;
  int64_t slice = 0;
};

class Exporter {
 public:
  explicit Exporter(std::ostream& out) : out_(out) {}

  void begin(const Header& h) {
    out_ << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":" << json_string(h.producer)
         << ",\"preset\":" << json_string(h.params.preset.name) << "},\"traceEvents\":[";
  }

  void event(const Event& e) {
    ++counts_.events;
    Cpu& c = cpu(e.cpu);
    learn(e);
    if (e.kind == EventKind::Pick && c.curr != e.task) {
      close(e.cpu, c, e.t);
      c.curr = e.task;
      c.since = e.t;
    } else if (e.kind == EventKind::Entity && e.state.running.value_or(false)) {
      c.curr = e.task;  // a window that starts while the task runs
      c.since = e.t;
    } else if (stops_running(e.kind) && c.curr && c.curr == e.task) {
      close(e.cpu, c, e.t);
    }
    if (e.kind != EventKind::Pick && e.kind != EventKind::Run && e.kind != EventKind::Entity)
      instant(e);
    sample(e);
    if ((e.kind == EventKind::Exit || e.kind == EventKind::Detach) && e.task) tasks_.erase(*e.task);
    last_t_ = e.t;
  }

  PerfettoCounts end() {
    for (auto& [id, c] : cpus_) close(id, c, last_t_);
    out_ << "]}\n";
    return counts_;
  }

 private:
  static bool stops_running(EventKind k) {
    return k == EventKind::Sleep || k == EventKind::Dequeue || k == EventKind::Exit ||
           k == EventKind::Migrate || k == EventKind::Detach;
  }

  void emit(const std::string& json) {
    out_ << (first_ ? "\n" : ",\n") << json;
    first_ = false;
  }

  // The first event of a CPU names its process and track and keeps CPUs in numeric order.
  Cpu& cpu(int id) {
    const auto [it, added] = cpus_.try_emplace(id);
    if (added) {
      const std::string name = json_string(fmt::format("CPU {}", id));
      const int pid = pid_of(id);
      emit(fmt::format(
          R"({{"ph":"M","name":"process_name","pid":{0},"tid":{0},"args":{{"name":{1}}}}})", pid,
          name));
      emit(fmt::format(
          R"({{"ph":"M","name":"process_sort_index","pid":{0},"tid":{0},"args":{{"sort_index":{0}}}}})",
          pid));
      emit(fmt::format(
          R"({{"ph":"M","name":"thread_name","pid":{0},"tid":{0},"args":{{"name":{1}}}}})", pid,
          name));
    }
    return it->second;
  }

  // Weight and slice as the trace last gave them: the event's own fields, then its state.
  void learn(const Event& e) {
    if (!e.task) return;
    Task& t = tasks_[*e.task];
    if (e.kind == EventKind::New || e.kind == EventKind::Attach) t = {e.weight, e.slice};
    if (e.kind == EventKind::Reweight) t.weight = e.weight;
    if (e.kind == EventKind::Slice) t.slice = e.slice;
    if (e.state.weight) t.weight = *e.state.weight;
    if (e.state.slice) t.slice = *e.state.slice;
  }

  // A stretch of no time has no run time to show.
  void close(int id, Cpu& c, int64_t t) {
    if (!c.curr) return;
    const TaskId task = *c.curr;
    c.curr.reset();
    if (t == c.since) return;
    const Task& p = tasks_[task];
    ++counts_.slices;
    emit(fmt::format(
        R"({{"ph":"X","name":"task {}","cat":"run","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"task":{},"weight":{},"slice_ns":{}}}}})",
        task, pid_of(id), pid_of(id), micros(c.since), micros(t - c.since), task, p.weight,
        p.slice));
  }

  void instant(const Event& e) {
    std::string name(event_name(e.kind));
    std::string args;
    if (e.task) {
      name += fmt::format(" {}", *e.task);
      args += fmt::format(",\"task\":{}", *e.task);
    }
    if (e.kind == EventKind::Preempt) args += fmt::format(",\"preempt\":{}", e.preempt);
    if (e.kind == EventKind::Migrate) args += fmt::format(",\"to\":{}", e.to_cpu);
    if (e.kind == EventKind::Reweight) args += fmt::format(",\"weight\":{}", e.weight);
    if (e.kind == EventKind::Slice) args += fmt::format(",\"slice_ns\":{}", e.slice);
    if (!args.empty()) args[0] = '{';
    emit(fmt::format(R"({{"ph":"i","s":"t","name":{},"cat":"sched","pid":{},"tid":{},"ts":{}{}}})",
                     json_string(name), pid_of(e.cpu), pid_of(e.cpu), micros(e.t),
                     args.empty() ? "" : ",\"args\":" + args + "}"));
  }

  // V, W and the named task's lag w·vlag/N ns, in doubles: counters are for the eye, the exact
  // numbers stay in the trace. A value beyond double's range is not drawn.
  void sample(const Event& e) {
    if (e.V) counter(e, "V", e.V->get_d());
    if (e.W) counter(e, "W", static_cast<double>(*e.W));
    const int64_t w = e.task ? tasks_[*e.task].weight : 0;
    if (e.state.vlag && w > 0) {
      const Exact lag = *e.state.vlag * static_cast<long>(w) / static_cast<long>(kNice0Weight);
      counter(e, fmt::format("lag task {} (ns)", *e.task), lag.get_d());
    }
  }

  void counter(const Event& e, const std::string& name, double value) {
    if (!std::isfinite(value)) return;
    ++counts_.counters;
    emit(fmt::format(R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{{"value":{}}}}})",
                     json_string(name), pid_of(e.cpu), micros(e.t), value));
  }

  std::ostream& out_;
  bool first_ = true;
  int64_t last_t_ = 0;
  std::map<int, Cpu> cpus_;
  std::unordered_map<TaskId, Task> tasks_;
  PerfettoCounts counts_;
};

}  // namespace

std::string micros(int64_t ns) {
  const uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", mag / 1000, mag % 1000);
}

PerfettoCounts export_perfetto(Reader& reader, std::ostream& out) {
  Exporter x(out);
  x.begin(reader.header());
  while (const std::optional<Event> e = reader.next()) x.event(*e);
  return x.end();
}

}  // namespace vlag::trace
