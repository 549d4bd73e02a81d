#include "kernel/tracing_data.h"

#include <traceevent/event-parse.h>
#include <unistd.h>

#include <bit>
#include <cstdint>

#include "kernel/command_output.h"
#include "kernel/perf_data_layout.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

using perf_layout::Cursor;

constexpr std::string_view kMagic(
    "\x17\x08"  // "D" apart: it would extend the hex escape
    "Dtracing",
    10);

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& name)
      : c_{reinterpret_cast<const uint8_t*>(bytes.data()),
           reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size()},
        name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(name_ + ": tracing data (HEADER_TRACING_DATA): " + what);
  }
  template <typename T>
  T word(const char* what) {
    T v{};
    if (!c_.read(v)) fail(std::string("it ends inside ") + what);
    return v;
  }
  std::string_view bytes(uint64_t n, const char* what) {
    if (n > c_.left())
      fail(std::string(what) + " of " + std::to_string(n) + " bytes runs past its end (" +
           std::to_string(c_.left()) + " left)");
    const std::string_view s(reinterpret_cast<const char*>(c_.at), n);
    c_.skip(n);
    return s;
  }
  std::string_view string(const char* what) {  // NUL-terminated
    const std::string_view rest(reinterpret_cast<const char*>(c_.at), c_.left());
    const size_t nul = rest.find('\0');
    if (nul == std::string_view::npos) fail(std::string(what) + " has no end (no NUL byte)");
    c_.skip(nul + 1);
    return rest.substr(0, nul);
  }
  void expect(std::string_view tag) {
    if (bytes(tag.size(), "a section tag") != tag)
      fail("no '" + std::string(tag.substr(0, tag.size() - 1)) + "' where the layout has it");
  }

 private:
  Cursor c_;
  const std::string& name_;
};

void parse_formats(tep_handle* tep, std::string_view section, const std::string& name) {
  Reader r(section, name);
  if (r.bytes(kMagic.size(), "its magic") != kMagic)
    r.fail("no \\x17\\x08Dtracing magic at its start");
  r.string("its version");
  const bool big = r.word<uint8_t>("its byte order") != 0;
  if (big != (std::endian::native == std::endian::big))
    r.fail("its formats are of the other byte order than this machine's");
  const int long_size = r.word<uint8_t>("its long size");
  if (long_size != 4 && long_size != 8)
    r.fail("a long of " + std::to_string(long_size) + " bytes (4 or 8 expected)");
  const uint32_t page_size = r.word<uint32_t>("its page size");
  tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep, long_size);
  tep_set_page_size(tep, static_cast<int>(page_size));
  // The ring buffer's own formats: perf.data's samples do not come through it.
  r.expect(std::string_view("header_page", 12));
  r.bytes(r.word<uint64_t>("header_page's size"), "header_page");
  r.expect(std::string_view("header_event", 13));
  r.bytes(r.word<uint64_t>("header_event's size"), "header_event");
  const uint32_t ftrace = r.word<uint32_t>("the ftrace format count");
  for (uint32_t i = 0; i < ftrace; ++i) r.bytes(r.word<uint64_t>("a format's size"), "a format");
  const uint32_t systems = r.word<uint32_t>("the subsystem count");
  for (uint32_t s = 0; s < systems; ++s) {
    const std::string system(r.string("a subsystem's name"));
    const uint32_t events = r.word<uint32_t>("a subsystem's event count");
    for (uint32_t e = 0; e < events; ++e) {
      const std::string_view format = r.bytes(r.word<uint64_t>("a format's size"), "a format");
      // As perf does, a format libtraceevent parses only in part (its print format, say) is
      // kept: its fields still read; an event it could not add at all is missing from the
      // handle, which the reader says when a sample of it comes.
      tep_parse_event(tep, format.data(), format.size(), system.c_str());
    }
  }
}

}  // namespace

TracingData::TracingData(std::string_view section, const std::string& name) {
  // A format libtraceevent cannot parse in full is judged where a sample needs it, with the
  // file's name; its own warnings would be noise on vlag's standard error.
  tep_set_loglevel(TEP_LOG_NONE);
  // The formats are the file's, and libtraceevent crashes on some corrupt ones: it parses them
  // in a child first, and only what it survived there is parsed here. The child says what the
  // reader refused, if anything, on its output; any other end of it (a signal, or the exit a
  // sanitizer makes of one) is the library's crash.
  const ChildResult probe = run_in_child([&](int out) {
    tep_handle* tep = tep_alloc();
    try {
      parse_formats(tep, section, name);
    } catch (const Error& e) {
      const std::string_view what = e.what();
      if (write(out, what.data(), what.size()) != static_cast<ssize_t>(what.size())) _exit(1);
    }
    tep_free(tep);
  });
  if (!probe.ok)
    throw Error(name +
                ": tracing data (HEADER_TRACING_DATA): libtraceevent died parsing its "
                "tracepoint formats (" +
                probe.how + "): a corrupt perf.data");
  if (!probe.output.empty()) throw Error(probe.output);
  tep_ = tep_alloc();
  if (!tep_) throw Error(name + ": tracing data: libtraceevent could not allocate its handle");
  try {
    parse_formats(tep_, section, name);
  } catch (...) {
    tep_free(tep_);
    throw;
  }
}

TracingData::~TracingData() { tep_free(tep_); }

}  // namespace vlag::kernel
