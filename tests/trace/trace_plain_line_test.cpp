// The reader's two paths (trace/reader.h): a plain line (trace/plain_line.h) split in place, any
// other line read by simdjson. The same line read either way gives the same event, or the same
// fault; the split takes exactly the plain shape.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/trace_helpers.h"
#include "trace/input_error.h"
#include "trace/plain_line.h"
#include "trace/reader.h"
#include "trace/writer.h"

namespace vlag::trace {
namespace {

using Type = PlainValue::Type;

TEST(PlainLine, SplitsAWriterLineIntoItsFields) {
  PlainLine p;
  ASSERT_TRUE(split_plain_line(
      R"({"t":5,"ev":"run","task":-3,"elig":false,"running":true,"weight":null,"v":"7/2"})", p));
  ASSERT_EQ(p.size, 7u);
  EXPECT_EQ(p.fields[0].key, "t");
  EXPECT_EQ(p.fields[0].value.type, Type::Integer);
  EXPECT_EQ(p.fields[0].value.small, 5);
  EXPECT_EQ(p.fields[1].value.type, Type::String);
  EXPECT_EQ(p.fields[1].value.text, "run");
  EXPECT_EQ(p.fields[2].value.small, -3);
  EXPECT_EQ(p.fields[3].value.type, Type::False);
  EXPECT_EQ(p.fields[4].value.type, Type::True);
  EXPECT_EQ(p.fields[5].value.type, Type::Null);
  EXPECT_EQ(p.fields[6].key, "v");
  EXPECT_EQ(p.fields[6].value.text, "7/2");
  EXPECT_FALSE(p.fields[6].value.small);
}

TEST(PlainLine, ReadsAnIntegerOfMoreThan18DigitsOnlyAsText) {
  PlainLine p;
  ASSERT_TRUE(split_plain_line(R"({"a":999999999999999999,"b":-1000000000000000000})", p));
  EXPECT_EQ(p.fields[0].value.small, 999999999999999999);
  EXPECT_FALSE(p.fields[1].value.small);
  EXPECT_EQ(p.fields[1].value.text, "-1000000000000000000");
}

TEST(PlainLine, TakesNothingButThePlainShape) {
  for (const char* line : {
           R"({})",                     // no field
           R"({"t": 5})",               // whitespace
           R"( {"t":5})",               // … around the object
           R"({"t":5}x)",               // trailing characters
           R"({"t":5,})",               // a trailing comma
           R"({"t":05})",               // a leading zero (not JSON)
           R"({"t":-})",                // a lone sign
           R"({"t":1.5})",              // a fraction
           R"({"t":1e3})",              // an exponent
           R"({"t":tru})",              // a bad literal
           R"({"t":truex})",            // … or a longer one
           R"({"t":[1]})",              // an array
           R"({"t":{"a":1}})",          // an object
           R"({"\u0074":5})",           // an escape in a key
           R"({"ev":"r\"un"})",         // … in a string
           "{\"ev\":\"caf\xc3\xa9\"}",  // UTF-8
           "{\"ev\":\"a\tb\"}",         // a control character
           R"({"ev":"run)",             // an unterminated string
           R"({"t":5)",                 // an unterminated object
       }) {
    PlainLine p;
    EXPECT_FALSE(split_plain_line(line, p)) << line;
  }
}

// The split reads eight bytes at a time where a line has them, byte by byte near its end: any
// value of any length at any place reads as written, and a character a plain string cannot hold at
// any place makes the line not plain.
struct GeneratedField {
  std::string key, text;  // the value as written
  Type type = Type::Integer;
};

std::string line_of(const std::vector<GeneratedField>& fields) {
  std::string line = "{";
  for (const GeneratedField& f : fields) {
    if (line.size() > 1) line += ',';
    line += '"' + f.key + "\":" + (f.type == Type::String ? '"' + f.text + '"' : f.text);
  }
  return line + "}";
}

GeneratedField gen_field() {
  GeneratedField f;
  const auto plain_text = [](int lo, int hi) {
    return *rc::gen::container<std::string>(
        static_cast<size_t>(*rc::gen::inRange(lo, hi)),
        rc::gen::map(rc::gen::inRange(0x20, 0x7f),
                     [](int c) { return c == '"' || c == '\\' ? 'x' : static_cast<char>(c); }));
  };
  f.key = plain_text(1, 20);
  const int kind = *rc::gen::inRange(0, 6);
  if (kind <= 2) {
    const int digits = *rc::gen::inRange(1, 24);
    f.text = *rc::gen::element<std::string>("", "-");
    f.text += static_cast<char>('1' + *rc::gen::inRange(0, 9));
    for (int i = 1; i < digits; ++i) f.text += static_cast<char>('0' + *rc::gen::inRange(0, 10));
    if (kind == 2) f.text = *rc::gen::element<std::string>("0", "-0");
  } else if (kind == 3) {
    f.type = Type::String;
    f.text = plain_text(0, 30);
  } else {
    f.type = *rc::gen::element(Type::True, Type::False, Type::Null);
    f.text = f.type == Type::True ? "true" : f.type == Type::False ? "false" : "null";
  }
  return f;
}

