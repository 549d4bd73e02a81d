// perf.data's HEADER_TRACING_DATA section (tools/perf/util/trace-event-read.c writes its layout:
// the "\x17\x08Dtracing" magic, a version, the byte order, the size of a long, the page size, the
// ring buffer's header formats, the ftrace formats, then per subsystem the format files of its
// events) parsed into a libtraceevent handle: the tracepoints' fields — offsets, sizes, signs —
// and print formats, by event id. Only what the formats need is read; kallsyms, printk formats
// and saved command lines after them are not. libtraceevent crashes on some corrupt formats, so
// it parses them in a child process first (kernel/command_output.h): such a file is an error.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct tep_handle;

namespace vlag::kernel {

class TracingData {
 public:
  /// Parses `section` (the feature section's bytes) of the perf.data `name`. Throws vlag::Error
  /// "NAME: tracing data: …" naming what is wrong: a bad magic, a length that runs past the
  /// section, a byte order or long size other than this machine's, formats that crash
  /// libtraceevent.
  TracingData(std::string_view section, const std::string& name);
  ~TracingData();
  TracingData(const TracingData&) = delete;
  TracingData& operator=(const TracingData&) = delete;

  tep_handle* tep() const { return tep_; }

 private:
  tep_handle* tep_;
};

}  // namespace vlag::kernel
