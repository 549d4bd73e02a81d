// perf.data, the file `perf record` writes (magic "PERFILE2"), read by streaming it through
// `perf script` with the fields vlag's capture tools print (scripts/capture-kernel,
// kernel/record.cpp) into the text parser (kernel/perf_script.h): the events, their lines and
// their messages are those of the same perf script text (SPEC.md §6.2). A file whose header
// promises more than it holds is refused before perf runs; perf missing or failing is an error
// naming the file and perf's last word.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/events.h"
#include "kernel/perf_script.h"

namespace vlag::kernel {

/// Whether a file starting with `head` is a perf.data (either byte order).
bool is_perf_data(std::string_view head);

/// The perf script command that prints `path` as vlag reads it.
std::vector<std::string> perf_script_command(const std::string& path);

/// Parses the perf.data at `path` (`name` in messages) and passes each event to sink in file
/// order. Throws vlag::Error naming `name` for a truncated file, perf not on PATH, perf failing
/// (with its exit and the last line it wrote to standard error), or what the text parser refuses.
PerfParseStats read_perf_data(const std::string& path, const std::string& name,
                              const std::function<void(KernelEvent&)>& sink,
                              const PerfParseOptions& options = {});

}  // namespace vlag::kernel
