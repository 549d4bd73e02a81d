// perf.data read by vlag itself, no perf needed (SPEC.md §6.2): the file header, the attrs (one
// per recorded event; the ids that tell a sample's event), the tracepoints' formats
// (HEADER_TRACING_DATA, kernel/tracing_data.h) — in perf's pipe format (`perf record -o -`),
// records among the events: PERF_RECORD_HEADER_ATTR and _TRACING_DATA — then the records, each
// PERF_RECORD_SAMPLE's PERF_SAMPLE_RAW decoded by its tracepoint's format
// (kernel/tracepoint_decoder.h). Samples are put in the order perf script prints them: perf sorts
// by time what it holds, and at each PERF_RECORD_FINISHED_ROUND passes on what is no later than
// the latest time it had held at the round before (tools/perf/util/ordered-events.c), so an
// event of one CPU that reaches the file late still lands among the others'. Each sample's `line`
// is the line perf script prints it on; its fields, checks and messages are the text parser's,
// so a report on the perf.data and one on its `perf script` text are the same. Records lost
// (PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES) are refused at their place in that order as
// trace-cmd's lost-events line is (with keep_going, counted as a skipped line).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kernel/events.h"
#include "kernel/perf_script.h"

namespace vlag::kernel {

/// Why the native reader leaves the perf.data whose bytes these are to perf script — records
/// compressed with perf record -z, which vlag does not decode — or nullopt when it reads them.
std::optional<std::string> perf_data_needs_perf_script(std::string_view bytes);

/// Reads the perf.data whose bytes these are (`name` in messages), passing each sched event to
/// sink in perf script's order. Throws vlag::Error naming `name` and what is wrong — a bad magic,
/// the other byte order, a header section, attr, record or sample that runs past its end, a
/// record of a size less than its header, a sample before its attr or tracing data, no tracing
/// data, compressed records —
/// or, without keep_going, "NAME:LINE: …" at the first sample the text parser would refuse on
/// that line, or lost records there.
/// `progress`, if given, is told now and then, as the records are read, that no byte before
/// `needed_from` will be read again and that the reader is at `reading_at`: a mapped file drops
/// the pages behind and brings in those ahead, so its memory stays flat in the file's length.
/// With a `merge_window`, sink sees the events as a TimeMerger of that window (kernel/time_merge.h)
/// fed with them would pass them on (kernel/deferred_merge.h).
PerfParseStats read_perf_data_bytes(
    std::string_view bytes, const std::string& name, const std::function<void(KernelEvent&)>& sink,
    const PerfParseOptions& options = {},
    const std::function<void(uint64_t needed_from, uint64_t reading_at)>& progress = {},
    size_t merge_window = 0);

}  // namespace vlag::kernel
