// The pair windows of kernel/cfs_rq_track.h on one cfs_rq, event by event: a window holds no
// state until both of its entities were picked since it opened (SPEC.md §6.2), and whether each
// was picked follows from the order of opens, picks and stops — one running when the other
// joins counts as picked, one that stopped before the other joined does not until picked again.
// A window never established ends "not applicable (sleeper)"; an established one is judged.
#include <gtest/gtest.h>

#include <string>

#include "kernel/cfs_rq_track.h"
#include "kernel/service.h"
#include "kernel/verdict_book.h"
#include "spec/properties.h"

namespace vlag::kernel {
namespace {

constexpr int64_t kMs = 1'000'000;

struct Level {
  double unknown = 0;
  VerdictBook book;
  LevelContext ctx;
  CfsRqTrack track{"/", &init()};

  LevelContext& init() {
    ctx.cpu = 0;
    ctx.tick_ns = 4 * kMs;
    ctx.book = &book;
    ctx.name = [](int64_t id) { return std::to_string(id); };
    ctx.cpu_unknown_ns = &unknown;
    return ctx;
  }
  static EntityInfo task(int64_t id) {
    return {id, Range::exact(1024), Range::exact(3.0 * kMs), {}, 0};
  }
  void join(int64_t id, int64_t t) { track.join(task(id), t, JoinKind::Woken, true); }
  // `id` runs [t, t + len) and stops, still queued.
  void turn(int64_t id, int64_t t, int64_t len) {
    track.pick(id, t, 0);
    track.run(id, len, false);
    track.stop(id, t + len);
  }
  // Alternating turns of 3 ms, a first, from t: long enough for the pair bound to say something.
  int64_t alternate(int64_t a, int64_t b, int64_t t, int turns) {
    for (int i = 0; i < turns; ++i, t += 3 * kMs) turn(i % 2 == 0 ? a : b, t, 3 * kMs);
    return t;
  }
  Verdict verdict(const char* id, int64_t subject) {
    KernelReport r;
    book.close(r, true, [](int64_t s) { return std::to_string(s); });
    const auto check = r.verdict_of.find(id);
    if (check == r.verdict_of.end()) return Verdict::NotApplicable;
    const auto v = check->second.find(std::to_string(subject));
    EXPECT_NE(v, check->second.end()) << id << " " << subject << " has no verdict";
    return v == check->second.end() ? Verdict::NotApplicable : v->second;
  }
};

TEST(CfsRqWindows, APairNeverBothPickedIsNotApplicable) {
  Level l;
  l.join(1, 0);
  l.join(2, 0);
  l.turn(1, 0, 30 * kMs);  // 2 waits all along
  l.track.leave(1, 30 * kMs, 1);
  for (const int64_t s : {1, 2}) {
    EXPECT_EQ(l.verdict(ids::kThmShare, s), Verdict::NotApplicable) << s;
    EXPECT_EQ(l.verdict(ids::kThmLagBoundLinux, s), Verdict::NotApplicable) << s;
  }
}

TEST(CfsRqWindows, OneRunningWhenTheOtherJoinsCountsAsPicked) {
  Level l;
  l.join(1, 0);
  l.track.pick(1, 0, 0);
  l.join(2, 1 * kMs);  // 1 runs: picked for the window that opens now
  l.track.run(1, 3 * kMs, false);
  l.track.stop(1, 3 * kMs);
  const int64_t end = l.alternate(2, 1, 3 * kMs, 12);  // 2's first pick establishes the pair
  l.track.finish(end, 2);
  for (const int64_t s : {1, 2}) {
    EXPECT_EQ(l.verdict(ids::kThmShare, s), Verdict::Held) << s;
    EXPECT_EQ(l.verdict(ids::kThmLagBoundLinux, s), Verdict::Held) << s;
  }

  // The same with the window made to hold state while 1 runs (2 may have run 1 ns more than
  // the trace shows): it starts with 1 picked, as an implied one does, so the pair is measured
  // from 2's first pick, and 2's run of 20 ms then, while 1 waits, leaves their service apart by
  // more than the bound of SPEC.md §6.2 (a slice plus a tick each: 2 × (3 + 4) ms).
  Level held;
  held.join(1, 0);
  held.track.pick(1, 0, 0);
  held.join(2, 1 * kMs);
  held.track.uncertain(2, 1, Reason::UnrecordedSwitch);
  held.track.run(1, 3 * kMs, false);
  held.track.stop(1, 3 * kMs);
  held.turn(2, 3 * kMs, 20 * kMs);
  held.track.finish(held.alternate(1, 2, 23 * kMs, 12), 2);
  for (const int64_t s : {1, 2}) EXPECT_EQ(held.verdict(ids::kThmShare, s), Verdict::Violated) << s;
}

TEST(CfsRqWindows, OneThatStoppedBeforeTheOtherJoinedIsNotPickedUntilItRunsAgain) {
  Level l;
  l.join(1, 0);
  l.turn(1, 0, 3 * kMs);  // its run ends before 2 arrives
  l.join(2, 4 * kMs);
  l.turn(2, 4 * kMs, 30 * kMs);  // only 2 runs while both are queued
  l.track.leave(2, 34 * kMs, 1);
  for (const int64_t s : {1, 2})
    EXPECT_EQ(l.verdict(ids::kThmShare, s), Verdict::NotApplicable) << s;

  Level again;
  again.join(1, 0);
  again.turn(1, 0, 3 * kMs);
  again.join(2, 4 * kMs);
  const int64_t end = again.alternate(2, 1, 4 * kMs, 12);  // 1 is picked again: established
  again.track.finish(end, 2);
  for (const int64_t s : {1, 2}) EXPECT_EQ(again.verdict(ids::kThmShare, s), Verdict::Held) << s;
}

TEST(CfsRqWindows, AWindowReopenedByAChangeNeedsBothPickedAgain) {
  Level l;
  l.join(1, 0);
  l.join(2, 0);
  int64_t t = l.alternate(1, 2, 0, 12);  // established and judged when 2 is reniced
  EntityInfo heavier = Level::task(2);
  heavier.weight = Range::exact(2048);
  l.track.change(heavier, t, 1, false);  // the new window: neither picked since
  l.turn(1, t, 30 * kMs);
  t += 30 * kMs;
  l.track.leave(1, t, 2);
  // The first window was judged (held); the second was never established, which adds only
  // "not applicable" beside it: held stands.
  for (const int64_t s : {1, 2}) EXPECT_EQ(l.verdict(ids::kThmShare, s), Verdict::Held) << s;

  Level fresh;  // the same second window alone is not applicable
  fresh.join(1, 0);
  fresh.join(2, 0);
  fresh.track.change(heavier, 0, 1, false);
  fresh.turn(1, 0, 30 * kMs);
  fresh.track.leave(1, 30 * kMs, 2);
  for (const int64_t s : {1, 2})
    EXPECT_EQ(fresh.verdict(ids::kThmShare, s), Verdict::NotApplicable) << s;
}

}  // namespace
}  // namespace vlag::kernel
