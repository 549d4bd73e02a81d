// The deferred time merge (kernel/deferred_merge.h) against the TimeMerger it stands for: on
// records that come in order, out of order, late and tied, for small windows, the sink sees the
// same events in the same order; a record whose event cannot be made ends both with the same
// error, the merge having passed on no event the deferred one did not. And the perf.data reader
// with a merge window against the reader through a TimeMerger, on a real capture, with and
// without skipping bad samples, and giving up the bytes it says it is done with.
#include "kernel/deferred_merge.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernel/perf_data_reader.h"
#include "kernel/time_merge.h"
#include "spec/error.h"
#include "tests/kernel/same_events.h"
#include "tests/kernel/shell_run.h"

namespace vlag::kernel {
namespace {

struct Rec {
  int64_t time;
  int line;
  bool bad = false;  // its event cannot be made
};

KernelEvent event_of(const Rec& r) {
  if (r.bad) throw Error("bad record at line " + std::to_string(r.line));
  KernelEvent e;
  e.time_ns = r.time;
  e.line = r.line;
  return e;
}

struct Make {
  template <class Pass>
  void operator()(const Rec& r, const Pass& pass) const {
    KernelEvent e = event_of(r);
    pass(e);
  }
  void ahead(const Rec&) const {}
};

using Seen = std::vector<std::pair<int64_t, int>>;  // (time, line) as the sink saw them

struct Outcome {
  Seen seen;
  std::optional<std::string> error;
};

Outcome through_merger(const std::vector<Rec>& recs, size_t window) {
  Outcome o;
  TimeMerger merge(window, [&](const KernelEvent& e) { o.seen.emplace_back(e.time_ns, e.line); });
  try {
    for (const Rec& r : recs) merge.push(event_of(r));
    merge.flush();
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

// As the perf.data reader uses it: an error drains what is held before it goes on (the
// records held came before the error), which must then pass on nothing more.
Outcome deferred(const std::vector<Rec>& recs, size_t window, bool defer) {
  Outcome o;
  DeferredMerge<Rec, Make> merge(window, defer, Make{},
                                 [&](KernelEvent& e) { o.seen.emplace_back(e.time_ns, e.line); });
  try {
    try {
      for (const Rec& r : recs) merge.push(r, r.time);
    } catch (...) {
      merge.drain();
      throw;
    }
    merge.flush();
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

// Runs of increasing times from a few streams, interleaved as per-CPU buffers are, with ties and
// now and then a record far behind (late for any window).
std::vector<Rec> shuffled_streams(std::mt19937& rng, int n) {
  std::vector<Rec> recs;
  int64_t clock[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const int s = static_cast<int>(rng() % 3);
    clock[s] += static_cast<int64_t>(rng() % 4);
    const bool late = rng() % 29 == 0;
    recs.push_back({late ? clock[s] / 2 : clock[s], i + 1});
  }
  return recs;
}

// A run in time order (the deferred merge holds records), then a few records from anywhere
// before: within the window, or older than what already went on (late), then order again.
std::vector<Rec> sorted_then_behind(std::mt19937& rng, int n) {
  std::vector<Rec> recs;
  int64_t clock = 0;
  for (int i = 0; i < n; ++i) {
    clock += static_cast<int64_t>(rng() % 3);
    recs.push_back({clock, i + 1});
  }
  const int behind = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < behind; ++i)
    recs.push_back({static_cast<int64_t>(rng() % static_cast<uint64_t>(clock + 1)), n + i + 1});
  for (int i = 0; i < 10; ++i) recs.push_back({clock + i, n + behind + i + 1});
  return recs;
}

TEST(DeferredMerge, PassesOnWhatTheTimeMergerPassesOn) {
  std::mt19937 rng(7);
  for (int round = 0; round < 600; ++round) {
    const int n = static_cast<int>(rng() % 60);
    const auto recs = round % 2 ? shuffled_streams(rng, n) : sorted_then_behind(rng, n);
    for (const size_t window : {1, 2, 3, 5, 8, 64})
      for (const bool defer : {true, false}) {
        const Outcome want = through_merger(recs, window), got = deferred(recs, window, defer);
        EXPECT_FALSE(got.error);
        ASSERT_EQ(got.seen, want.seen) << "round " << round << ", window " << window;
      }
  }
}

TEST(DeferredMerge, InOrderRecordsGoOnAsTheyCame) {
  std::vector<Rec> recs;
  for (int i = 0; i < 100; ++i) recs.push_back({i / 3, i + 1});  // ties keep their order
  const Outcome got = deferred(recs, 8, true);
  ASSERT_EQ(got.seen.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) EXPECT_EQ(got.seen[i].second, recs[i].line);
}

// An event that cannot be made ends the reading with its error, as it ends the merger's feed:
// the events due before it went on, those after it did not.
TEST(DeferredMerge, AnEventThatCannotBeMadeEndsItWithTheSameError) {
  std::mt19937 rng(11);
  for (int round = 0; round < 600; ++round) {
    const int n = 1 + static_cast<int>(rng() % 60);
    auto recs = round % 2 ? shuffled_streams(rng, n) : sorted_then_behind(rng, n);
    recs[rng() % recs.size()].bad = true;
    if (rng() % 2) recs[rng() % recs.size()].bad = true;
    for (const size_t window : {1, 2, 3, 8}) {
      const Outcome want = through_merger(recs, window), got = deferred(recs, window, true);
      ASSERT_TRUE(want.error);
      EXPECT_EQ(got.error, want.error) << "round " << round << ", window " << window;
      // The merger holds the last window's events when the feed ends; the deferred merge may
      // have passed them on already: what the merger passed on comes first either way.
      ASSERT_LE(want.seen.size(), got.seen.size());
      EXPECT_EQ(
          Seen(got.seen.begin(), got.seen.begin() + static_cast<std::ptrdiff_t>(want.seen.size())),
          want.seen);
    }
  }
}

// The reader with a merge window, against the reader through a TimeMerger, on a real capture.
std::string formats(const std::string& f) { return std::string(VLAG_TEST_DATA) + "/formats/" + f; }

std::vector<KernelEvent> through_time_merger(const std::string& bytes, size_t window,
                                             bool keep_going) {
  std::vector<KernelEvent> out;
  TimeMerger merge(window, [&](const KernelEvent& e) { out.push_back(e); });
  read_perf_data_bytes(bytes, "perf.data", [&](KernelEvent& e) { merge.push(std::move(e)); },
                       {keep_going});
  merge.flush();
  return out;
}

TEST(DeferredMerge, PerfDataReaderMergesAsTheTimeMergerDoes) {
  const std::string bytes = testing::read_bytes(formats("perf.data"));
  for (const size_t window : {1, 3, 4096})
    for (const bool keep_going : {false, true}) {
      std::vector<KernelEvent> got;
      read_perf_data_bytes(
          bytes, "perf.data", [&](KernelEvent& e) { got.push_back(e); }, {keep_going}, {}, window);
      ASSERT_FALSE(got.empty());
      testing::expect_same_events(got, through_time_merger(bytes, window, keep_going), "merged");
    }
}

// The records it holds undecoded are bytes it still needs: with everything before what it says
// it needs overwritten as it says so, it reads the same events.
TEST(DeferredMerge, PerfDataReaderReadsNoHeldByteAgainThatItGaveUp) {
  const std::string bytes = testing::read_bytes(formats("perf.data"));
  std::string scribbled = bytes;
  uint64_t done = 0;
  std::vector<KernelEvent> got;
  read_perf_data_bytes(
      scribbled, "perf.data", [&](KernelEvent& e) { got.push_back(e); }, {},
      [&](uint64_t needed_from, uint64_t) {
        std::memset(scribbled.data() + done, 0xa5, needed_from - done);
        done = needed_from;
      },
      4096);
  EXPECT_GT(done, 0u);
  testing::expect_same_events(got, through_time_merger(bytes, 4096, false), "scribbled");
}

}  // namespace
}  // namespace vlag::kernel
