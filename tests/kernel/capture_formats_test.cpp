// The binary forms of a capture against their text forms (tests/data/formats, recorded on the
// development machine by scripts/capture-formats): perf.data read natively and trace.dat
// through libtracecmd give the events of perf.txt and trace.txt field for field, and so
// byte-identical `vlag kernel check`, `import` and `replay` output, text and JSON, --worst too
// (the file's name aside, which each report prints); a binary form redirected to standard input
// reads as its file does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kernel/capture_reader.h"
#include "kernel/trace_dat.h"
#include "tests/kernel/same_events.h"
#include "tests/kernel/shell_run.h"

namespace vlag::kernel {
namespace {

using testing::quoted;
using testing::replace_all;
using testing::shell;
using testing::TempDir;

std::string formats(const std::string& f) { return std::string(VLAG_TEST_DATA) + "/formats/" + f; }

struct Pair {
  std::string binary, text;
  bool readable;  // this machine and build can read the binary form
  std::string why_not;
};

std::vector<Pair> pairs() {
  return {{formats("perf.data"), formats("perf.txt"), true, ""},  // read natively: no perf needed
          {formats("trace.dat"), formats("trace.txt"), trace_dat_supported(),
           "trace.dat support is not built (no libtracecmd)"}};
}

std::vector<KernelEvent> events_of(const std::string& file) {
  std::vector<KernelEvent> out;
  read_perf_capture(file, [&](const KernelEvent& e) { out.push_back(e); });
  return out;
}

void expect_same_events(const std::string& binary, const std::string& text) {
  const auto a = events_of(binary), b = events_of(text);
  EXPECT_GT(a.size(), 1000u) << binary;
  testing::expect_same_events(a, b, text);
}

TEST(CaptureFormats, EachBinaryFormGivesItsTextsEvents) {
  for (const auto& p : pairs()) {
    if (!p.readable) {
      std::cout << "skipped " << p.binary << ": " << p.why_not << "\n";
      continue;
    }
    expect_same_events(p.binary, p.text);
  }
}

// vlag's output on `file` with OPTIONS, the file's name replaced by FILE.
testing::ShellRun vlag(const std::string& args, const std::string& file, const TempDir& tmp) {
  auto r = shell(std::string(VLAG_BINARY) + " " + args, tmp);
  r.out = replace_all(r.out, file, "FILE");
  r.err = replace_all(r.err, file, "FILE");
  return r;
}

TEST(CaptureFormats, ReportsAreByteIdentical) {
  TempDir tmp;
  for (const auto& p : pairs()) {
    if (!p.readable) continue;
    for (const std::string options : {"", "--json", "--worst 5", "--json --worst 5 --cpu 1"}) {
      SCOPED_TRACE(p.binary + " " + options);
      const auto b = vlag("kernel check " + options + " " + quoted(p.binary), p.binary, tmp);
      const auto t = vlag("kernel check " + options + " " + quoted(p.text), p.text, tmp);
      EXPECT_EQ(b.status, t.status);
      EXPECT_LE(b.status, 1) << b.err;
      EXPECT_EQ(b.out, t.out);
      EXPECT_NE(b.out.find("hog:"), std::string::npos);
      EXPECT_NE(b.out.find("periodic:"), std::string::npos);
    }
    for (const std::string options : {"", "--json"}) {
      SCOPED_TRACE(p.binary + " replay " + options);
      const auto b = vlag("kernel replay " + options + " " + quoted(p.binary), p.binary, tmp);
      const auto t = vlag("kernel replay " + options + " " + quoted(p.text), p.text, tmp);
      EXPECT_EQ(b.status, 0) << b.err;
      EXPECT_EQ(b.out, t.out);
      EXPECT_NE(b.out.find("first"), std::string::npos);  // its first difference
    }
    for (const std::string cpu : {"0", "1"}) {
      const auto b = vlag("kernel import --cpu " + cpu + " " + quoted(p.binary), p.binary, tmp);
      const auto t = vlag("kernel import --cpu " + cpu + " " + quoted(p.text), p.text, tmp);
      EXPECT_EQ(b.status, 0) << b.err;
      EXPECT_EQ(b.out, t.out);
      EXPECT_EQ(b.err, t.err);
      EXPECT_GT(b.out.size(), 1000u);
    }
  }
}

TEST(CaptureFormats, BinaryFormRedirectedToStandardInput) {
  TempDir tmp;
  for (const auto& p : pairs()) {
    if (!p.readable) continue;
    const auto b =
        shell(std::string(VLAG_BINARY) + " kernel check --json - < " + quoted(p.binary), tmp);
    const auto t =
        shell(std::string(VLAG_BINARY) + " kernel check --json - < " + quoted(p.text), tmp);
    EXPECT_EQ(b.status, t.status) << b.err;
    EXPECT_EQ(b.out, t.out);
    EXPECT_NE(b.out.find("\"file\":\"<stdin>\""), std::string::npos);
  }
}

}  // namespace
}  // namespace vlag::kernel
