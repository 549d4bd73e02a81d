// Shared by the simulator's task-group tests: every runqueue of every CPU's trace a run wrote
// with --trace-dir passes vlag check, with no trace problem and no violated invariant.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "checker/run.h"

namespace vlag::testing {

inline void expect_traces_pass(const std::string& dir, int cpus) {
  for (int k = 0; k < cpus; ++k) {
    const std::string path = dir + "/cpu" + std::to_string(k) + ".jsonl";
    const checker::Report rep = checker::check({checker::file_source(path)}, {});
    EXPECT_EQ(rep.problem_count, 0) << path;
    EXPECT_GT(rep.events, 1000) << path;
    for (const auto& [id, s] : rep.stats)
      if (id.rfind("INV-", 0) == 0) {
        EXPECT_EQ(s.violated, 0) << path << " " << id << ": " << s.worst;
      }
  }
}

}  // namespace vlag::testing
