// Turns the sched tracepoints of one CPU (kernel/perf_script.h) into the trace format of
// spec/TRACE.md, so `vlag check` can judge a real kernel's run: fair tasks only (prio 100..139;
// RT, deadline and idle show as `pick` of nobody), weights from prio, custom slices when a
// snapshot gave them, run time implicit in the timestamps (the events of SPEC.md §6.2). The
// header names the machine's CPU count (so its base slice is the kernel's) and the CPU the
// stream is, and says that the trace is a reconstruction ("kernel_reconstruction":true): its
// decisions are inferred from tracepoints, not recorded state. The header is written last
// known, so the events are held until finish().
#pragma once

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "kernel/events.h"
#include "kernel/sched_debug.h"
#include "trace/event.h"
#include "trace/writer.h"

namespace vlag::kernel {

struct KernelImportOptions {
  int cpu = 0;  // the CPU whose runqueue becomes the trace
  int hz = 250;
  std::map<int64_t, int64_t> slice_of;        // pid → custom slice ns
  std::optional<int> machine_cpus;            // a snapshot's (or trace-cmd's cpus=N) CPU count
  std::optional<int64_t> base_slice_ns;       // a snapshot's sysctl_sched_base_slice
  std::string source_of_cpus;                 // what gave machine_cpus
  std::optional<std::string> kernel_release;  // a snapshot's uname -r: picks the preset
  std::string kernel_release_source;
};

/// The snapshot's custom slices, CPU count and base slice; a pid keeps the slice it already
/// has, so of several snapshots the first to give a pid a slice wins.
void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelImportOptions& options);

class KernelImporter {
 public:
  KernelImporter(const KernelImportOptions& options, std::string source);

  void on_event(const KernelEvent& e);
  /// The machine's CPU count as reading the capture told it, unless a snapshot did.
  void note_machine_cpus(int n, const std::string& source) {
    if (options_.machine_cpus) return;
    options_.machine_cpus = n;
    options_.source_of_cpus = source;
  }
  /// Writes the header and the events to out. Throws vlag::Error when the CPU is not one of
  /// the machine's, or the base slice is not what spec/TRACE.md can state (linux-6.18's
  /// default for the machine's CPU count). Returns how the CPU count and base slice were found.
  std::string finish(std::ostream& out);
  int64_t written() const { return written_; }

 private:
  enum class Where : uint8_t { Sleeping, Queued, Running };

  void emit(trace::Event ev);
  void ensure_known(int64_t pid, int prio, int64_t t);
  void arrive(int64_t pid, int prio, int64_t t);

  KernelImportOptions options_;
  std::string source_;
  std::ostringstream events_;
  trace::Writer writer_{events_};
  std::map<int64_t, Where> tasks_;  // fair tasks of this CPU
  std::map<int64_t, int> prio_;
  int max_cpu_ = 0;
  int64_t last_t_ = 0;
  int64_t written_ = 0;
};

}  // namespace vlag::kernel
