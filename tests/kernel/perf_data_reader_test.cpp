// The native perf.data reader (kernel/perf_data_reader.h) against the text parser on the same
// capture (tests/data/formats: perf.data and its `perf script` text, perf.txt): event for event,
// line numbers and prev_state as printed too, with perf nowhere on PATH; lost records refused at
// their place; the pipe format; and bad input — a bad magic, the other byte order, a record size
// less than its header or past the events, a sample cut inside its fields, no tracing data, a
// format that crashes libtraceevent — refused naming the file and what is wrong, in-process and
// as `vlag kernel check` (exit 2).
#include "kernel/perf_data_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "kernel/capture_reader.h"
#include "kernel/perf_script.h"
#include "spec/error.h"
#include "tests/kernel/same_events.h"
#include "tests/kernel/shell_run.h"

namespace vlag::kernel {
namespace {

using testing::quoted;
using testing::read_bytes;
using testing::shell;
using testing::TempDir;

std::string formats(const std::string& f) { return std::string(VLAG_TEST_DATA) + "/formats/" + f; }

std::vector<KernelEvent> native_events(const std::string& bytes, PerfParseStats* stats = nullptr,
                                       bool keep_going = false) {
  std::vector<KernelEvent> out;
  const auto s = read_perf_data_bytes(bytes, "perf.data", [&](KernelEvent& e) { out.push_back(e); },
                                      {keep_going});
  if (stats) *stats = s;
  return out;
}

std::vector<KernelEvent> text_events(const std::string& path) {
  std::vector<KernelEvent> out;
  std::ifstream in(path);
  parse_perf_script(in, path, [&](KernelEvent& e) { out.push_back(e); });
  return out;
}

void expect_same(const std::vector<KernelEvent>& native, const std::vector<KernelEvent>& text) {
  testing::expect_same_events(native, text, "perf.txt");
}

// The fixture's records: where each starts, its type and size.
struct Record {
  size_t at;
  uint32_t type;
  uint16_t size;
};

template <typename T>
T get(const std::string& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}
template <typename T>
void put(std::string& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

std::vector<Record> records(const std::string& b) {
  std::vector<Record> out;
  const auto begin = get<uint64_t>(b, 40), end = begin + get<uint64_t>(b, 48);
  for (size_t at = begin; at < end; at += get<uint16_t>(b, at + 6))
    out.push_back({at, get<uint32_t>(b, at), get<uint16_t>(b, at + 6)});
  return out;
}

TEST(PerfDataReader, GivesTheEventsOfItsPerfScriptText) {
  const std::string bytes = read_bytes(formats("perf.data"));
  const auto native = native_events(bytes);
  const auto text = text_events(formats("perf.txt"));
  EXPECT_GT(native.size(), 1000u);
  expect_same(native, text);
  // Every way prev_state is printed in it came through as printed ("R+": preempted).
  bool preempted = false;
  for (const auto& e : native) preempted = preempted || e.prev_state == "R+";
  EXPECT_TRUE(preempted);
}

TEST(PerfDataReader, NeedsNoPerfOnPath) {
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  std::vector<KernelEvent> got;
  std::string what;
  try {
    read_perf_capture(formats("perf.data"), [&](const KernelEvent& e) { got.push_back(e); });
  } catch (const Error& e) {
    what = e.what();
  }
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(what, "");
  expect_same(got, text_events(formats("perf.txt")));
}

// Without its rounds every sample is held to the end and sorted by time, ties in file order:
// the text's order still (perf wrote no event of one CPU later than a round it belongs before).
TEST(PerfDataReader, SortsByTimeAcrossCpus) {
  std::string bytes = read_bytes(formats("perf.data"));
  int rounds = 0;
  for (const Record& r : records(bytes))
    if (r.type == 68) {
      put<uint32_t>(bytes, r.at, 4);  // PERF_RECORD_EXIT: a record perf script prints nothing for
      ++rounds;
    }
  EXPECT_GT(rounds, 0);
  expect_same(native_events(bytes), text_events(formats("perf.txt")));
}

// What the reader says it is done with (a mapped file drops those pages) it never reads again:
// with every byte before that overwritten as it says so, the events are still the text's.
TEST(PerfDataReader, ReadsNoByteAgainThatItSaidItWasDoneWith) {
  std::string bytes = read_bytes(formats("perf.data"));
  const uint64_t data_at = get<uint64_t>(bytes, 40), data_end = data_at + get<uint64_t>(bytes, 48);
  uint64_t done = 0;
  int told = 0;
  std::vector<KernelEvent> got;
  read_perf_data_bytes(
      bytes, "perf.data", [&](KernelEvent& e) { got.push_back(e); }, {},
      [&](uint64_t needed_from, uint64_t reading_at) {
        ++told;
        EXPECT_GE(needed_from, done);  // what was given up stays given up
        EXPECT_LE(needed_from, reading_at);
        EXPECT_LE(reading_at, data_end);
        std::memset(bytes.data() + done, 0xa5, needed_from - done);
        done = needed_from;
      });
  EXPECT_GT(told, 1);
  EXPECT_GT(done, data_at + (data_end - data_at) / 4) << "the rounds let little go";
  expect_same(got, text_events(formats("perf.txt")));
}

// A sample rewritten as a PERF_RECORD_LOST at its time and CPU: refused where it stood, with
// keep_going skipped like trace-cmd's lost-events line.
TEST(PerfDataReader, LostRecordsAreRefusedWhereTheyStand) {
  std::string bytes = read_bytes(formats("perf.data"));
  const auto text = text_events(formats("perf.txt"));
  // The samples' layout: IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER, the identifier first.
  std::vector<Record> samples;
  for (const Record& r : records(bytes))
    if (r.type == 9) samples.push_back(r);
  ASSERT_GT(samples.size(), 500u);
  const Record s = samples[500];
  const uint64_t id = get<uint64_t>(bytes, s.at + 8);
  const uint32_t tid = get<uint32_t>(bytes, s.at + 24 + 4);
  const uint64_t time = get<uint64_t>(bytes, s.at + 32);
  const uint32_t cpu = get<uint32_t>(bytes, s.at + 40);
  const int line = [&] {  // the sample's line in the text
    for (const auto& e : text)
      if (e.time_ns == static_cast<int64_t>(time) && e.cpu == static_cast<int>(cpu)) return e.line;
    return 0;
  }();
  ASSERT_GT(line, 0);
  put<uint32_t>(bytes, s.at, 2);  // PERF_RECORD_LOST: id, lost, then the sample id trailer
  put<uint64_t>(bytes, s.at + 8, id);
  put<uint64_t>(bytes, s.at + 16, 7);
  const size_t trailer = s.at + s.size - 32;  // tid, time, cpu, identifier
  put<uint64_t>(bytes, trailer, tid);
  put<uint64_t>(bytes, trailer + 8, time);
  put<uint64_t>(bytes, trailer + 16, cpu);
  put<uint64_t>(bytes, trailer + 24, id);
  std::string what;
  try {
    native_events(bytes);
  } catch (const Error& e) {
    what = e.what();
  }
  EXPECT_EQ(what, "perf.data:" + std::to_string(line) + ": cpu " + std::to_string(cpu) +
                      ": perf lost 7 events before this line (PERF_RECORD_LOST; record with "
                      "larger buffers: perf record -m)");
  PerfParseStats stats;
  const auto kept = native_events(bytes, &stats, true);
  EXPECT_EQ(kept.size(), text.size() - 1);
  EXPECT_EQ(stats.skipped, 1);
  EXPECT_EQ(stats.first_error, what);
}

std::string refusal(const std::string& bytes) {
  try {
    native_events(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_refusal(const std::string& bytes, const std::string& words) {
  const std::string what = refusal(bytes);
  EXPECT_EQ(what.rfind("perf.data: ", 0), 0u) << what;
  EXPECT_NE(what.find(words), std::string::npos) << what;
}

// The same capture in perf's pipe format (`perf record -o -`): the attrs and the tracing data are
// records before the events, the tracing data's bytes after its record.
std::string pipe_form(const std::string& file) {
  std::string out = "PERFILE2" + std::string(8, '\0');
  put<uint64_t>(out, 8, 16);
  const auto record = [&](uint32_t type, const std::string& body) {
    std::string r(8, '\0');
    put<uint32_t>(r, 0, type);
    put<uint16_t>(r, 6, static_cast<uint16_t>(8 + body.size()));
    out += r + body;
  };
  const auto attr_size = get<uint64_t>(file, 16), attrs = get<uint64_t>(file, 24);
  for (uint64_t at = attrs; at < attrs + get<uint64_t>(file, 32); at += attr_size) {
    const auto ids = get<uint64_t>(file, at + attr_size - 16);
    record(64, file.substr(at, attr_size - 16) +
                   file.substr(ids, get<uint64_t>(file, at + attr_size - 8)));
  }
  const auto data = get<uint64_t>(file, 40), data_size = get<uint64_t>(file, 48);
  const auto tracing = get<uint64_t>(file, data + data_size);  // the first feature section
  const auto tracing_size = get<uint64_t>(file, data + data_size + 8);
  std::string size(8, '\0');
  put<uint32_t>(size, 0, static_cast<uint32_t>(tracing_size));
  record(66, size);
  out += file.substr(tracing, tracing_size) + std::string((8 - tracing_size % 8) % 8, '\0');
  return out + file.substr(data, data_size);
}

TEST(PerfDataReader, ReadsThePipeFormat) {
  const std::string pipe = pipe_form(read_bytes(formats("perf.data")));
  EXPECT_EQ(perf_data_needs_perf_script(pipe), std::nullopt);
  expect_same(native_events(pipe), text_events(formats("perf.txt")));
}

// Compressed records (perf record -z) are left to perf script: a file's header says so, and in
// the pipe format the first such record before any sample.
TEST(PerfDataReader, LeavesCompressedRecordsToPerfScript) {
  const std::string good = read_bytes(formats("perf.data"));
  EXPECT_EQ(perf_data_needs_perf_script(good), std::nullopt);
  std::string b = good;
  put<uint64_t>(b, 72, get<uint64_t>(b, 72) | uint64_t{1} << 27);
  EXPECT_EQ(perf_data_needs_perf_script(b), "compressed records (perf record -z)");
  std::string pipe = pipe_form(good);
  const size_t first = pipe.size() - get<uint64_t>(good, 48);  // the first event record
  put<uint32_t>(pipe, first, 81);
  EXPECT_EQ(perf_data_needs_perf_script(pipe), "compressed records (perf record -z)");
  expect_refusal(pipe, "compressed events (perf record -z), which vlag reads only through perf");
}

TEST(PerfDataReader, RefusesBadHeaders) {
  const std::string good = read_bytes(formats("perf.data"));
  std::string b = good;
  b[7] = '3';
  expect_refusal(b, "not a perf.data: its magic is not PERFILE2");
  b = good;
  b.replace(0, 8, "2ELIFREP");
  expect_refusal(b, "the other byte order than this machine's");
  b = good;
  put<uint64_t>(b, 8, 72);
  expect_refusal(b, "its header says it is 72 bytes, not 104");
  expect_refusal(good.substr(0, 60), "truncated perf.data: 60 bytes, less than its 104 bytes");
  expect_refusal(good.substr(0, good.size() / 2), "truncated perf.data: its events section");
  b = good;
  put<uint64_t>(b, 72, get<uint64_t>(b, 72) & ~uint64_t{2});  // no HEADER_TRACING_DATA bit
  expect_refusal(b, "it holds no tracing data (HEADER_TRACING_DATA)");
}

// A NUL byte 810 bytes into the fixture's tracing data, inside a format, crashes libtraceevent
// 1.7.1 as it parses it: the reader runs the library in a child first, so the file is refused
// naming it, and whatever a later library makes of the byte, nothing crashes here.
TEST(PerfDataReader, AFormatThatCrashesLibtraceeventIsNoCrash) {
  std::string b = read_bytes(formats("perf.data"));
  const auto end = get<uint64_t>(b, 40) + get<uint64_t>(b, 48);
  b[get<uint64_t>(b, end) + 810] = '\0';
  const std::string what = refusal(b);
  EXPECT_TRUE(what.empty() || what.rfind("perf.data: ", 0) == 0) << what;
}

TEST(PerfDataReader, RefusesCorruptRecords) {
  const std::string good = read_bytes(formats("perf.data"));
  const auto recs = records(good);
  ASSERT_GT(recs.size(), 10u);
  const Record r = recs[5];
  std::string b = good;
  put<uint16_t>(b, r.at + 6, 4);
  expect_refusal(b, "record at byte " + std::to_string(r.at) + ": type " + std::to_string(r.type) +
                        ", size 4, less than its 8-byte header");
  b = good;
  const Record last = recs.back();
  put<uint16_t>(b, last.at + 6, 0xfff8);
  expect_refusal(b, "record at byte " + std::to_string(last.at) + ": type " +
                        std::to_string(last.type) + ", its 65528 bytes run past the end");
  // A sample whose RAW size says more than the record holds.
  for (const Record& s : recs) {
    if (s.type != 9) continue;
    b = good;
    put<uint32_t>(b, s.at + 8 + 48, 60000);  // after identifier, ip, tid, time, cpu, period
    expect_refusal(
        b, "record at byte " + std::to_string(s.at) + ": a sample whose fields run past its end");
    break;
  }
}

TEST(PerfDataReader, BadFilesExitTwoNamingTheFile) {
  TempDir d;
  const std::string good = read_bytes(formats("perf.data"));
  std::string b = good;
  put<uint16_t>(b, records(good)[3].at + 6, 2);
  for (const auto& [file, bytes, words] :
       {std::tuple{std::string("size.data"), b, std::string("less than its 8-byte header")},
        {"swapped.data", "2ELIFREP" + good.substr(8), "the other byte order"}}) {
    const std::string path = d.file(file, bytes);
    const auto r = shell(std::string(VLAG_BINARY) + " kernel check " + quoted(path), d);
    SCOPED_TRACE(r.err);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("vlag: " + path + ": ", 0), 0u);
    EXPECT_NE(r.err.find(words), std::string::npos);
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace vlag::kernel
