// libFuzzer target for the trace reader and the checker behind it: any bytes, read as a trace,
// either check or fail with trace::InputError / vlag::Error — never crash, hang or leak. And the
// reader's readings agree: the same lines with a space after each colon, which only simdjson's
// reading takes (trace/reader.h), read line by line into the same events, and fail on the same
// lines (a line with the keys of one before is read by its program, trace/line_program.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/run.h"
#include "spec/error.h"
#include "trace/input_error.h"
#include "trace/reader.h"
#include "trace/writer.h"

namespace {

// Each line's event as the writer writes it, or "fault" — reading on past a fault, as
// --keep-going does. A header that does not read is one fault.
std::vector<std::string> read_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  try {
    vlag::trace::Reader r(in, "fuzz");
    for (;;) {
      try {
        vlag::trace::Event e;
        if (!r.next(e)) break;
        out.push_back(vlag::trace::event_line(e));
      } catch (const vlag::trace::InputError&) {
        out.push_back("fault");
      }
    }
  } catch (const vlag::Error&) {
    out.push_back("fault");
  }
  return out;
}

// A space after each colon outside a string: the same JSON, never a plain line. Only for text
// without escapes, whose strings end at the next quote.
std::string spaced(const std::string& text) {
  std::string out;
  bool in_string = false;
  for (const char c : text) {
    out += c;
    if (c == '"') in_string = !in_string;
    if (c == '\n') in_string = false;
    if (c == ':' && !in_string) out += ' ';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vlag::checker::CheckOptions options;
  options.keep_going = true;
  options.arbiter = false;
  try {
    vlag::checker::check({vlag::checker::text_source("fuzz", text)}, options);
  } catch (const vlag::Error&) {
  }
  if (text.find('\\') == std::string::npos && read_lines(text) != read_lines(spaced(text))) {
    std::cerr << "the plain and the general readings differ\n";
    std::abort();
  }
  return 0;
}
