// vlag trace export --perfetto (trace/perfetto.h): the output is strict JSON, each task's run
// slices add up to the run time the trace gives it, counters appear exactly when the trace
// carries state, and bad input fails with the reader's located error.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <sstream>

#include "tests/support/trace_helpers.h"
#include "trace/perfetto.h"

namespace vlag::trace {
namespace {

struct Exported {
  PerfettoCounts counts;
  std::string json;
};

Exported export_text(const std::string& text) {
  std::istringstream in(text);
  Reader reader(in, "t.jsonl");
  std::ostringstream out;
  const PerfettoCounts counts = export_perfetto(reader, out);
  return {counts, out.str()};
}

// What a viewer sees, parsed back with simdjson's DOM parser (which rejects any non-JSON).
struct Parsed {
  std::map<TaskId, int64_t> run_ns;  // Σ dur of each task's slices, back in ns
  std::map<std::string, int> counters;
  int instants = 0;
};

Parsed parse(const std::string& json) {
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(simdjson::padded_string(json));
  Parsed p;
  for (const simdjson::dom::element ev : doc["traceEvents"].get_array()) {
    const std::string_view ph = ev["ph"];
    if (ph == "X") {
      const double dur_us = ev["dur"];
      p.run_ns[int64_t(ev["args"]["task"])] += std::llround(dur_us * 1000);
      EXPECT_GT(dur_us, 0);
    } else if (ph == "C") {
      ++p.counters[std::string(std::string_view(ev["name"]))];
    } else if (ph == "i") {
      ++p.instants;
    }
  }
  return p;
}

// The reference writes a run event for every stretch of time, so its run deltas per task are the
// run time the trace records.
std::map<TaskId, int64_t> run_deltas(const std::string& text) {
  std::istringstream in(text);
  Reader reader(in, "t.jsonl");
  std::map<TaskId, int64_t> ns;
  while (const auto e = reader.next())
    if (e->kind == EventKind::Run && e->task) ns[*e->task] += e->delta;
  return ns;
}

TEST(PerfettoExport, SlicesAddUpToEachTasksRunTimeAndStateGivesCounters) {
  for (const std::string preset : {"linux-6.18", "paper-1"}) {
    const std::string text = testing::demo_trace(preset, 200'000'000);
    const Exported x = export_text(text);
    const Parsed p = parse(x.json);
    EXPECT_EQ(p.run_ns, run_deltas(text)) << preset;
    EXPECT_GT(x.counts.slices, 50) << preset;
    EXPECT_GT(p.instants, 50) << preset;
    EXPECT_EQ(p.counters.at("V"), p.counters.at("W")) << preset;
    EXPECT_GT(p.counters.at("V"), 100) << preset;
    for (const auto& [task, ns] : p.run_ns)
      EXPECT_GT(p.counters.count(fmt::format("lag task {} (ns)", task)), 0u) << preset << task;
  }
}

// Without run events and state (a tracepoint stream), time between events is the running task's
// (spec/TRACE.md §3), and there is nothing to draw a counter from.
TEST(PerfettoExport, TimestampOnlyTraceGivesExactSlicesAndNoCounters) {
  const std::string text =
      header_line(testing::header_for(make_params(preset_by_name("linux-6.18")))) + "\n" +
      R"({"t":0,"ev":"new","task":1,"weight":1024,"slice":0}
{"t":0,"ev":"new","task":2,"weight":335,"slice":0}
{"t":0,"ev":"wakeup","task":1}
{"t":0,"ev":"wakeup","task":2}
{"t":0,"ev":"pick","task":1}
{"t":3000,"ev":"pick","task":2}
{"t":5500,"ev":"sleep","task":2}
{"t":5500,"ev":"pick","task":1}
{"t":10001,"ev":"tick"}
)";
  const Exported x = export_text(text);
  const Parsed p = parse(x.json);
  EXPECT_EQ(p.run_ns, (std::map<TaskId, int64_t>{{1, 7501}, {2, 2500}}));
  EXPECT_EQ(x.counts.slices, 3);
  EXPECT_EQ(x.counts.counters, 0);
  EXPECT_NE(x.json.find(R"("ts":5.500,"dur":4.501)"), std::string::npos) << x.json;
}

// Version 2 names tasks (`name`): slices, instants and counters say "NAME:ID"; a task without a
// name stays "task ID". A mark lands on the CPU track of its line's event, at its time, with its
// arguments; a mark on no event's line is a global instant at the trace's end.
TEST(PerfettoExport, NamesTasksAndPlacesMarksOnTheirEventsTrack) {
  const std::string text =
      R"({"format":"vlag-trace","version":2,"preset":"linux-6.18","cpus":2,"cpu":1}
{"t":0,"ev":"new","task":7,"weight":1024,"slice":0,"name":"hog","cpu":1}
{"t":0,"ev":"new","task":8,"weight":1024,"slice":0,"cpu":1}
{"t":0,"ev":"wakeup","task":7,"cpu":1,"vlag":0}
{"t":0,"ev":"wakeup","task":8,"cpu":1}
{"t":0,"ev":"pick","task":7,"cpu":1}
{"t":3000,"ev":"pick","task":8,"cpu":1}
{"t":4000,"ev":"tick","cpu":1}
)";
  PerfettoMarks marks;
  PerfettoMark m;
  m.name = "VIOLATION INV-PICK-EDF";
  m.category = "check";
  m.args.str("id", "INV-PICK-EDF").str("message", "picked task 8").num("line", 7);
  marks.emplace(7, m);
  m.name = "a note on the header";
  marks.emplace(1, m);
  std::istringstream in(text);
  Reader reader(in, "t.jsonl");
  std::ostringstream out;
  const PerfettoCounts n = export_perfetto(reader, out, marks);
  EXPECT_EQ(n.marks, 2);

  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(simdjson::padded_string(out.str()));
  std::map<std::string, int> names;
  int violation = 0, global = 0;
  for (const simdjson::dom::element ev : doc["traceEvents"].get_array()) {
    const std::string_view ph = ev["ph"];
    const std::string name{std::string_view(ev["name"])};
    ++names[name];
    if (name == "VIOLATION INV-PICK-EDF") {
      ++violation;
      EXPECT_EQ(ph, "i");
      EXPECT_EQ(std::string_view(ev["s"]), "t");
      EXPECT_EQ(std::string_view(ev["cat"]), "check");
      EXPECT_EQ(int64_t(ev["pid"]), 2);  // CPU 1's process
      EXPECT_EQ(int64_t(ev["tid"]), 2);
      EXPECT_EQ(double(ev["ts"]), 3.0);  // line 7's event, at 3000 ns
      EXPECT_EQ(std::string_view(ev["args"]["id"]), "INV-PICK-EDF");
      EXPECT_EQ(std::string_view(ev["args"]["message"]), "picked task 8");
    }
    if (name == "a note on the header") {
      ++global;
      EXPECT_EQ(std::string_view(ev["s"]), "g");
      EXPECT_EQ(double(ev["ts"]), 4.0);
    }
  }
  EXPECT_EQ(violation, 1);
  EXPECT_EQ(global, 1);
  EXPECT_EQ(names["hog:7"], 1) << out.str();  // its run slice
  EXPECT_EQ(names["task 8"], 1) << out.str();
  EXPECT_EQ(names["wakeup hog:7"], 1);
  EXPECT_EQ(names["new task 8"], 1);
  EXPECT_EQ(names["lag hog:7 (ns)"], 1);  // the wakeup's vlag
}

TEST(PerfettoExport, BadTraceFailsWithTheReadersLocatedError) {
  const std::string text =
      header_line(testing::header_for(make_params(preset_by_name("linux-6.18")))) + "\n" +
      "{\"t\":0,\"ev\":\"new\",\"task\":1,\"weight\":1024,\"slice\":0}\n{\"t\":5,\"ev\":\"bogus\"}"
      "\n";
  try {
    export_text(text);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.fault(), Fault::UnknownEvent);
  }
}

TEST(PerfettoExport, MicrosecondsKeepEveryNanosecond) {
  EXPECT_EQ(micros(0), "0.000");
  EXPECT_EQ(micros(1234567), "1234.567");
  EXPECT_EQ(micros(-5), "-0.005");
  EXPECT_EQ(micros(INT64_MIN), "-9223372036854775.808");
}

}  // namespace
}  // namespace vlag::trace
