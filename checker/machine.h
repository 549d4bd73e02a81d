// `vlag check` on one run: a trace on its own, or the per-CPU traces of one machine (`vlag sim
// --trace-dir`, spec/TRACE.md §2), checked as a whole. Every trace's runqueues are judged each on
// its own history, as for a trace alone (checker/checker.h), into a report of its own; the events
// that put tasks on runqueues and take them off, of all the traces merged by time, feed the
// rules across runqueues (checker/migrations.h). With `jobs` > 1 the traces are read and checked
// on up to that many threads, and the merge runs beside them over bounded queues: memory stays
// flat, and the report is the same, byte for byte, as with one thread — the traces' reports are
// joined in their order, the rules across runqueues see the same merged order (time, then trace,
// then line), and of several faults the one a single thread meets first is the one reported.
#pragma once

#include <cstdint>
#include <vector>

#include "checker/report.h"
#include "checker/run.h"

namespace vlag::checker {

/// The sources grouped into runs, in the order of each run's first source: every trace on its
/// own, except the traces whose headers name their CPU and agree on everything else, which are
/// one machine's. Reads each header of several (a lone source is not opened: it may be a pipe,
/// read once); throws trace::InputError for a bad one, or when two traces of one machine name
/// the same CPU.
std::vector<std::vector<size_t>> group_runs(const std::vector<Source>& sources);

/// Checks one run into `report` (files, events, stats, violations, problems and notes appended
/// as a sequential check of its traces would, then the rules across runqueues). Throws
/// trace::InputError for the first fault unless keep_going, vlag::Error for an unreadable file.
void check_run(const std::vector<const Source*>& traces, const CheckOptions& options,
               Report& report);

}  // namespace vlag::checker
