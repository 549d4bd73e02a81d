#include "cli/json_out.h"

#include <gtest/gtest.h>

namespace vlag::cli {
namespace {

TEST(JsonOut, QuotesAndEscapesPerRfc8259) {
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("x\ny\t"), "\"x\\ny\\t\"");
  EXPECT_EQ(json_quote(std::string("\x01", 1)), "\"\\u0001\"");
}

TEST(JsonOut, BuildsNestedObjectsAndArrays) {
  JsonArray a;
  a.add(JsonObject().str("id", "SNAP-ELIGIBLE").num("line", 42).boolean("violation", true));
  a.add_string("note");
  const std::string doc = JsonObject().raw("items", a.text()).real("share", 0.5).text();
  EXPECT_EQ(doc,
            "{\"items\":[{\"id\":\"SNAP-ELIGIBLE\",\"line\":42,\"violation\":true},\"note\"],"
            "\"share\":0.5}");
}

}  // namespace
}  // namespace vlag::cli
