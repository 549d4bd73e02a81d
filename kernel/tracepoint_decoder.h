// How the raw bytes of one sched tracepoint's samples (PERF_SAMPLE_RAW) become a KernelEvent's
// fields: the fields are found once in the tracepoint's format (kernel/tracing_data.h) and read
// by offset, with the range checks and messages of the text parser (kernel/perf_script.h), so a
// sample reads as its line of `perf script` text does. prev_state is printed by the format's own
// print fmt (libtraceevent), as perf script prints it, once per distinct value, in a child
// process (a corrupt print format can crash the library): the first time for the values kernels
// write, so a capture takes one child.
#pragma once

#include <traceevent/event-parse.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/events.h"
#include "kernel/flat_table.h"

namespace vlag::kernel {

class TracepointDecoder {
 public:
  /// Which KernelEvent field a format field fills.
  enum class Slot : uint8_t {
    Comm,
    Pid,
    Prio,
    PrevComm,
    PrevPid,
    PrevPrio,
    PrevState,
    TargetCpu,
    OrigCpu,
    DestCpu,
    ChildComm,
    ChildPid,
    Runtime,
  };

  /// `event` is the tracepoint's format in `tep`, or null when the tracing data has none; then,
  /// and for an event the text parser does not know, each sample is refused as that parser
  /// refuses its line, with `name` (perf's "system:event").
  TracepointDecoder(tep_handle* tep, tep_event* event, std::string name);
  ~TracepointDecoder();
  TracepointDecoder(const TracepointDecoder&) = delete;
  TracepointDecoder& operator=(const TracepointDecoder&) = delete;

  /// Sets e's kind and the event's fields from `raw` (`size` bytes); throws vlag::Error
  /// "FILE:LINE: field …" (LINE: e.line) for a field out of range, missing, or outside the data.
  void decode(const uint8_t* raw, uint32_t size, KernelEvent& e, const std::string& file);

 private:
  struct Bound {
    tep_format_field* field;
    const char* key;  // as the print format names it, and the text parser's messages
    Slot slot;
    // The field's place, read from it once: every field of every sample is read by it. `end` is
    // 0 when it is not read in place (a dynamic string, a number in the other byte order, a
    // place outside any sample): then the field's own description is followed.
    uint32_t offset = 0, end = 0;
    int size = 0;
    bool is_signed = false;
  };
  struct StateText {
    std::string text;
    PrevState leave;
  };

  // Inlined into decode(), which calls them for every field: the call cost as much as the read.
  [[gnu::always_inline]] int64_t number(const Bound& b, const uint8_t* raw, uint32_t size,
                                        const std::string& file, int line) const;
  // The field's bits as libtraceevent reads them, or the error: what number() does not read
  // in place.
  [[gnu::noinline]] unsigned long long read_number(const Bound& b, const uint8_t* raw,
                                                   uint32_t size, const std::string& file,
                                                   int line) const;
  [[gnu::always_inline]] std::string_view text(const Bound& b, const uint8_t* raw, uint32_t size,
                                               const std::string& file, int line) const;
  // The string as its field's description places it (or the error): what text() does not read
  // in place.
  [[gnu::noinline]] std::string_view described_text(const Bound& b, const uint8_t* raw,
                                                    uint32_t size, const std::string& file,
                                                    int line) const;
  const StateText& prev_state(int64_t value, const uint8_t* raw, uint32_t size,
                              const std::string& file, int line);

  tep_handle* tep_;
  tep_event* event_;
  std::string name_;
  bool host_order_;  // the data's numbers are in this machine's byte order
  std::optional<KernelEventKind> kind_;
  std::vector<Bound> fields_;  // in the order the print format prints them
  std::string missing_;        // "field 'K': missing" when the format lacks a field the kind needs
  FlatTable<int64_t, StateText> states_;  // each sample's prev_state is found here
  bool guessed_ = false;                  // the usual values printed already
  std::vector<uint8_t> scratch_;          // a sample's data copied for printing, zeros after it
  trace_seq seq_;
};

}  // namespace vlag::kernel
