// A capture of the kernel's own state (SPEC.md §6.4) as spec/TRACE.md traces, one per runqueue
// the capture shows (a CPU's cfs_rq: its root's or a task group's), so that `vlag check`, `vlag
// trace export --perfetto` and the rest take the kernel's own numbers as they take the model's:
// each a window (`"window":true`) from the first switch whose queue snapshot shows that cfs_rq's
// whole tree — the snapshot's entities and the pick as `entity` lines — then, record by record,
// the picks, sleeps (a delayed one with status "delayed"), wakeups, puts and departures it
// shows, each with the kernel's numbers: w scaled down as the kernel sums it (nice 0: 1024), r,
// v, d and vlag as the kernel's s64 readings, the cfs_rq's v0, sum_w, sum_wv and nr_queued.
// Arrivals and departures no record shows (a remote wakeup on a CPU the capture filters out, a
// pull, a delayed dequeue a pick completed) are written where a record first shows them, marked
// `"unrecorded":true`. The header says `"source":"linux"` (spec/TRACE.md §2): `vlag check`
// then calls a check that fails inconclusive, since between records the kernel did what no
// record shows (an update_curr of a group entity, a gap); the verdicts on these numbers are
// `vlag kernel check --state`'s.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/state/capture_file.h"

namespace vlag::kernel::state {

struct ExportedTrace {
  std::string name;      // a file name: "cpu1-cfs_rq-ffff888627d2bb00.jsonl"
  std::string runqueue;  // "cpu1 cfs_rq 0xffff888627d2bb00"
  std::string text;      // the trace, header first
  uint64_t events = 0;   // lines after the header
};

/// One trace per cfs_rq with a complete queue snapshot, in the order of their first. Throws
/// vlag::Error when the capture carries no kernel parameters (HZ, base slice, features).
std::vector<ExportedTrace> export_state_traces(const StateCapture& capture);

}  // namespace vlag::kernel::state
