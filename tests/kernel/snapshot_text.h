// Captured sched debug snapshots (tests/data/linux) as text, and the one-field edits the
// kernel tests break or race them with.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace vlag::kernel::testing {

/// The text of tests/data/linux/NAME.
inline std::string linux_data(const std::string& name) {
  std::ifstream in(std::string(VLAG_TEST_DATA) + "/linux/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Replaces the first occurrence of `from` on or after the line containing `anchor`.
inline std::string edit(std::string text, const std::string& anchor, const std::string& from,
                        const std::string& to) {
  const size_t a = text.find(anchor);
  EXPECT_NE(a, std::string::npos) << anchor;
  const size_t line_start = text.rfind('\n', a) + 1;
  const size_t p = text.find(from, line_start);
  EXPECT_NE(p, std::string::npos) << from;
  return text.replace(p, from.size(), to);
}

}  // namespace vlag::kernel::testing
