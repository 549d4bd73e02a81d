// Streaming reader of spec/TRACE.md traces: the header on construction, then one event per
// next() call: a line with the keys of a line read before by its program (trace/line_program.h),
// another plain line (trace/plain_line.h) split in place, any other line parsed with simdjson's
// on-demand API from a reused padded buffer. Memory does not grow with the trace. Every fault
// throws InputError naming file, line and field.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "trace/event.h"
#include "trace/input_error.h"
#include "trace/line_program.h"
#include "trace/plain_line.h"

namespace vlag::trace {

class Reader {
 public:
  /// Reads and validates the header line. `name` is the file name used in messages.
  Reader(std::istream& in, std::string name);

  const Header& header() const { return header_; }
  const std::string& name() const { return name_; }
  /// The line number of the event last returned (or of the fault last thrown).
  int64_t line() const { return line_; }
  /// The text of that line (valid until the next call).
  std::string_view text() const { return text_; }

  /// The next event, in the reader's own storage (valid until the next call), nullptr at the
  /// end. No allocation per line once the numbers have their limbs, and the fields a line
  /// repeats from the line before are not read again. After an InputError the reader stays
  /// usable: the faulty line is consumed and the next call continues with the line after it
  /// (--keep-going).
  const Event* next_event();
  /// The same as a copy, nullopt at the end.
  std::optional<Event> next();
  /// The same into `e`, whose storage it reuses; false at the end.
  bool next(Event& e);

 private:
  bool next_line(std::string_view& line);
  bool read_line();
  [[noreturn]] void fail(Fault f, std::string field, std::string what) const;
  void pad_line();
  void parse_event();
  // The fields of the line into `e`, read by for_each_field(visit), then checked together.
  template <class ForEachField>
  void read_event(Event& e, ForEachField&& for_each_field);
  void check_event(const Event& e, const FieldsSeen& seen);
  void parse_header();

  std::istream& in_;
  std::string name_;
  Header header_;
  int64_t line_ = 0;
  int64_t last_t_ = 0;
  FieldLimits limits_;  // from the header
  static constexpr size_t kReadSize = size_t{1} << 20;
  // The input, read ahead; never into its last LineProgram::kSlack bytes, so that a line in it
  // has them after its end.
  std::string buffer_ = std::string(kReadSize + LineProgram::kSlack, '\0');
  size_t begin_ = 0, end_ = 0;  // its unread part
  bool eof_ = false;
  std::string padded_;     // the line, then simdjson's padding, for simdjson to read
  std::string_view text_;  // the line, in buffer_ or padded_
  PlainLine plain_;        // its fields, when it is a plain line
  LinePrograms programs_;  // the readings of lines with the keys of lines read before
  Event event_;            // the event read last
  simdjson::ondemand::parser parser_;
};

}  // namespace vlag::trace
