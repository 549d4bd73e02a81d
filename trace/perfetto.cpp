#include "trace/perfetto.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "json/writer.h"
#include "spec/weights.h"

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
  std::string name;  // the trace's `name` (comm); empty: none
};

class Exporter {
 public:
  Exporter(std::ostream& out, const PerfettoMarks& marks) : out_(out), marks_(marks) {}

  // The events stream between "traceEvents":[ and the closing ]}, which end() writes.
  void begin(const Header& h) {
    out_ << json::Object()
                .str("displayTimeUnit", "ns")
                .object(
                    "otherData",
                    json::Object().str("producer", h.producer).str("preset", h.params.preset.name))
                .text_before("traceEvents")
         << '[';
  }

  void event(const Event& e, int64_t line) {
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
    mark(line, e.t, e.cpu);
    if ((e.kind == EventKind::Exit || e.kind == EventKind::Detach) && e.task) tasks_.erase(*e.task);
    last_t_ = e.t;
  }

  PerfettoCounts end() {
    for (auto& [id, c] : cpus_) close(id, c, last_t_);
    // Marks on no event's line (the header's, or beyond the trace): global instants at its end.
    for (const auto& [line, m] : marks_)
      if (!marked_.count(line)) emit_mark(m, last_t_, std::nullopt);
    out_ << "]}\n";
    return counts_;
  }

 private:
  static bool stops_running(EventKind k) {
    return k == EventKind::Sleep || k == EventKind::Dequeue || k == EventKind::Exit ||
           k == EventKind::Migrate || k == EventKind::Detach;
  }

  void emit(const json::Object& event) {
    out_ << (first_ ? "\n" : ",\n") << event.text();
    first_ = false;
  }

  // A metadata event of CPU id's process and track.
  static json::Object metadata(std::string_view name, int id) {
    return json::Object()
        .str("ph", "M")
        .str("name", name)
        .num("pid", pid_of(id))
        .num("tid", pid_of(id));
  }

  // The first event of a CPU names its process and track and keeps CPUs in numeric order.
  Cpu& cpu(int id) {
    const auto [it, added] = cpus_.try_emplace(id);
    if (added) {
      const json::Object name = json::Object().str("name", fmt::format("CPU {}", id));
      emit(metadata("process_name", id).object("args", name));
      emit(metadata("process_sort_index", id)
               .object("args", json::Object().num("sort_index", pid_of(id))));
      emit(metadata("thread_name", id).object("args", name));
    }
    return it->second;
  }

  // The marks of the event at `line`, on its CPU's track.
  void mark(int64_t line, int64_t t, int cpu) {
    const auto [from, to] = marks_.equal_range(line);
    if (from == to) return;
    marked_.insert(line);
    for (auto it = from; it != to; ++it) emit_mark(it->second, t, cpu);
  }

  void emit_mark(const PerfettoMark& m, int64_t t, std::optional<int> cpu) {
    ++counts_.marks;
    json::Object event;
    event.str("ph", "i").str("s", cpu ? "t" : "g").str("name", m.name).str("cat", m.category);
    if (cpu) event.num("pid", pid_of(*cpu)).num("tid", pid_of(*cpu));
    emit(event.raw("ts", micros(t)).object("args", m.args));
  }

  // "hog-a:3", or "task 3" where the trace names no task.
  std::string label(TaskId id) const {
    const auto it = tasks_.find(id);
    return it == tasks_.end() || it->second.name.empty()
               ? fmt::format("task {}", id)
               : fmt::format("{}:{}", it->second.name, id);
  }

  // Weight, slice and name as the trace last gave them: the event's own fields, then its state.
  void learn(const Event& e) {
    if (!e.task) return;
    Task& t = tasks_[*e.task];
    if (e.kind == EventKind::New || e.kind == EventKind::Attach) t = {e.weight, e.slice, e.name};
    if (e.kind == EventKind::Entity && !e.name.empty()) t.name = e.name;  // a window's start
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
    emit(
        json::Object()
            .str("ph", "X")
            .str("name", label(task))
            .str("cat", "run")
            .num("pid", pid_of(id))
            .num("tid", pid_of(id))
            .raw("ts", micros(c.since))
            .raw("dur", micros(t - c.since))
            .object(
                "args",
                json::Object().num("task", task).num("weight", p.weight).num("slice_ns", p.slice)));
  }

  void instant(const Event& e) {
    std::string name(event_name(e.kind));
    json::Object args;
    if (e.task) {
      name += " " + label(*e.task);
      args.num("task", *e.task);
    }
    if (e.kind == EventKind::Preempt)
      args.boolean("preempt", e.preempt);
    else if (e.kind == EventKind::Migrate)
      args.num("to", e.to_cpu);
    else if (e.kind == EventKind::Reweight)
      args.num("weight", e.weight);
    else if (e.kind == EventKind::Slice)
      args.num("slice_ns", e.slice);
    json::Object event = json::Object()
                             .str("ph", "i")
                             .str("s", "t")
                             .str("name", name)
                             .str("cat", "sched")
                             .num("pid", pid_of(e.cpu))
                             .num("tid", pid_of(e.cpu))
                             .raw("ts", micros(e.t));
    if (!args.empty()) event.object("args", args);
    emit(event);
  }

  // V, W and the named task's lag w·vlag/N ns, in doubles: counters are for the eye, the exact
  // numbers stay in the trace. A value beyond double's range is not drawn.
  void sample(const Event& e) {
    if (e.V) counter(e, "V", e.V->get_d());
    if (e.W) counter(e, "W", static_cast<double>(*e.W));
    const int64_t w = e.task ? tasks_[*e.task].weight : 0;
    if (e.state.vlag && w > 0) {
      const Exact lag = *e.state.vlag * static_cast<long>(w) / static_cast<long>(kNice0Weight);
      counter(e, fmt::format("lag {} (ns)", label(*e.task)), lag.get_d());
    }
  }

  void counter(const Event& e, const std::string& name, double value) {
    if (!std::isfinite(value)) return;
    ++counts_.counters;
    emit(json::Object()
             .str("ph", "C")
             .str("name", name)
             .num("pid", pid_of(e.cpu))
             .raw("ts", micros(e.t))
             .object("args", json::Object().real("value", value)));
  }

  std::ostream& out_;
  const PerfettoMarks& marks_;
  std::set<int64_t> marked_;  // the lines whose marks were written at their event
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

PerfettoCounts export_perfetto(Reader& reader, std::ostream& out, const PerfettoMarks& marks) {
  Exporter x(out, marks);
  x.begin(reader.header());
  while (const std::optional<Event> e = reader.next()) x.event(*e, reader.line());
  return x.end();
}

}  // namespace vlag::trace
