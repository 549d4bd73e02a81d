// Turns the sched tracepoints of one CPU (kernel/perf_script.h) into the trace format of
// spec/TRACE.md, so `vlag check` can judge a real kernel's run: fair tasks only (prio 100..139;
// RT, deadline and idle show as `pick` of nobody), weights from prio, custom slices when a
// snapshot gave them, run time implicit in the timestamps (the events of SPEC.md §6.2).
#pragma once

#include <map>
#include <set>
#include <string>

#include "kernel/events.h"
#include "kernel/sched_debug.h"
#include "trace/event.h"
#include "trace/writer.h"

namespace vlag::kernel {

struct KernelImportOptions {
  int cpu = 0;  // the CPU whose runqueue becomes the trace
  int hz = 250;
  std::map<int64_t, int64_t> slice_of;  // pid → custom slice ns
};

/// The snapshot's custom slices; a pid keeps the slice it already has, so of several snapshots
/// the first to give a pid a slice wins.
void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelImportOptions& options);

class KernelImporter {
 public:
  KernelImporter(trace::Writer& out, const KernelImportOptions& options, const std::string& source);

  void on_event(const KernelEvent& e);
  int64_t written() const { return written_; }

 private:
  enum class Where : uint8_t { Sleeping, Queued, Running };

  void emit(trace::Event ev);
  void ensure_known(int64_t pid, int prio, int64_t t);
  void arrive(int64_t pid, int prio, int64_t t);

  trace::Writer& out_;
  KernelImportOptions options_;
  std::map<int64_t, Where> tasks_;  // fair tasks of this CPU
  std::map<int64_t, int> prio_;
  int64_t last_t_ = 0;
  int64_t written_ = 0;
};

}  // namespace vlag::kernel
