#include "json/writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>

namespace vlag::json {
namespace {

TEST(JsonWriter, QuotesAndEscapesPerRfc8259) {
  EXPECT_EQ(quote("plain"), "\"plain\"");
  EXPECT_EQ(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quote("x\ny\t"), "\"x\\ny\\t\"");
  EXPECT_EQ(quote(std::string("\x01", 1)), "\"\\u0001\"");
}

TEST(JsonWriter, EscapesEveryControlCharacterInsteadOfDroppingIt) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string q = quote(std::string(1, static_cast<char>(c)));
    const std::string expected = c == '\n'   ? "\"\\n\""
                                 : c == '\r' ? "\"\\r\""
                                 : c == '\t' ? "\"\\t\""
                                             : fmt::format("\"\\u{:04x}\"", c);
    EXPECT_EQ(q, expected) << "character " << c;
  }
  // Bytes from 0x20 up, UTF-8 included, stay as they are.
  EXPECT_EQ(quote("± ~\x7f"), "\"± ~\x7f\"");
}

TEST(JsonWriter, BuildsNestedObjectsAndArrays) {
  Array a;
  a.add(Object().str("id", "SNAP-ELIGIBLE").num("line", 42).boolean("violation", true));
  a.add_string("note");
  const std::string doc = Object().array("items", a).real("share", 0.5).text();
  EXPECT_EQ(doc,
            "{\"items\":[{\"id\":\"SNAP-ELIGIBLE\",\"line\":42,\"violation\":true},\"note\"],"
            "\"share\":0.5}");
  EXPECT_EQ(Object().text(), "{}");
  EXPECT_EQ(Array().text(), "[]");
  EXPECT_EQ(Array().add(Array()).add(Object()).text(), "[[],{}]");
}

TEST(JsonWriter, NumbersReadBackAsTheSameValue) {
  EXPECT_EQ(Object()
                .num("min", std::numeric_limits<int64_t>::min())
                .num("max", std::numeric_limits<int64_t>::max())
                .text(),
            "{\"min\":-9223372036854775808,\"max\":9223372036854775807}");
  EXPECT_EQ(Object().real("a", 0.1).real("b", 1e300).real("c", -2.5).text(),
            "{\"a\":0.1,\"b\":1e+300,\"c\":-2.5}");
  // JSON has no infinities or NaN; a missing value is null too.
  EXPECT_EQ(Object()
                .real("inf", std::numeric_limits<double>::infinity())
                .real("nan", std::nan(""))
                .real("none", std::optional<double>())
                .real("some", std::optional<double>(3.0))
                .null("n")
                .raw("fixed", "1.250")
                .text(),
            "{\"inf\":null,\"nan\":null,\"none\":null,\"some\":3,\"n\":null,\"fixed\":1.250}");
}

TEST(JsonWriter, TextBeforeOpensALastMemberForAStreamedValue) {
  const Object o = Object().str("unit", "ns");
  EXPECT_EQ(o.text_before("events") + "[1,2]}", "{\"unit\":\"ns\",\"events\":[1,2]}");
  EXPECT_EQ(Object().text_before("events") + "[]}", "{\"events\":[]}");
}

TEST(JsonWriter, AppendAddsTheOtherObjectsMembersAfterItsOwn) {
  EXPECT_EQ(Object().str("a", "x").append(Object().num("b", 1).num("c", 2)).text(),
            "{\"a\":\"x\",\"b\":1,\"c\":2}");
  EXPECT_EQ(Object().append(Object().num("b", 1)).text(), "{\"b\":1}");
  EXPECT_EQ(Object().num("a", 1).append(Object()).text(), "{\"a\":1}");
  EXPECT_EQ(Object().num("a", 1).append_json(" {\"b\":[1,2]}\n").text(), "{\"a\":1,\"b\":[1,2]}");
  EXPECT_EQ(Object().num("a", 1).append_json("{}").text(), "{\"a\":1}");
  EXPECT_THROW(Object().append_json("[1]"), std::invalid_argument);
}

// Any string, ASCII or UTF-8 of any code point, reads back unchanged through a JSON parser, as a
// key and as a value.
RC_GTEST_PROP(JsonWriterProperties, StringsReadBackUnchanged, ()) {
  const std::vector<int> code_points = *rc::gen::container<std::vector<int>>(
      rc::gen::oneOf(rc::gen::inRange(0, 0x80), rc::gen::inRange(0x80, 0xd800),
                     rc::gen::inRange(0xe000, 0x110000)));
  std::string text;
  for (const int cp : code_points) {
    const auto u = static_cast<uint32_t>(cp);
    if (u < 0x80) {
      text += static_cast<char>(u);
    } else if (u < 0x800) {
      text += static_cast<char>(0xc0 | (u >> 6));
      text += static_cast<char>(0x80 | (u & 0x3f));
    } else if (u < 0x10000) {
      text += static_cast<char>(0xe0 | (u >> 12));
      text += static_cast<char>(0x80 | ((u >> 6) & 0x3f));
      text += static_cast<char>(0x80 | (u & 0x3f));
    } else {
      text += static_cast<char>(0xf0 | (u >> 18));
      text += static_cast<char>(0x80 | ((u >> 12) & 0x3f));
      text += static_cast<char>(0x80 | ((u >> 6) & 0x3f));
      text += static_cast<char>(0x80 | (u & 0x3f));
    }
  }
  const std::string doc = Object().str(text, text).num("n", 7).text();
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  RC_ASSERT(parser.parse(doc).get(o) == simdjson::SUCCESS);
  size_t members = 0;
  for (const auto field : o) {
    if (members++ == 0) {
      RC_ASSERT(std::string(field.key) == text);
      std::string_view value;
      RC_ASSERT(field.value.get(value) == simdjson::SUCCESS);
      RC_ASSERT(std::string(value) == text);
    }
  }
  RC_ASSERT(members == 2u);
}

}  // namespace
}  // namespace vlag::json
