// Round trip of the trace format: whatever the writer writes, the reader reads back exactly —
// events with every optional field, exact rationals of any size, and headers of every preset.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "tests/support/op_gen.h"
#include "trace/input_error.h"
#include "trace/observer.h"
#include "trace/reader.h"
#include "trace/writer.h"

namespace vlag::trace {
namespace {

rc::Gen<Exact> gen_exact() {
  return rc::gen::map(
      rc::gen::tuple(rc::gen::arbitrary<int64_t>(), rc::gen::inRange<int64_t>(1, INT64_MAX),
                     rc::gen::inRange(0, 3)),
      [](const std::tuple<int64_t, int64_t, int>& t) {
        const auto& [num, den, scale] = t;
        Exact x(mpz_class(std::to_string(num)), mpz_class(std::to_string(den)));
        x *= mpz_class(1) << (64 * scale);  // beyond 64 bits too
        x.canonicalize();
        return x;
      });
}

template <class T>
rc::Gen<std::optional<T>> maybe(rc::Gen<T> g) {
  return rc::gen::map(rc::gen::maybe(std::move(g)), [](const rc::Maybe<T>& m) {
    return m ? std::optional<T>(*m) : std::nullopt;
  });
}

void add_v2_fields(Event& e);

rc::Gen<Event> gen_event() {
  return rc::gen::exec([] {
    Event e;
    e.kind = static_cast<EventKind>(*rc::gen::inRange(0, 14));
    e.t = *rc::gen::inRange<int64_t>(0, INT64_MAX);
    e.task = *rc::gen::arbitrary<int64_t>();
    if (e.kind == EventKind::Pick && *rc::gen::arbitrary<bool>()) e.task.reset();
    if (e.kind == EventKind::Run || e.kind == EventKind::Tick || e.kind == EventKind::Yield)
      e.task.reset();
    e.delta = e.kind == EventKind::Run ? *rc::gen::inRange<int64_t>(0, INT64_MAX) : 0;
    if (e.kind == EventKind::New || e.kind == EventKind::Reweight)
      e.weight = *vlag::testing::gen_weight();
    if (e.kind == EventKind::New || e.kind == EventKind::Slice)
      e.slice = *vlag::testing::gen_slice();
    if (e.kind == EventKind::Preempt) e.preempt = *rc::gen::arbitrary<bool>();
    e.state.weight = *maybe(vlag::testing::gen_weight());
    e.state.slice = *maybe(vlag::testing::gen_slice());
    e.state.vruntime = *maybe(gen_exact());
    e.state.deadline = *maybe(gen_exact());
    e.state.vlag = *maybe(gen_exact());
    e.state.request = *maybe(gen_exact());
    e.state.eligible = *maybe(rc::gen::arbitrary<bool>());
    e.state.running = *maybe(rc::gen::arbitrary<bool>());
    if (*rc::gen::arbitrary<bool>())
      e.state.status = *rc::gen::element(Status::Sleeping, Status::Queued, Status::Delayed);
    e.V = *maybe(gen_exact());
    e.W = *maybe(rc::gen::inRange<int64_t>(0, INT64_MAX));
    e.nr_queued = *maybe(rc::gen::inRange<int64_t>(0, INT64_MAX));
    add_v2_fields(e);
    return e;
  });
}

// Version 2's fields (spec/TRACE.md §3, §4): a runqueue, an entity of its own id or a group
// entity (no task, its task group), a task's name, vprot and the kernel's sums.
void add_v2_fields(Event& e) {
  e.rq = *rc::gen::inRange<RunqueueId>(0, 4);
  if (*rc::gen::arbitrary<bool>()) {
    e.se = *rc::gen::arbitrary<int64_t>();
    if (e.kind == EventKind::New && *rc::gen::arbitrary<bool>()) {
      e.task.reset();
      e.group = "/g" + std::to_string(*rc::gen::inRange(0, 9));
    }
  }
  if ((e.kind == EventKind::New || e.kind == EventKind::Attach) && e.task &&
      *rc::gen::arbitrary<bool>())
    e.name = *rc::gen::element<std::string>("hog", "kworker/0:1", "a \"quoted\" name");
  e.state.vprot = *maybe(gen_exact());
  e.kernel.v0 = *maybe(gen_exact());
  e.kernel.sum_w = *maybe(rc::gen::inRange<int64_t>(0, INT64_MAX));
  if (e.kernel.v0) e.kernel.sum_wv = *maybe(gen_exact());
}

// A `runqueue` line: a CPU's root runqueue, or a task group's with its group entity and parent.
rc::Gen<Event> gen_runqueue() {
  return rc::gen::exec([] {
    Event e;
    e.kind = EventKind::Runqueue;
    e.t = *rc::gen::inRange<int64_t>(0, INT64_MAX);
    e.rq = *rc::gen::inRange<RunqueueId>(0, 1000);
    e.group = "/";
    if (*rc::gen::arbitrary<bool>()) {
      e.parent = *rc::gen::inRange<RunqueueId>(0, 999);
      if (*e.parent >= e.rq) ++*e.parent;  // never its own
      e.se = *rc::gen::arbitrary<int64_t>();
      e.group = "/g" + std::to_string(e.rq);
    }
    return e;
  });
}

RC_GTEST_PROP(TraceProperties, EventsRoundTripExactly, ()) {
  auto events = *rc::gen::container<std::vector<Event>>(
      rc::gen::weightedOneOf<Event>({{9, gen_event()}, {1, gen_runqueue()}}));
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
  std::ostringstream out;
  Writer w(out);
  Header h;
  h.producer = "round \"trip\"";
  w.header(h);
  for (const auto& e : events) w.event(e);
  std::istringstream in(out.str());
  Reader r(in, "rt");
  RC_ASSERT(r.header().producer == h.producer);
  for (const auto& e : events) {
    const auto back = r.next();
    RC_ASSERT(back.has_value());
    RC_ASSERT(event_line(*back) == event_line(e));
    RC_ASSERT(back->state.vruntime == e.state.vruntime);
    RC_ASSERT(back->V == e.V);
    RC_ASSERT(back->rq == e.rq);
    RC_ASSERT(back->entity() == e.entity());
    RC_ASSERT(back->kernel.sum_wv == e.kernel.sum_wv);
  }
  RC_ASSERT(!r.next().has_value());
}

TEST(TraceHeader, RoundTripsEveryPresetWithOverrides) {
  for (const auto& name : preset_names()) {
    Preset p = preset_by_name(name);
    apply_feature_overrides(p, "NEXT_BUDDY,-PLACE_LAG");
    Header h;
    h.params = make_params(p, 1000);
    std::istringstream in(header_line(h) + "\n");
    Reader r(in, "h");
    EXPECT_EQ(r.header().params.preset.features, p.features) << name;
    EXPECT_EQ(r.header().params.preset.name, p.name);
    EXPECT_EQ(r.header().params.hz, 1000);
  }
}

// SPEC.md §9.1 in the header: the kernel's CPU count and a hand-set base slice come back, and a
// base_slice_ns that disagrees with them is a malformed header.
TEST(TraceHeader, CarriesTheKernelsCpusAndAHandSetBaseSlice) {
  Header h;
  h.params = make_params(preset_by_name("linux-6.18"), 250, 1);
  set_base_slice_params(h.params, 2, 0);
  std::istringstream in(header_line(h) + "\n");
  Reader r(in, "h");
  EXPECT_EQ(r.header().params.kernel_cpus, 2);
  EXPECT_EQ(r.header().params.base_slice_ns(), 1'400'000);
  set_base_slice_params(h.params, 2, 2'500'000);
  std::istringstream in2(header_line(h) + "\n");
  Reader r2(in2, "h");
  EXPECT_EQ(r2.header().params.base_slice_override_ns, 2'500'000);
  EXPECT_EQ(r2.header().params.base_slice_ns(), 2'500'000);
  const std::pair<std::string, std::string> bad[] = {
      {R"({"format":"vlag-trace","version":1,"preset":"linux-6.18","kernel_cpus":2,)"
       R"("base_slice_ns":700000})",
       "base_slice_ns"},
      {R"({"format":"vlag-trace","version":1,"preset":"linux-6.18","base_slice_override_ns":5})",
       "base_slice_override_ns"},
      {R"({"format":"vlag-trace","version":1,"preset":"linux-6.18","kernel_cpus":0})",
       "kernel_cpus"},
  };
  for (const auto& [text, field] : bad) {
    std::istringstream bin(text + "\n");
    try {
      Reader br(bin, "h");
      ADD_FAILURE() << "accepted " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

// Runqueues in Linux's integer arithmetic write through the same observer: u64-range vruntimes
// come back exact.
TEST(TraceObserver, WritesIntegerRunqueueEventsExactly) {
  vlag::StepReport<int64_t> ev;
  ev.op = Op{OpKind::Run, 0, 1000};
  ev.now = 5000;
  ev.entity = EntityState<int64_t>{.se = 7,
                                   .task = 7,
                                   .weight = 1024,
                                   .slice = 700000,
                                   .vruntime = INT64_MAX,
                                   .deadline = INT64_MIN,
                                   .vlag = -3,
                                   .status = Status::Queued,
                                   .running = true,
                                   .eligible = false};
  ev.V = 42;
  ev.W = 1024;
  const Event e = trace_event(ev);
  std::istringstream in(header_line(Header{}) + "\n" + event_line(e) + "\n");
  Reader r(in, "int");
  const auto back = r.next();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kind, EventKind::Run);
  EXPECT_EQ(back->task, std::optional<TaskId>(7));
  EXPECT_EQ(back->delta, 1000);
  EXPECT_EQ(*back->state.vruntime, to_exact(INT64_MAX));
  EXPECT_EQ(*back->state.deadline, to_exact(INT64_MIN));
  EXPECT_EQ(*back->V, Exact(42));
}

// Version 1 is version 2 on runqueue 0 with tasks only (spec/TRACE.md §8): the reader ignores
// the v2 fields there, as version 1 readers did, and reads them in version 2.
TEST(TraceVersions, Version1IgnoresTheFieldsOfVersion2) {
  const std::string event =
      R"({"t":5,"ev":"wakeup","task":3,"rq":2,"se":9,"vprot":7,"v0":1,"sum_w":1024,"sum_wv":"1/2"})";
  for (const int version : {1, 2}) {
    std::string head = header_line(Header{});
    const std::string v2 = "\"version\":2";
    head.replace(head.find(v2), v2.size(), "\"version\":" + std::to_string(version));
    std::istringstream in(head + "\n" + event + "\n");
    Reader r(in, "v");
    EXPECT_EQ(r.header().version, version);
    const auto e = r.next();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->task, std::optional<TaskId>(3));
    if (version == 1) {
      EXPECT_EQ(e->rq, 0);
      EXPECT_EQ(e->entity(), std::optional<EntityId>(3));
      EXPECT_FALSE(e->state.vprot.has_value());
      EXPECT_TRUE(e->kernel.empty());
    } else {
      EXPECT_EQ(e->rq, 2);
      EXPECT_EQ(e->entity(), std::optional<EntityId>(9));
      EXPECT_EQ(e->state.vprot, std::optional<Exact>(7));
      EXPECT_EQ(e->kernel.sum_w, std::optional<int64_t>(1024));
      EXPECT_EQ(e->kernel.sum_wv, std::optional<Exact>(Exact(1, 2)));
    }
  }
}

// The writer writes version 2, and a one-runqueue trace of tasks reads as version 1 did but for
// the header: no `rq`, no `se`.
TEST(TraceVersions, TheWriterWritesVersion2WithoutDefaultFields) {
  Event e;
  e.kind = EventKind::Wakeup;
  e.t = 1;
  e.task = 4;
  e.se = 4;
  EXPECT_NE(header_line(Header{}).find("\"version\":2"), std::string::npos);
  EXPECT_EQ(event_line(e), R"({"t":1,"ev":"wakeup","task":4})");
  e.rq = 3;
  e.task.reset();
  e.se = 100;
  EXPECT_EQ(event_line(e), R"({"t":1,"ev":"wakeup","rq":3,"se":100})");
}

TEST(TraceNumbers, ExactTextParsesOnlyCanonicalForms) {
  EXPECT_EQ(*parse_exact("-15/4"), Exact(-15, 4));
  EXPECT_EQ(*parse_exact("6/4"), Exact(3, 2));
  EXPECT_EQ(*parse_exact("123456789012345678901234567890"),
            Exact(mpz_class("123456789012345678901234567890")));
  // Regression (found by fuzz/trace_parser_fuzz.cpp): leading zeros are decimal, never octal,
  // and a digit 8 after a leading zero is no reason to throw.
  EXPECT_EQ(*parse_exact("010"), Exact(10));
  EXPECT_EQ(*parse_exact("921602/0000383"), Exact(921602, 383));
  for (const char* bad : {"", "-", "1/", "/2", "1/0", "1/-2", "1.5", "0x10", "1 ", "+3"})
    EXPECT_FALSE(parse_exact(bad).has_value()) << bad;
}

}  // namespace
}  // namespace vlag::trace
