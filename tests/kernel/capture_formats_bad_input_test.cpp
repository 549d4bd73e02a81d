// Bad binary captures through the `vlag` binary: a truncated perf.data (cut in its header, its
// events and its section table), a file that only starts like one, a file that is no capture at
// all, perf missing from PATH (which only a pipe-format perf.data needs), a binary form through a
// pipe, a truncated or corrupt trace.dat (one of them crashes libtracecmd, which runs in a child
// for that), a trace.dat where libtracecmd is not built in, trace-cmd's lost-events line, and a
// trace given as a snapshot: each an error that names the file, exit 2, and never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "kernel/capture_reader.h"
#include "kernel/perf_script.h"
#include "kernel/trace_dat.h"
#include "spec/error.h"
#include "tests/kernel/shell_run.h"

namespace vlag::kernel {
namespace {

using testing::quoted;
using testing::read_bytes;
using testing::shell;
using testing::TempDir;

std::string formats(const std::string& f) { return std::string(VLAG_TEST_DATA) + "/formats/" + f; }

// `vlag kernel check FILE` must exit 2 with "vlag: FILE:…" and `words` in that message.
void expect_refused(const std::string& file, const std::string& words,
                    const std::string& prefix = "") {
  TempDir tmp;
  const auto r = shell(prefix + std::string(VLAG_BINARY) + " kernel check " + quoted(file), tmp);
  SCOPED_TRACE(file + ": " + r.err);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("vlag: " + file + ":", 0), 0u);
  EXPECT_NE(r.err.find(words), std::string::npos);
  EXPECT_EQ(r.out, "");
}

TEST(CaptureFormatsBadInput, TruncatedPerfData) {
  TempDir d;
  const std::string data = read_bytes(formats("perf.data"));
  ASSERT_GT(data.size(), 20000u);
  expect_refused(d.file("head.data", data.substr(0, 50)),
                 "truncated perf.data: 50 bytes, less than its 104 bytes header");
  expect_refused(d.file("events.data", data.substr(0, data.size() / 2)),
                 "truncated perf.data: its header puts");
  // The section table after the events, then the sections it points to, cut too.
  expect_refused(d.file("table.data", data.substr(0, data.size() - 20000)), "truncated perf.data");
  expect_refused(d.file("tail.data", data.substr(0, data.size() - 100)),
                 "truncated perf.data: header section");
}

TEST(CaptureFormatsBadInput, NotAPerfData) {
  TempDir d;
  // Its magic, then garbage: the reader's refusal of its header.
  expect_refused(d.file("magic.data", "PERFILE2" + std::string(200, '\x7f')),
                 "its header says it is 9187201950435737471 bytes, not 104");
  // No capture at all: the text parser names the line and the field.
  expect_refused(d.file("elf.bin", read_bytes("/bin/true")), ":1: field ");
  expect_refused(d.file("zeros.bin", std::string(4096, '\0')), ":1: field 'line': NUL byte");
}

// perf.data is read without perf; only compressed records are left to perf script, so only they
// need perf on PATH, and say so when it is not there.
TEST(CaptureFormatsBadInput, PerfMissingFromPath) {
  TempDir d;
  const auto r = shell("PATH=/nonexistent " + std::string(VLAG_BINARY) + " kernel check " +
                           quoted(formats("perf.data")) + " >/dev/null",
                       d);
  EXPECT_EQ(r.status, 0) << r.err;
  // The pipe format's 16-byte header, then a PERF_RECORD_COMPRESSED of 16 bytes.
  std::string bytes = "PERFILE2" + std::string(8 + 16, '\0');
  bytes[8] = 16;
  bytes[16] = 81;
  bytes[16 + 6] = 16;
  const std::string file = d.file("compressed.data", bytes);
  expect_refused(file,
                 "a perf.data with compressed records (perf record -z), which vlag reads through "
                 "perf script, but cannot run perf: not found on PATH (Debian package linux-perf)",
                 "PATH=/nonexistent ");
  // The message is the same in-process.
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  std::string what;
  try {
    read_perf_capture(file, [](const KernelEvent&) {});
  } catch (const Error& e) {
    what = e.what();
  }
  setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(what.find("compressed.data: a perf.data with compressed records (perf record -z), "
                      "which vlag reads through perf script, but cannot run perf"),
            std::string::npos)
      << what;
}

TEST(CaptureFormatsBadInput, BinaryThroughAPipe) {
  TempDir tmp;
  for (const std::string f : {"perf.data", "trace.dat"}) {
    const auto r =
        shell("cat " + quoted(formats(f)) + " | " + VLAG_BINARY + " kernel check -", tmp);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("vlag: <stdin>: a " + f + " through a pipe; give its file name"),
              std::string::npos)
        << r.err;
  }
}

TEST(CaptureFormatsBadInput, CorruptTraceDat) {
  TempDir d;
  const std::string data = read_bytes(formats("trace.dat"));
  if (!trace_dat_supported()) {
    expect_refused(formats("trace.dat"), "trace.dat support not built");
    return;
  }
  ASSERT_GT(data.size(), 20000u);
  expect_refused(d.file("head.dat", data.substr(0, 100)), "libtracecmd cannot open it");
  expect_refused(d.file("half.dat", data.substr(0, 10000)), "libtracecmd cannot open it");
  std::string header = data;
  header.replace(200, 60, std::string(60, '\xff'));
  expect_refused(d.file("header.dat", header), "libtracecmd cannot open it");
  // A CPU's first data page overwritten: libtracecmd 1.3 dies of it (SIGSEGV) in its child.
  std::string page = data;
  page.replace(8200, 40, std::string(40, 'Z'));
  TempDir tmp;
  const auto r =
      shell(std::string(VLAG_BINARY) + " kernel check " + quoted(d.file("page.dat", page)), tmp);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("vlag: " + d.path() + "/page.dat: ", 0), 0u) << r.err;
  // Records garbled inside a page: the line of trace-cmd report where the text parser stops.
  std::string records = data;
  records.replace(9000, 40, std::string(40, 'Z'));
  expect_refused(d.file("records.dat", records), ": field 'event': unknown event");
}

TEST(CaptureFormatsBadInput, DroppedEventsLineOfTraceCmd) {
  const std::string line =
      "hog-10 [001] 5.000000001: sched_switch: prev_comm=hog prev_pid=10 prev_prio=120 "
      "prev_state=R ==> next_comm=hog next_pid=11 next_prio=120\n";
  std::istringstream in("cpus=2\n" + line + "CPU:1 [123 EVENTS DROPPED]\n" + line);
  std::string what;
  try {
    parse_perf_script(in, "r.txt", [](KernelEvent&) {});
  } catch (const Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("r.txt:3: cpu 1: the ring buffer dropped 123 events here"), std::string::npos)
      << what;
  std::istringstream again("cpus=2\n" + line + "CPU:0 [EVENTS DROPPED]\n" + line);
  const auto stats = parse_perf_script(again, "r.txt", [](KernelEvent&) {}, {true});
  EXPECT_EQ(stats.events, 2);
  EXPECT_EQ(stats.skipped, 1);
  EXPECT_NE(
      stats.first_error.find("r.txt:3: cpu 0: the ring buffer dropped an unknown number of events"),
      std::string::npos);
}

TEST(CaptureFormatsBadInput, TraceGivenAsASnapshot) {
  TempDir tmp;
  for (const std::string f : {"perf.data", "trace.dat"}) {
    const auto r = shell(std::string(VLAG_BINARY) + " kernel snapshot " + quoted(formats(f)), tmp);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(formats(f) + ": a " + f + ", not a sched debug snapshot"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
}  // namespace vlag::kernel
