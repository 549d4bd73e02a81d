// The reading of a line with the keys of a line read before (trace/line_program.h): it takes the
// lines whose keys and values it reads as they stand and gives back every other, so that any line
// reads into the same event, or the same fault, as the general reading (simdjson's, on the same
// line with a space after each colon) reads it.
#include "trace/line_program.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/trace_helpers.h"
#include "trace/input_error.h"
#include "trace/plain_line.h"
#include "trace/reader.h"
#include "trace/writer.h"

namespace vlag::trace {
namespace {

// The line in storage with LineProgram::kSlack bytes after it, bytes a careless reading would
// take for more of its last value: digits, a quote, a brace.
std::string with_slack(std::string_view line) {
  std::string s(line);
  s += "9\"}9999,\"t\":9999999999,\"ev\":\"run\"}9";
  EXPECT_GE(s.size() - line.size(), LineProgram::kSlack);
  return s;
}

// A program of `keys_line`'s keys reading `line`: the event, or nullopt when it gives it back.
// Read alone, and as the line after `keys_line` (the segments it repeats left as they stand in
// the event): the same either way.
std::optional<Event> program_read(std::string_view keys_line, std::string_view line,
                                  const FieldLimits& limits = {.ncpus = 2, .max_r = 100'000'000}) {
  PlainLine plain;
  EXPECT_TRUE(split_plain_line(keys_line, plain)) << keys_line;
  const std::string first = with_slack(keys_line), stored = with_slack(line);
  const auto in_storage = [](const std::string& s, std::string_view l) {
    return std::string_view(s).substr(0, l.size());
  };
  LineProgram alone(plain);
  Event e;
  const bool read = alone.read(in_storage(stored, line), limits, e, false);
  LineProgram program(plain);
  Event after;
  if (program.read(in_storage(first, keys_line), limits, after, false)) {
    EXPECT_EQ(program.read(in_storage(stored, line), limits, after, true), read) << line;
    if (read) {
      EXPECT_EQ(event_line(after), event_line(e)) << line;
      EXPECT_EQ(program.seen().weight_null, alone.seen().weight_null) << line;
    }
  }
  if (!read) return std::nullopt;
  return e;
}

constexpr std::string_view kRun =
    R"({"t":5802000,"ev":"run","task":37,"delta":2000,"w":1024,"r":700000,"v":-886576,"d":-698576,"vlag":-156198,"elig":false,"status":"queued","running":true,"V":-1042774,"W":1024000,"nr":1000})";

TEST(LineProgram, ReadsEveryFieldOfALineWithItsKeys) {
  const auto e = program_read(
      kRun,
      R"({"t":12345678901234,"ev":"run","task":-3,"delta":0,"w":2,"r":0,"v":"-7/2","d":123456789012345678,"vlag":0,"elig":true,"status":"delayed","running":false,"V":-1,"W":0,"nr":7})");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->t, 12345678901234);
  EXPECT_EQ(e->kind, EventKind::Run);
  EXPECT_EQ(e->task, -3);
  EXPECT_EQ(e->delta, 0);
  EXPECT_EQ(e->state.weight, 2);
  EXPECT_EQ(e->state.slice, 0);
  EXPECT_EQ(*e->state.vruntime, Exact(-7, 2));
  EXPECT_EQ(*e->state.deadline, Exact("123456789012345678"));
  EXPECT_EQ(*e->state.vlag, 0);
  EXPECT_EQ(e->state.eligible, true);
  EXPECT_EQ(e->state.status, Status::Delayed);
  EXPECT_EQ(e->state.running, false);
  EXPECT_EQ(*e->V, -1);
  EXPECT_EQ(e->W, 0);
  EXPECT_EQ(e->nr_queued, 7);
  // The event is the writer's line back.
  EXPECT_EQ(event_line(*program_read(kRun, kRun)), kRun);
}

TEST(LineProgram, GivesBackALineWithOtherKeys) {
  const std::string_view keys = R"({"t":1,"ev":"tick","cpu":0})";
  EXPECT_TRUE(program_read(keys, R"({"t":2,"ev":"yield","cpu":1})"));
  for (const char* line : {
           R"({"t":2,"ev":"tick"})",                 // one fewer
           R"({"t":2,"ev":"tick","cpu":0,"nr":1})",  // one more
           R"({"ev":"tick","t":2,"cpu":0})",         // another order
           R"({"tt":2,"ev":"tick","cpu":0})",        // a longer key
           R"({"t":2,"ev":"tick","cpux":0})",        // … at the end
           R"({"t":2,"ev":"tick","cp":0})",          // a shorter one
           R"({"t":2,"ev":"tick","cpu":0} )",        // trailing characters
           R"({"t":2,"ev":"tick","cpu":0)",          // no end
           R"({"t": 2,"ev":"tick","cpu":0})",        // whitespace
       })
    EXPECT_FALSE(program_read(keys, line)) << line;
  // Keys longer than two words are compared whole.
  const std::string_view long_keys = R"({"t":1,"ev":"tick","a_key_longer_than_16":1})";
  EXPECT_TRUE(program_read(long_keys, R"({"t":1,"ev":"tick","a_key_longer_than_16":"x"})"));
  EXPECT_FALSE(program_read(long_keys, R"({"t":1,"ev":"tick","a_key_longer_than_17":1})"));
}

TEST(LineProgram, GivesBackAValueItsFieldDoesNotTakeAsItStands) {
  const std::string_view keys =
      R"({"t":1,"ev":"new","task":1,"weight":1024,"slice":0,"cpu":0,"v":0,"status":"queued","elig":true})";
  const auto line = [](std::string_view field, std::string_view value) {
    std::string l =
        R"({"t":1,"ev":"new","task":1,"weight":1024,"slice":0,"cpu":0,"v":0,"status":"queued","elig":true})";
    const std::string key = "\"" + std::string(field) + "\":";
    const size_t from = l.find(key) + key.size();
    const size_t to = l.find_first_of(",}", from);
    return l.replace(from, to - from, value);
  };
  EXPECT_TRUE(program_read(keys, line("task", "null")));
  EXPECT_TRUE(program_read(keys, line("weight", "null")));
  EXPECT_TRUE(program_read(keys, line("t", "999999999999999999")));
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"t", "-1"},                   // below its range
           {"t", "1000000000000000000"},  // 19 digits
           {"t", "01"},                   // a leading zero
           {"t", "-"},                    // a lone sign
           {"t", "1.5"},                  // a fraction
           {"t", "\"1\""},                // a string
           {"ev", "\"teleport\""},        // an unknown event
           {"ev", "1"},                   // not a string
           {"cpu", "2"},                  // not below ncpus
           {"weight", "1"},               // below the least weight
           {"slice", "100000001"},        // above the largest slice
           {"v", "\"1/0\""},              // not an exact number
           {"v", "true"},                 // not a number
           {"status", "\"dozing\""},      // an unknown status
           {"elig", "1"},                 // not a boolean
           {"elig", "tru"},               // not a literal
           {"elig", "nul"},
           {"task", "nul"},
       })
    EXPECT_FALSE(program_read(keys, line(field, value))) << field << ": " << value;
  // A version 2 event in a version 1 trace; a version 2 field there is not read.
  const FieldLimits v1{.ncpus = 2, .max_r = 100'000'000, .v2 = false};
  EXPECT_FALSE(program_read(R"({"t":1,"ev":"tick"})", R"({"t":1,"ev":"put"})", v1));
  const auto e =
      program_read(R"({"t":1,"ev":"tick","rq":3})", R"({"t":1,"ev":"tick","rq":"x"})", v1);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rq, 0);
}

