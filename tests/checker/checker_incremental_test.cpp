// The checker's O(1) forms against their definitions: the view's sums (checker/view.h) against a
// walk over its entities after every edit, and a corrupted sum stopped by its audit; the fluid
// clock (checker/fluid_clock.h) exact against rationals, and within its bound in fixed point;
// INV-DEADLINE's integer range (checker/deadline_range.h) against rules::deadline_holds; and the
// reader that reuses one Event (trace/reader.h) against the one that makes a new one per line.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "checker/checker_bug.h"
#include "checker/deadline_range.h"
#include "checker/fluid_clock.h"
#include "checker/view.h"
#include "rules/invariants.h"
#include "spec/weights.h"
#include "tests/support/trace_helpers.h"
#include "trace/reader.h"
#include "trace/writer.h"

namespace vlag::checker {

struct ViewTestAccess {
  static void corrupt_W(View& v) { v.W_ += 1; }
  static void corrupt_v64(View& v, EntityId id) { v.find_mutable(id)->v64 = 12345; }
};

namespace {

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

// A vruntime of either kind: an s64 (a Linux-arithmetic trace's), or a fraction (an exact one's).
rc::Gen<Exact> gen_vruntime() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange<int64_t>(-(int64_t{1} << 40), int64_t{1} << 40),
                   [](int64_t x) { return ex(x); }),
      rc::gen::map(rc::gen::pair(rc::gen::inRange<int64_t>(-1'000'000, 1'000'000),
                                 rc::gen::inRange<int64_t>(1, 3121)),
                   [](std::pair<int64_t, int64_t> q) {
                     Exact x(static_cast<long>(q.first), static_cast<long>(q.second));
                     x.canonicalize();
                     return x;
                   }));
}