void expect_fields(const PlainLine& p, const std::vector<GeneratedField>& fields) {
  RC_ASSERT(p.size == fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const PlainField& got = p.fields[i];
    RC_ASSERT(got.key == fields[i].key);
    RC_ASSERT(got.value.type == fields[i].type);
    if (fields[i].type == Type::Integer || fields[i].type == Type::String)
      RC_ASSERT(got.value.text == fields[i].text);
    if (fields[i].type != Type::Integer) continue;
    const std::string& t = fields[i].text;
    const size_t digits = t.size() - (t[0] == '-');
    int64_t x = 0;
    std::from_chars(t.data(), t.data() + t.size(), x);
    RC_ASSERT(got.value.small == (digits <= 18 ? std::optional<int64_t>(x) : std::nullopt));
  }
}

RC_GTEST_PROP(PlainLineProperties, SplitsAnyPlainLineIntoItsFields, ()) {
  auto fields = *rc::gen::container<std::vector<GeneratedField>>(
      static_cast<size_t>(*rc::gen::inRange(1, 12)), rc::gen::exec(gen_field));
  for (size_t i = 0; i < fields.size(); ++i)  // a key once (the reader asks no more here)
    fields[i].key += std::to_string(i);
  PlainLine p;  // its fields are views of the line split
  const std::string first = line_of(fields);
  RC_ASSERT(split_plain_line(first, p));
  expect_fields(p, fields);
  // One byte of a string or key that a plain string cannot hold: not plain.
  std::vector<size_t> quoted;
  bool in = false;
  for (size_t i = 0; i < first.size(); ++i) {
    if (first[i] == '"')
      in = !in;
    else if (in)
      quoted.push_back(i);
  }
  std::string line = first;
  if (quoted.empty()) return;
  line[*rc::gen::elementOf(quoted)] = *rc::gen::element('\\', '\t', '\x7f', '\xc3', '\0');
  RC_ASSERT(!split_plain_line(line, p));
}

// Every event of `text` as the writer writes it back, or the fault that stopped the reading.
std::vector<std::string> read_back(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  try {
    Reader r(in, "t.jsonl");
    for (Event e; r.next(e);) out.push_back(event_line(e));
  } catch (const InputError& err) {
    out.push_back(std::string("fault: ") + err.what());
  }
  return out;
}

void expect_both_paths_agree(const std::string& text) {
  const std::vector<std::string> lines = testing::lines_of(text);
  ASSERT_GT(lines.size(), 1u);
  std::vector<std::string> spaced_lines = {lines[0]};
  for (size_t i = 1; i < lines.size(); ++i) spaced_lines.push_back(testing::spaced(lines[i]));
  const std::vector<std::string> plain = read_back(text);
  EXPECT_EQ(plain.size() + 1, lines.size());  // every event read
  EXPECT_EQ(plain, read_back(testing::join_lines(spaced_lines)));
}

TEST(PlainLine, EveryFixtureReadsAsSimdjsonReadsIt) {
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(VLAG_FIXTURES)) {
    if (f.path().extension() != ".jsonl") continue;
    std::ifstream in(f.path());
    std::stringstream text;
    text << in.rdbuf();
    SCOPED_TRACE(f.path().string());
    expect_both_paths_agree(text.str());
    ++files;
  }
  EXPECT_GT(files, 10);
}

TEST(PlainLine, TracesOfBothArithmeticsReadAsSimdjsonReadsThem) {
  expect_both_paths_agree(testing::demo_trace("linux-6.18", 50'000'000));
  expect_both_paths_agree(testing::demo_trace("paper-1", 20'000'000));  // "p/q" strings
}

// A plain line with a fault is the same fault, named the same, as its simdjson reading.
TEST(PlainLine, AFaultIsNamedAsSimdjsonNamesIt) {
  const std::string header =
      R"({"format":"vlag-trace","version":2,"clock":"ns","producer":"t","preset":"linux-6.18","cpus":1,"hz":250})";
  const std::string task = R"({"t":0,"ev":"new","task":1,"weight":1024,"slice":0})";
  for (const std::string line : {
           R"({"t":0,"ev":"tick","t":5})",                         // a key twice
           R"({"t":0,"ev":"teleport"})",                           // an unknown event
           R"({"t":"soon","ev":"tick"})",                          // a type
           R"({"t":0,"ev":"run","delta":99999999999999999999})",   // beyond 64 bits
           R"({"t":0,"ev":"new","task":1,"weight":1,"slice":0})",  // a range
           R"({"t":0,"ev":"wakeup","task":1,"weight":null})",      // null outside new
           R"({"t":0,"ev":"wakeup","task":1,"v":"1/0"})",          // not an exact number
           R"({"t":0,"ev":"wakeup","task":1,"status":"dozing"})",  // an unknown status
           R"({"t":0,"ev":"wakeup"})",                             // a field missing
           R"({"t":0,"ev":"wakeup","task":1,"elig":1})",           // not a boolean
       }) {
    const std::string text = header + "\n" + task + "\n" + line + "\n";
    const std::vector<std::string> plain = read_back(text);
    ASSERT_EQ(plain.size(), 2u) << line;
    EXPECT_EQ(plain.back().rfind("fault: t.jsonl:3: ", 0), 0u) << plain.back();
    EXPECT_EQ(plain, read_back(header + "\n" + task + "\n" + testing::spaced(line) + "\n")) << line;
  }
}

}  // namespace
}  // namespace vlag::trace
