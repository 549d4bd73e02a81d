// Every test of the tree has a ctest timeout (tests/CMakeLists.txt, VLAG_TEST_TIMEOUT), so that a
// broken model that stops making progress fails the run instead of hanging it: ctest's own list
// of the build's tests, with their properties, must give each one a TIMEOUT.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdio>
#include <string>

namespace vlag {
namespace {

std::string command_output(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(Layout, EveryTestHasATimeout) {
  const std::string json = command_output(std::string("ctest --test-dir '") + VLAG_BUILD_DIR +
                                          "' --show-only=json-v1 2>/dev/null");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(simdjson::padded_string(json)).get(doc), simdjson::SUCCESS)
      << "ctest --show-only=json-v1 gave no JSON";
  simdjson::dom::array tests;
  ASSERT_EQ(doc["tests"].get(tests), simdjson::SUCCESS);
  size_t n = 0;
  for (simdjson::dom::element test : tests) {
    ++n;
    std::string_view name;
    ASSERT_EQ(test["name"].get(name), simdjson::SUCCESS);
    bool timeout = false;
    simdjson::dom::array properties;
    if (test["properties"].get(properties) == simdjson::SUCCESS)
      for (simdjson::dom::element p : properties) {
        std::string_view key;
        double seconds = 0;
        if (p["name"].get(key) == simdjson::SUCCESS && key == "TIMEOUT" &&
            p["value"].get(seconds) == simdjson::SUCCESS)
          timeout = seconds > 0;
      }
    EXPECT_TRUE(timeout) << name << " has no TIMEOUT";
  }
  EXPECT_GT(n, 100u) << "ctest lists too few tests to be this build's";
}

}  // namespace
}  // namespace vlag