RC_GTEST_PROP(ViewSumsProperties, FollowEveryEdit, ()) {
  View view;
  const int steps = *rc::gen::inRange(1, 80);
  for (int i = 0; i < steps; ++i) {
    const EntityId id = *rc::gen::inRange<EntityId>(1, 8);
    const int what = *rc::gen::inRange(0, 3);
    if (what == 0 || !view.find(id)) {
      ViewEntity e;
      e.id = id;
      e.weight = *rc::gen::inRange<int64_t>(kMinWeight, kMaxWeight);
      e.slice = *rc::gen::inRange<int64_t>(100'000, 5'000'000);
      e.vruntime = *gen_vruntime();
      e.deadline = *gen_vruntime();
      e.status = *rc::gen::element(Status::Sleeping, Status::Queued, Status::Delayed);
      view.insert(e);
    } else if (what == 1) {
      View::Edit e = view.edit(id);
      e->vruntime = *gen_vruntime();
      e->deadline = *gen_vruntime();
      e->weight = *rc::gen::inRange<int64_t>(kMinWeight, kMaxWeight);
      e->slice = *rc::gen::inRange<int64_t>(100'000, 5'000'000);
      e->status = *rc::gen::element(Status::Sleeping, Status::Queued, Status::Delayed);
    } else {
      view.erase(id);
    }
    int64_t W = 0, longest = 0;
    Exact wv = 0;
    bool integers = true, small = true;
    for (const auto& [k, e] : view.entities()) {
      longest = std::max(longest, e.slice);
      if (!in_queue(e)) continue;
      W += e.weight;
      wv += e.vruntime * static_cast<long>(e.weight);
      integers = integers && e.vruntime.get_den() == 1;
      small = small && as_s64(e.vruntime).has_value();
    }
    RC_ASSERT(view.W() == W);
    RC_ASSERT(view.weighted_vruntimes() == wv);
    RC_ASSERT(view.integer_vruntimes() == integers);
    RC_ASSERT(view.small_weighted_vruntimes().has_value() == small);
    if (small) RC_ASSERT(exact_of(*view.small_weighted_vruntimes()) == wv);
    RC_ASSERT(view.max_slice() == longest);
    if (W != 0) RC_ASSERT(view.V() == Exact(wv / ex(W)));
    // The s64 readings follow the numbers, and the state's integer comparisons the exact ones.
    const Exact V = *gen_vruntime();
    const Params params = make_params(preset_by_name("linux-6.18"));
    const ViewState state(view, params, V);
    for (const auto& [k, e] : view.entities()) {
      RC_ASSERT(e.v64 == as_s64(e.vruntime));
      RC_ASSERT(e.d64 == as_s64(e.deadline));
      RC_ASSERT(state.eligible(e) == (e.vruntime <= V));
      for (const auto& [k2, other] : view.entities())
        RC_ASSERT(state.earlier_deadline(e, other) == (e.deadline < other.deadline));
    }
    view.audit();
  }
}

TEST(ViewAudit, AStaleReadingIsACheckerBug) {
  View view;
  ViewEntity e;
  e.id = 1;
  e.weight = 1024;
  e.vruntime = 7;
  view.insert(e);
  view.audit();
  ViewTestAccess::corrupt_v64(view, 1);
  try {
    view.audit();
    FAIL() << "the audit passed";
  } catch (const CheckerBug& bug) {
    EXPECT_NE(std::string(bug.what()).find("s64 readings of entity 1 are stale"), std::string::npos)
        << bug.what();
  }
}

TEST(ViewAudit, ACorruptedSumIsACheckerBug) {
  View view;
  ViewEntity e;
  e.id = 1;
  e.weight = 1024;
  e.slice = 700'000;
  e.status = Status::Queued;
  view.insert(e);
  view.audit();
  ViewTestAccess::corrupt_W(view);
  try {
    view.audit();
    FAIL() << "the audit passed";
  } catch (const CheckerBug& bug) {
    EXPECT_NE(std::string(bug.what()).find("the view's W is 1025 where its 1 entities give 1024"),
              std::string::npos)
        << bug.what();
  }
}

TEST(View, ExactOfA128BitSum) {
  const __int128 big =
      static_cast<__int128>(int64_t{1} << 62) * (int64_t{1} << 40) + 12345;  // 2^102 + 12345
  EXPECT_EQ(exact_of(big).get_str(), "5070602400912917605986812833849");
  EXPECT_EQ(exact_of(-big).get_str(), "-5070602400912917605986812833849");
  EXPECT_EQ(exact_of(0), 0);
}

// The fluid clock against an exact one that adds every run as it comes.
void clock_follows_an_exact_one(bool always_exact) {
  FluidClock clock(always_exact);
  Exact exact = 0;
  std::vector<std::pair<FluidClock::Point, Exact>> points;
  const int steps = *rc::gen::inRange(1, 200);
  int64_t W = *rc::gen::inRange<int64_t>(kMinWeight, 1 << 20);
  for (int i = 0; i < steps; ++i) {
    switch (*rc::gen::inRange(0, 5)) {
      case 0:
        W = *rc::gen::inRange<int64_t>(kMinWeight, 1 << 20);
        [[fallthrough]];
      case 1:
      case 2: {
        // Now and then a run as long as the format allows, far past what fixed point holds.
        const int64_t longest = *rc::gen::inRange(0, 20) == 0 ? int64_t{1} << 62 : 10'000'000;
        const int64_t delta = *rc::gen::inRange<int64_t>(1, longest);
        clock.advance(delta, W);
        Exact step = ex(delta) * ex(kNice0Weight) / ex(W);
        exact += step;
        break;
      }
      case 3:
        points.emplace_back(clock.now(), exact);
        break;
      default: {
        if (points.empty()) break;
        const auto& [p, at] = points[*rc::gen::inRange<size_t>(0, points.size())];
        const int64_t w = *rc::gen::inRange<int64_t>(kMinWeight, kMaxWeight);
        const int64_t received = *rc::gen::inRange<int64_t>(0, 1'000'000);
        Exact want = (exact - at) * static_cast<long>(w) / ex(kNice0Weight) - ex(received);
        want.canonicalize();
        const FluidClock::Lag got = clock.lag(p, w, received);
        if (always_exact) RC_ASSERT(got.exact.has_value());
        if (got.exact) {
          RC_ASSERT(*got.exact == want);
          RC_ASSERT(got.value == want.get_d());
        } else {
          // 2^-64 per fold and per reading, times w/N.
          const double bound = (static_cast<double>(steps) + 2) * std::ldexp(1.0, -64) *
                                   static_cast<double>(w) / kNice0Weight +
                               1e-9 * std::fabs(want.get_d());
          RC_ASSERT(std::fabs(got.value - want.get_d()) <= bound);
        }
      }
    }
  }
}

RC_GTEST_PROP(FluidClockProperties, ExactWhereLagsAreVerdicts, ()) {
  clock_follows_an_exact_one(true);
}

RC_GTEST_PROP(FluidClockProperties, WithinItsBoundWhereLagsAreFigures, ()) {
  clock_follows_an_exact_one(false);
}

TEST(FluidClock, GoesFixedPointWhenItsDenominatorOutgrows64BitsAndExactAgainWhenIdle) {
  FluidClock clock(false);
  const FluidClock::Point start = clock.now();
  for (int64_t W : {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67})
    clock.advance(1, W * 1024);
  EXPECT_FALSE(clock.lag(start, 1024, 0).exact.has_value());
  clock.idle();
  const FluidClock::Point again = clock.now();
  clock.advance(3, 3 * 1024);
  const FluidClock::Lag l = clock.lag(again, 1024, 0);
  ASSERT_TRUE(l.exact.has_value());
  EXPECT_EQ(*l.exact, 1);
}

// Regression: a run of 2^62 ns overflowed the fold's 64-bit product (UBSan), and a fixed-point
// clock that far along would overflow 128 bits; it is computed exactly instead.
TEST(FluidClock, RunsFarBeyondFixedPointAreComputedExactly) {
  FluidClock clock(false);
  const FluidClock::Point start = clock.now();
  for (int64_t W : {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67})
    clock.advance(1, W * 1024);
  const FluidClock::Point fixed_point = clock.now();
  ASSERT_TRUE(fixed_point.fixed.has_value());
  clock.advance(int64_t{1} << 62, 1024);
  clock.advance(int64_t{1} << 62, 1024);
  const FluidClock::Lag l = clock.lag(fixed_point, 1024, 0);
  EXPECT_FALSE(l.exact.has_value());
  EXPECT_EQ(l.value, std::ldexp(1.0, 63));
  const FluidClock::Point later = clock.now();
  EXPECT_FALSE(later.fixed.has_value());
  clock.advance(1024, 2048);
  const FluidClock::Lag from_later = clock.lag(later, 2048, 1000);
  ASSERT_TRUE(from_later.exact.has_value());
  EXPECT_EQ(*from_later.exact, 24);
  EXPECT_FALSE(clock.lag(start, 1024, 0).exact.has_value());
}

// rules::deadline_holds on (d − v)·w/N, for integer d and v, a request r or r/2 and the slack of
// a Linux-arithmetic trace (or none).
RC_GTEST_PROP(DeadlineRangeProperties, AgreeWithTheRule, ()) {
  const Arith arith = *rc::gen::element(Arith::Exact, Arith::Linux64);
  const Params params = make_params(preset_by_name("linux-6.18"));
  const Rounding rounding(params, arith);
  DeadlineRanges ranges(rounding);
  View view;
  for (int i = 0; i < 60; ++i) {
    ViewEntity v;
    v.id = 1;
    v.weight = *rc::gen::inRange<int64_t>(kMinWeight, kMaxWeight);
    v.slice = *rc::gen::element<int64_t>(100'000, 700'000, 3'000'000);
    v.status = Status::Queued;
    v.vruntime = ex(*rc::gen::inRange<int64_t>(-(int64_t{1} << 50), int64_t{1} << 50));
    // Around the request's end, where the rule turns.
    const Exact rest_goal = ex(*rc::gen::inRange<int64_t>(-10'000, v.slice + 10'000));
    Exact dv = rest_goal * ex(kNice0Weight) / ex(v.weight);
    mpz_class floor;
    mpz_fdiv_q(floor.get_mpz_t(), dv.get_num_mpz_t(), dv.get_den_mpz_t());
    v.deadline = v.vruntime + Exact(floor + *rc::gen::inRange(-2, 3));
    v.request = *rc::gen::element(ex(v.slice), Exact(static_cast<long>(v.slice), 2L));
    v.deadline_roundings = *rc::gen::inRange(1, 4);
    view.insert(v);
    const ViewEntity& in = *view.find(1);
    const bool rule = rules::deadline_holds(rules::remaining_request(in), *in.request,
                                            rounding.deadline_slack(view, in));
    RC_ASSERT(ranges.holds(in, view) == rule);
  }
}

// The same lines read with a new Event each and with one Event reused: the same events.
TEST(ReaderReuse, GivesTheEventsANewEventGives) {
  std::string text = testing::demo_trace("linux-6.12", 50'000'000);
  text += "{\"t\":50000000,\"ev\":\"tick\",\"V\":\"-7/3\",\"vprot\":\"1/2\"}\n";
  std::istringstream a(text), b(text);
  trace::Reader fresh(a, "a"), reused(b, "b");
  trace::Event e;
  int64_t n = 0;
  while (const auto want = fresh.next()) {
    ASSERT_TRUE(reused.next(e));
    EXPECT_EQ(trace::event_line(e), trace::event_line(*want)) << "line " << fresh.line();
    ++n;
  }
  EXPECT_FALSE(reused.next(e));
  EXPECT_GT(n, 100);
}

TEST(ReaderReuse, AClearedEventHasNoNumbers) {
  trace::Event e;
  e.state.vruntime = ex(5);
  e.V = Exact(1, 3);
  e.clear();
  EXPECT_FALSE(e.state.vruntime.has_value());
  EXPECT_FALSE(e.V.has_value());
  const trace::Event copy = e;
  EXPECT_FALSE(copy.state.vruntime.has_value());
  e.state.vruntime = ex(7);
  EXPECT_EQ(*e.state.vruntime, 7);
  EXPECT_EQ(e.state.vruntime.value_or(ex(0)), 7);
  const std::optional<Exact> plain = e.state.vruntime;
  EXPECT_EQ(plain, std::optional<Exact>(ex(7)));
}

TEST(ParseS64, TakesSignedDecimalsOf64BitsWhole) {
  int64_t x = 0;
  EXPECT_TRUE(trace::parse_s64("0", x) && x == 0);
  EXPECT_TRUE(trace::parse_s64("-0", x) && x == 0);
  EXPECT_TRUE(trace::parse_s64("-1048576", x) && x == -1048576);
  EXPECT_TRUE(trace::parse_s64("999999999999999999", x) && x == 999999999999999999);
  EXPECT_TRUE(trace::parse_s64("9223372036854775807", x) && x == INT64_MAX);
  EXPECT_TRUE(trace::parse_s64("-9223372036854775808", x) && x == INT64_MIN);
  for (const char* bad : {"", "-", "+5", "1.5", "12a", " 1", "9223372036854775808", "1e3"})
    EXPECT_FALSE(trace::parse_s64(bad, x)) << bad;
}

}  // namespace
}  // namespace vlag::checker
