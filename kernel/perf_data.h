// perf.data, the file `perf record` writes (magic "PERFILE2"), read by vlag itself
// (kernel/perf_data_reader.h): the events, their lines and their messages are those of its
// `perf script` text with the fields vlag's capture tools print (scripts/capture-kernel,
// kernel/record.cpp; SPEC.md §6.2). A file whose header promises more than it holds is refused
// first, saying what it lacks. Only compressed records (perf record -z), which the reader does
// not decode, are streamed through `perf script` into the text parser (kernel/perf_script.h);
// perf missing or failing there is an error naming the file and perf's last word.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/events.h"
#include "kernel/perf_script.h"

namespace vlag::kernel {

/// Whether a file starting with `head` is a perf.data (either byte order).
bool is_perf_data(std::string_view head);

/// The perf script command that prints `path` as vlag reads it (its text is what the reader's
/// events match).
std::vector<std::string> perf_script_command(const std::string& path);

/// Parses the perf.data at `path` (`name` in messages) and passes each event to sink in perf
/// script's order. Throws vlag::Error naming `name` for a truncated or corrupt file, what the
/// reader refuses (kernel/perf_data_reader.h), or, for a file left to perf script, perf not on
/// PATH, perf failing (with its exit and the last line it wrote to standard error), or what the
/// text parser refuses. With a `merge_window`, sink sees the events as a TimeMerger of that window
/// (kernel/time_merge.h) fed with them would pass them on.
PerfParseStats read_perf_data(const std::string& path, const std::string& name,
                              const std::function<void(KernelEvent&)>& sink,
                              const PerfParseOptions& options = {}, size_t merge_window = 0);

}  // namespace vlag::kernel
