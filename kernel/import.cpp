#include "kernel/import.h"

#include <algorithm>

#include "kernel/kernel_release.h"
#include "spec/error.h"
#include "spec/features.h"
#include "spec/weights.h"

namespace vlag::kernel {
namespace {

bool fair_prio(std::optional<int> prio) { return prio && *prio >= 100 && *prio <= 139; }

}  // namespace

void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelImportOptions& options) {
  options.slice_of.merge(custom_slices(snap));
  int n = 0;
  for (const auto& cpu : snap.cpus) n = std::max(n, cpu.id + 1);
  if (!options.machine_cpus || *options.machine_cpus < n) {
    options.machine_cpus = n;
    options.source_of_cpus = "the cpu# sections of " + snap.file;
  }
  if (snap.base_slice_ns && !options.base_slice_ns) options.base_slice_ns = snap.base_slice_ns;
  if (!options.kernel_release)
    if (auto release = release_of_sched_debug_version(snap.version)) {
      options.kernel_release = std::move(release);
      options.kernel_release_source = snap.file;
    }
}

KernelImporter::KernelImporter(const KernelImportOptions& options, std::string source)
    : options_(options), source_(std::move(source)) {}

std::string KernelImporter::finish(std::ostream& out) {
  const int cpus = options_.machine_cpus.value_or(max_cpu_ + 1);
  const std::string cpus_from =
      options_.machine_cpus ? options_.source_of_cpus : "the CPUs the trace names";
  if (options_.cpu >= cpus)
    throw Error("--cpu " + std::to_string(options_.cpu) + " but the capture's machine has " +
                std::to_string(cpus) + " CPUs (" + cpus_from + ")");
  trace::Header h;
  h.producer = "linux sched tracepoints, cpu " + std::to_string(options_.cpu) + " of " + source_ +
               " (a reconstruction: decisions inferred from tracepoints)";
  const KernelPreset preset =
      kernel_preset(options_.kernel_release, options_.kernel_release_source);
  h.params = make_params(preset_by_name(preset.name), options_.hz, cpus);
  h.cpu = options_.cpu;
  const int64_t base = h.params.base_slice_ns();
  if (options_.base_slice_ns && *options_.base_slice_ns != base)
    throw Error("the snapshot's sysctl_sched_base_slice " +
                std::to_string(*options_.base_slice_ns) + " ns is not " + preset.name +
                "'s default for " + std::to_string(cpus) + " CPUs (" + std::to_string(base) +
                " ns): a spec/TRACE.md header cannot state a tuned one");
  std::string line = trace::header_line(h);
  line.insert(line.size() - 1, ",\"kernel_reconstruction\":true");
  out << line << '\n' << events_.str();
  return "preset " + preset.name + " (" + preset.source + "), " + std::to_string(cpus) + " CPUs (" +
         cpus_from + "), base slice " + std::to_string(base) + " ns (" +
         (options_.base_slice_ns ? "the snapshot's sysctl_sched_base_slice"
                                 : preset.name + "'s default for that many CPUs") +
         ")";
}

void KernelImporter::emit(trace::Event ev) {
  ev.t = std::max(ev.t, last_t_);  // records of other CPUs may trail by a few ns
  last_t_ = ev.t;
  writer_.event(ev);
  ++written_;
}

// A fair task seen for the first time on this CPU: `new`, with its weight and slice.
void KernelImporter::ensure_known(int64_t pid, int prio, int64_t t) {
  if (tasks_.count(pid)) {
    if (prio_[pid] != prio) {
      trace::Event ev;
      ev.kind = trace::EventKind::Reweight;
      ev.t = t;
      ev.task = pid;
      ev.weight = nice_to_weight(prio - 120);
      emit(ev);
      prio_[pid] = prio;
    }
    return;
  }
  trace::Event ev;
  ev.kind = trace::EventKind::New;
  ev.t = t;
  ev.task = pid;
  ev.weight = nice_to_weight(prio - 120);
  const auto s = options_.slice_of.find(pid);
  ev.slice = s == options_.slice_of.end() ? 0 : s->second;
  emit(ev);
  tasks_[pid] = Where::Sleeping;
  prio_[pid] = prio;
}

void KernelImporter::arrive(int64_t pid, int prio, int64_t t) {
  ensure_known(pid, prio, t);
  if (tasks_[pid] != Where::Sleeping) return;
  trace::Event ev;
  ev.kind = trace::EventKind::Wakeup;
  ev.t = t;
  ev.task = pid;
  emit(ev);
  tasks_[pid] = Where::Queued;
}

void KernelImporter::on_event(const KernelEvent& e) {
  const int c = options_.cpu;
  max_cpu_ = std::max(
      {max_cpu_, e.cpu, e.target_cpu.value_or(0), e.orig_cpu.value_or(0), e.dest_cpu.value_or(0)});
  switch (e.kind) {
    case KernelEventKind::Wakeup:
    case KernelEventKind::WakeupNew:
      if (fair_prio(e.prio) && e.target_cpu.value_or(e.cpu) == c) arrive(e.pid, *e.prio, e.time_ns);
      break;
    case KernelEventKind::Migrate: {
      const auto it = tasks_.find(e.pid);
      if (e.orig_cpu == c && it != tasks_.end() && it->second == Where::Queued) {
        trace::Event ev;  // leaves this runqueue without sleeping (SPEC.md §4.7)
        ev.kind = trace::EventKind::Dequeue;
        ev.t = e.time_ns;
        ev.task = e.pid;
        emit(ev);
        it->second = Where::Sleeping;
      }
      break;
    }
    case KernelEventKind::Switch: {
      if (e.cpu != c) break;
      if (fair_prio(e.prev_prio) && tasks_.count(e.prev_pid))
        ensure_known(e.prev_pid, *e.prev_prio, e.time_ns);  // a nice change while it ran
      const auto prev = tasks_.find(e.prev_pid);
      if (prev != tasks_.end() && prev->second == Where::Running) {
        prev->second = Where::Queued;
        if (e.prev_leave == PrevState::Blocked || e.prev_leave == PrevState::Dead) {
          trace::Event ev;
          ev.kind = trace::EventKind::Sleep;
          ev.t = e.time_ns;
          ev.task = e.prev_pid;
          emit(ev);
          prev->second = Where::Sleeping;
          if (e.prev_leave == PrevState::Dead) {
            ev.kind = trace::EventKind::Exit;
            emit(ev);
            tasks_.erase(prev);
          }
        }
      }
      trace::Event pick;
      pick.kind = trace::EventKind::Pick;
      pick.t = e.time_ns;
      if (fair_prio(e.prio) && e.pid != 0) {
        arrive(e.pid, *e.prio, e.time_ns);  // a task running at the trace's start has no wakeup
        pick.task = e.pid;
        tasks_[e.pid] = Where::Running;
      }
      emit(pick);
      break;
    }
    case KernelEventKind::Exit:
    case KernelEventKind::Waking:
    case KernelEventKind::Fork:
    case KernelEventKind::StatRuntime:
      break;
  }
}

}  // namespace vlag::kernel
