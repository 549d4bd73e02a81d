// Bad input: every fault class of spec/TRACE.md §5 gives an error naming file, line and field,
// and --keep-going counts and skips the faulty lines instead of stopping.
#include <gtest/gtest.h>

#include "tests/support/trace_helpers.h"
#include "trace/input_error.h"

namespace vlag::trace {
namespace {

const std::string kHeader =
    R"({"format":"vlag-trace","version":1,"clock":"ns","producer":"t","preset":"paper-1","cpus":1,"hz":250})";
const std::string kTwoTasks =
    "{\"t\":0,\"ev\":\"new\",\"task\":1,\"weight\":1024,\"slice\":0}\n"
    "{\"t\":0,\"ev\":\"new\",\"task\":2,\"weight\":1024,\"slice\":0}\n";

struct BadLine {
  const char* name;
  std::string body;  // lines after the header
  Fault fault;
  int64_t line;
  const char* field;
};

const BadLine kBad[] = {
    {"NotJson", "{\"t\":0,\"ev\":\n", Fault::Malformed, 2, ""},
    {"MissingDelta", "{\"t\":5,\"ev\":\"run\"}\n", Fault::Malformed, 2, "delta"},
    {"WrongType", "{\"t\":\"soon\",\"ev\":\"tick\"}\n", Fault::Malformed, 2, "t"},
    {"BadExact", kTwoTasks + "{\"t\":0,\"ev\":\"wakeup\",\"task\":1,\"v\":\"1/0\"}\n",
     Fault::Malformed, 4, "v"},
    // Regression (found by fuzz/trace_parser_fuzz.cpp): a garbled null threw out of the reader.
    {"GarbledNull", "{\"t\":0,\"ev\":\"new\",\"task\":1,\"weight\":nulu,\"slice\":0}\n",
     Fault::Malformed, 2, "weight"},
    {"UnknownEvent", "{\"t\":0,\"ev\":\"teleport\"}\n", Fault::UnknownEvent, 2, "ev"},
    {"NumberTooBig", "{\"t\":0,\"ev\":\"run\",\"delta\":99999999999999999999}\n", Fault::Range, 2,
     "delta"},
    {"WeightOutOfRange", "{\"t\":0,\"ev\":\"new\",\"task\":1,\"weight\":1,\"slice\":0}\n",
     Fault::Range, 2, "weight"},
    {"TimeBackwards", "{\"t\":10,\"ev\":\"tick\"}\n{\"t\":9,\"ev\":\"tick\"}\n",
     Fault::TimeBackwards, 3, "t"},
    {"RunBeforePrevious", "{\"t\":10,\"ev\":\"tick\"}\n{\"t\":15,\"ev\":\"run\",\"delta\":6}\n",
     Fault::TimeBackwards, 3, "delta"},
    {"PickOfSleeper", kTwoTasks + "{\"t\":0,\"ev\":\"pick\",\"task\":2}\n", Fault::NotRunnable, 4,
     "task"},
    {"TaskWithoutNew", "{\"t\":0,\"ev\":\"wakeup\",\"task\":7}\n", Fault::TraceFault, 2, "task"},
    // Not JSON, though simdjson's on-demand API reads it (RFC 8259 §4, §6, §7).
    {"LeadingZero", "{\"t\":01,\"ev\":\"tick\"}\n", Fault::Malformed, 2, "t"},
    {"LeadingZeroInAnExact", kTwoTasks + "{\"t\":0,\"ev\":\"wakeup\",\"task\":1,\"v\":-007}\n",
     Fault::Malformed, 4, "v"},
    {"DuplicateKey", "{\"t\":0,\"ev\":\"tick\",\"t\":5}\n", Fault::Malformed, 2, "t"},
    {"DuplicateKeyEscaped", "{\"t\":0,\"ev\":\"tick\",\"\\u0074\":5}\n", Fault::Malformed, 2, "t"},
    {"DuplicateKeyNested", "{\"t\":0,\"ev\":\"tick\",\"x\":[{\"a\":1,\"a\":2}]}\n",
     Fault::Malformed, 2, "x"},
    {"BadLiteralInAnUnknownField", "{\"t\":0,\"ev\":\"tick\",\"x\":tru}\n", Fault::Malformed, 2,
     "x"},
    {"BadNumberInAnUnknownField", "{\"t\":0,\"ev\":\"tick\",\"x\":1.}\n", Fault::Malformed, 2, "x"},
    {"BadEscapeInAnUnknownField", "{\"t\":0,\"ev\":\"tick\",\"x\":\"\\q\"}\n", Fault::Malformed, 2,
     "x"},
    {"DoubleWakeup",
     kTwoTasks + "{\"t\":0,\"ev\":\"wakeup\",\"task\":1}\n{\"t\":0,\"ev\":\"wakeup\",\"task\":1}\n",
     Fault::TraceFault, 5, "task"},
};

// Version 2's lines (spec/TRACE.md §3, §7): runqueues, group entities, the kernel's sums.
const std::string kHeaderV2 =
    R"({"format":"vlag-trace","version":2,"clock":"ns","producer":"t","preset":"linux-6.18","cpus":1,"hz":250})";
const std::string kGroupRunqueue =
    "{\"t\":0,\"ev\":\"runqueue\",\"rq\":1,\"cpu\":0,\"group\":\"/a\",\"parent\":0,\"se\":100}\n";

const BadLine kBadV2[] = {
    {"GroupEntityWithoutGroup", "{\"t\":0,\"ev\":\"new\",\"se\":100,\"weight\":1024,\"slice\":0}\n",
     Fault::Malformed, 2, "group"},
    {"GroupOfATask",
     "{\"t\":0,\"ev\":\"new\",\"task\":1,\"weight\":1024,\"slice\":0,\"group\":\"/a\"}\n",
     Fault::Malformed, 2, "group"},
    {"EmptyGroup",
     "{\"t\":0,\"ev\":\"new\",\"se\":100,\"weight\":1024,\"slice\":0,\"group\":\"\"}\n",
     Fault::Malformed, 2, "group"},
    {"GroupRunqueueWithoutParent", "{\"t\":0,\"ev\":\"runqueue\",\"rq\":1,\"se\":100}\n",
     Fault::Malformed, 2, "parent"},
    {"RunqueueItsOwnParent", "{\"t\":0,\"ev\":\"runqueue\",\"rq\":1,\"se\":100,\"parent\":1}\n",
     Fault::Malformed, 2, "parent"},
    {"SumWvWithoutV0", kTwoTasks + "{\"t\":0,\"ev\":\"wakeup\",\"task\":1,\"sum_wv\":0}\n",
     Fault::Malformed, 4, "v0"},
    {"UndeclaredRunqueue",
     "{\"t\":0,\"ev\":\"new\",\"rq\":3,\"task\":1,\"weight\":1024,\"slice\":0}\n",
     Fault::TraceFault, 2, "rq"},
    {"RunqueueDeclaredTwice", kGroupRunqueue + kGroupRunqueue, Fault::TraceFault, 3, "rq"},
    {"RunqueueDeclaredAfterItsEvents",
     kTwoTasks + "{\"t\":0,\"ev\":\"runqueue\",\"rq\":0,\"cpu\":0,\"group\":\"/\"}\n",
     Fault::TraceFault, 4, "rq"},
    {"ParentNotDeclared", "{\"t\":0,\"ev\":\"runqueue\",\"rq\":2,\"se\":5,\"parent\":1}\n",
     Fault::TraceFault, 2, "parent"},
    {"GroupEntityWithoutNew", kGroupRunqueue + "{\"t\":0,\"ev\":\"wakeup\",\"se\":100}\n",
     Fault::TraceFault, 3, "se"},
};

void expect_fault(const std::string& header, const BadLine& b) {
  try {
    testing::check_text(header + "\n" + b.body);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.fault(), b.fault) << e.what();
    EXPECT_EQ(e.file(), "t.jsonl");
    EXPECT_EQ(e.line(), b.line) << e.what();
    EXPECT_EQ(e.field(), b.field) << e.what();
    EXPECT_NE(std::string(e.what()).find("t.jsonl:" + std::to_string(b.line) + ":"),
              std::string::npos);
  }
  const checker::Report r = testing::check_text(header + "\n" + b.body, true);
  EXPECT_EQ(r.problem_count, 1);
  EXPECT_EQ(r.problems.at(0).fault, b.fault);
}

class BadInput : public ::testing::TestWithParam<BadLine> {};
class BadInputV2 : public ::testing::TestWithParam<BadLine> {};

TEST_P(BadInput, NamesFileLineAndField) { expect_fault(kHeader, GetParam()); }
TEST_P(BadInputV2, NamesFileLineAndField) { expect_fault(kHeaderV2, GetParam()); }

const auto kBadName = [](const auto& info) { return std::string(info.param.name); };
INSTANTIATE_TEST_SUITE_P(Trace, BadInput, ::testing::ValuesIn(kBad), kBadName);
INSTANTIATE_TEST_SUITE_P(Trace, BadInputV2, ::testing::ValuesIn(kBadV2), kBadName);

// A version 1 trace knows no `runqueue` lines (spec/TRACE.md §8).
TEST(BadInputV1, RunqueueLineIsAnUnknownEvent) {
  expect_fault(kHeader, {"RunqueueInV1", kGroupRunqueue, Fault::UnknownEvent, 2, "ev"});
}

TEST(BadHeader, IsRejectedWithItsField) {
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {R"({"format":"other","version":1,"preset":"paper-1"})", "format"},
      {R"({"format":"vlag-trace","version":3,"preset":"paper-1"})", "version"},
      {R"({"format":"vlag-trace","version":0,"preset":"paper-1"})", "version"},
      {R"({"format":"vlag-trace","version":1,"preset":"linux-2.4"})", "preset"},
      {R"({"format":"vlag-trace","version":1,"preset":"paper-1","features":["NO_SUCH"]})",
       "features"},
      {R"({"format":"vlag-trace","version":1,"preset":"paper-1","hz":250,"tick_ns":1})", "tick_ns"},
      {R"({"format":"vlag-trace","version":1,"preset":"paper-1","cpus":2})", "cpus"},
      {R"({"format":"vlag-trace","version":01,"preset":"paper-1"})", "version"},
      {R"({"format":"vlag-trace","version":1,"preset":"paper-1","preset":"linux-6.6"})", "preset"},
      {R"({"format":"vlag-trace","version":1,"preset":"paper-1","kernel_reconstruction":1})",
       "kernel_reconstruction"},
  };
  for (const auto& [header, field] : cases) {
    try {
      testing::check_text(header + "\n");
      ADD_FAILURE() << "accepted " << header;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 1);
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

// Valid JSON the reader does not know stays readable: unknown fields of any shape.
TEST(UnknownFields, OfAnyValidShapeAreIgnored) {
  const checker::Report r = testing::check_text(
      kHeader + "\n" +
      R"({"t":0,"ev":"tick","x":[1,-0.5e-3,{"y":[true,false,null,"\u00e9\n"]}],"z":-0})" + "\n");
  EXPECT_EQ(r.events, 1);
}

TEST(EmptyInput, IsAnErrorAtLineOne) {
  try {
    testing::check_text("");
    ADD_FAILURE() << "accepted an empty input";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find("empty input"), std::string::npos) << e.what();
  }
}

TEST(KeepGoing, SkipsEveryFaultyLineAndChecksTheRest) {
  const std::string text = kHeader + "\n" + kTwoTasks +
                           "{\"t\":0,\"ev\":\"teleport\"}\n"
                           "{\"t\":0,\"ev\":\"wakeup\",\"task\":1}\n"
                           "not json\n"
                           "{\"t\":0,\"ev\":\"pick\",\"task\":2}\n"
                           "{\"t\":0,\"ev\":\"pick\",\"task\":1}\n";
  const checker::Report r = testing::check_text(text, true);
  EXPECT_EQ(r.problem_count, 3);
  EXPECT_FALSE(r.violated());
  EXPECT_EQ(r.stats.at("INV-PICK-EDF").checked, 1);
}

}  // namespace
}  // namespace vlag::trace