TEST(LineProgram, ReadsNothingPastTheLinesEnd) {
  // The bytes after each line are more digits, a quote and a brace (with_slack): a line that ends
  // inside a value is given back.
  const std::string_view keys = R"({"t":1,"ev":"tick","name":"x"})";
  EXPECT_FALSE(program_read(keys, R"({"t":1,"ev":"tick","name":"x)"));
  EXPECT_FALSE(program_read(R"({"t":1})", R"({"t":12)"));
  EXPECT_FALSE(program_read(R"({"t":1})", R"({"t":)"));
  EXPECT_FALSE(program_read(R"({"t":1})", R"({"t":123456789)"));
  EXPECT_FALSE(
      program_read(R"({"t":1,"ev":"tick","elig":true})", R"({"t":1,"ev":"tick","elig":tr)"));
  EXPECT_FALSE(program_read(R"({"t":1})", R"({"t")"));
}

// Random traces whose lines take a few layouts of keys, mostly with values their fields take and
// now and then one they do not: the reader (whose programs read the lines with a layout seen
// before) and simdjson's reading of the same lines spaced give the same events and faults, line
// by line.
std::string gen_value(const std::string& key, int64_t& t) {
  if (*rc::gen::inRange(0, 10) == 0)
    return *rc::gen::element<std::string>(
        "\"x\"", "1.5", "01", "-0", "-", "true", "false", "null", "99999999999999999999",
        "-9223372036854775808", "1000000000000000000", "999999999999999999", "\"3/4\"", "\"-1/0\"",
        "\"\"", "-1", "0", "2", "5000", "262145", "\"queued\"", "\"run\"");
  if (key == "t") {
    t += *rc::gen::inRange<int64_t>(-2, 100'000'000);
    return std::to_string(t);
  }
  if (key == "ev")
    return "\"" +
           *rc::gen::element<std::string>("run", "pick", "tick", "wakeup", "sleep", "new",
                                          "dequeue", "put", "runqueue", "slice", "preempt",
                                          "migrate", "reweight", "teleport") +
           "\"";
  if (key == "status")
    return "\"" + *rc::gen::element<std::string>("queued", "sleeping", "delayed", "dozing") + "\"";
  if (key == "elig" || key == "running" || key == "preempt")
    return *rc::gen::element<std::string>("true", "false");
  if (key == "name" || key == "group" || key == "extra")
    return "\"" + *rc::gen::element<std::string>("", "/", "a:b", "hog-1", "x,y}") + "\"";
  if (key == "v" || key == "d" || key == "vlag" || key == "V" || key == "req" || key == "v0" ||
      key == "sum_wv" || key == "vprot") {
    if (*rc::gen::inRange(0, 4) == 0)
      return "\"" + std::to_string(*rc::gen::inRange<int64_t>(-1000, 1000)) + "/" +
             std::to_string(*rc::gen::inRange<int64_t>(1, 7)) + "\"";
    return std::to_string(*rc::gen::inRange<int64_t>(-5'000'000'000'000, 5'000'000'000'000));
  }
  if ((key == "task" || key == "se") && *rc::gen::inRange(0, 5) == 0) return "null";
  // The ranges' edges and just past them, now and then.
  const auto edges = [](int64_t lo, int64_t hi) {
    return std::to_string(*rc::gen::element(lo - 1, lo, hi, hi + 1));
  };
  const bool edge = *rc::gen::inRange(0, 3) == 0;
  if (key == "weight" || key == "w")
    return edge ? edges(2, 262144) : std::to_string(*rc::gen::inRange<int64_t>(2, 300'000));
  if (key == "slice" || key == "r")
    return edge ? edges(0, 100'000'000)
                : std::to_string(*rc::gen::inRange<int64_t>(0, 100'000'000));
  if (key == "cpu" || key == "to")
    return edge ? edges(0, 1) : std::to_string(*rc::gen::inRange<int64_t>(0, 2));
  return std::to_string(*rc::gen::inRange<int64_t>(-3, 2'000'000'000));
}

// Each line's event as the writer writes it, or its fault, reading on past faults.
std::vector<std::string> read_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  Reader r(in, "t.jsonl");
  for (;;) {
    try {
      Event e;
      if (!r.next(e)) break;
      out.push_back(event_line(e));
    } catch (const InputError& err) {
      out.push_back(std::string("fault: ") + err.what());
    }
  }
  return out;
}

RC_GTEST_PROP(LineProgramProperties, ReadsEveryLineAsTheGeneralReadingDoes, ()) {
  const std::vector<std::string> pool = {
      "t",       "ev",     "cpu",   "task", "delta", "weight", "slice", "preempt",
      "to",      "w",      "r",     "v",    "d",     "vlag",   "elig",  "status",
      "running", "req",    "V",     "W",    "nr",    "rq",     "se",    "name",
      "group",   "parent", "vprot", "v0",   "sum_w", "sum_wv", "extra", "a_key_longer_than_16"};
  const auto gen_layout = [&] {
    auto keys = *rc::gen::unique<std::vector<std::string>>(rc::gen::elementOf(pool));
    if (*rc::gen::inRange(0, 8) != 0) {  // mostly a time and an event first
      std::erase(keys, "t");
      std::erase(keys, "ev");
      keys.insert(keys.begin(), {"t", "ev"});
    }
    return keys;
  };
  // Layouts that are each other's beginnings, or the same with more keys, as well as others.
  std::vector<std::vector<std::string>> layouts = {gen_layout()};
  for (int n = *rc::gen::inRange(0, 6); n > 0; --n) {
    auto keys = *rc::gen::elementOf(layouts);
    switch (*rc::gen::inRange(0, 3)) {
      case 0:
        keys.resize(*rc::gen::inRange<size_t>(0, keys.size() + 1));
        break;
      case 1:
        for (const std::string& key : gen_layout())
          if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
        break;
      default:
        keys = gen_layout();
    }
    layouts.push_back(keys);
  }
  const int version = *rc::gen::element(1, 2);
  std::string text = R"({"format":"vlag-trace","version":)" + std::to_string(version) +
                     R"(,"clock":"ns","producer":"t","preset":"linux-6.18","cpus":2,"hz":250})";
  std::string spaced_text = text;
  int64_t t = 0;
  const int lines = *rc::gen::inRange(1, 120);
  std::map<std::string, std::string> last;  // each key's value last written
  for (int n = 0; n < lines; ++n) {
    // Mostly the layout of the line before, as a trace's runs follow each other.
    const size_t layout =
        *rc::gen::inRange(0, 2) == 0 ? 0 : *rc::gen::inRange<size_t>(0, layouts.size());
    const auto& keys = layouts[layout];
    std::string line = "{";
    for (const std::string& key : keys) {
      if (line.size() > 1) line += ',';
      // Often the value of the line before, as most of a trace's fields repeat.
      const auto before = last.find(key);
      std::string& value = last[key];
      value =
          before != last.end() && *rc::gen::inRange(0, 2) == 0 ? before->second : gen_value(key, t);
      line += "\"" + key + "\":" + value;
    }
    line += "}";
    text += "\n" + line;
    spaced_text += "\n" + testing::spaced(line);
  }
  RC_ASSERT(read_lines(text) == read_lines(spaced_text));
}

}  // namespace
}  // namespace vlag::trace