namespace vlag::trace {
namespace {

// Regression: a run of 2^62 ns overflowed a 64-bit product in the service layer (undefined
// behaviour, caught by UBSan). Any run the format allows is now exact; the shadow reference,
// which bounds a step to 2^50 ns, stops with a note instead.
TEST(HugeRun, IsCheckedExactly) {
  const std::string text =
      kHeader + "\n" + kTwoTasks +
      "{\"t\":0,\"ev\":\"wakeup\",\"task\":1}\n"
      "{\"t\":0,\"ev\":\"pick\",\"task\":1}\n"
      "{\"t\":4611686018427387904,\"ev\":\"run\",\"delta\":4611686018427387904}\n"
      "{\"t\":9223372036854775807,\"ev\":\"tick\"}\n";
  const checker::Report r = testing::check_text(text);
  EXPECT_EQ(r.problem_count, 0);
  EXPECT_FALSE(r.notes.empty());
}

}  // namespace
}  // namespace vlag::trace

namespace vlag::trace {
namespace {

TEST(WindowInput, EntityLinesNeedTheirStateAndAWindowHeader) {
  const std::string window_header =
      R"({"format":"vlag-trace","version":1,"preset":"linux-6.18","window":true})";
  try {
    testing::check_text(
        window_header + "\n" +
        R"({"t":0,"ev":"entity","task":1,"w":1024,"r":700000,"d":5,"status":"queued"})" + "\n");
    ADD_FAILURE() << "accepted an entity without v";
  } catch (const InputError& e) {
    EXPECT_EQ(e.fault(), Fault::Malformed);
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "v");
  }
  try {
    testing::check_text(
        kHeader + "\n" +
        R"({"t":0,"ev":"entity","task":1,"w":1024,"r":700000,"v":0,"d":5,"status":"queued"})" +
        "\n");
    ADD_FAILURE() << "accepted an entity line outside a window";
  } catch (const InputError& e) {
    EXPECT_EQ(e.fault(), Fault::TraceFault);
    EXPECT_EQ(e.field(), "ev");
  }
}

}  // namespace
}  // namespace vlag::trace
