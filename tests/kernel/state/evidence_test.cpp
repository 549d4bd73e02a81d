// The evidence of a violation on the kernel's own numbers (kernel/state/evidence.h): with faults
// planted in a fixture, each violation's SMT-LIB2 file is sat by the z3 binary, and its window,
// read back as a capture, is violated with the same ID at its last record and is much shorter
// than the capture; the unplanted fixture writes nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "kernel/state/evidence.h"
#include "spec/properties.h"
#include "tests/kernel/state/state_fixtures.h"
#include "tests/support/temp_dir.h"

namespace vlag::kernel::state {
namespace {

std::string z3_first_line(const std::string& file) {
  FILE* p = popen(("z3 " + file + " 2>&1").c_str(), "r");
  if (!p) return "";
  char line[256] = {};
  const bool got = fgets(line, sizeof line, p) != nullptr;
  pclose(p);
  std::string s = got ? line : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// messaging-a with, at the first switch picking into a cfs_rq of several entities: the pick's
// deadline after every tree entity's, one tree entity 20 ms ahead, and sum_weight one off.
StateCapture planted() {
  StateCapture c = fixture("messaging-a");
  for (auto& r : c.records) {
    if (r.kind != bpf::RecordKind::Switch || !r.tasks[1].fair || r.queues.empty()) continue;
    auto& q = r.queues[0];
    if (q.level != 0 || q.truncated || q.entities.size() < 2) continue;
    for (auto& e : q.entities) e.deadline -= 50'000'000;  // earlier deadlines than the pick's
    q.entities[0].vruntime += 20'000'000;
    for (auto& e : r.tasks[1].chain)
      if (e.cfs_rq.id == q.cfs_rq) e.cfs_rq.sum_weight += 1;
  }
  return c;
}

TEST(StateEvidence, EachViolationGetsAZ3ConfirmedFileAndAWindow) {
  const testing::TempDir dir;
  const StateCapture c = planted();
  StateReport r = check_state_capture(c);
  ASSERT_GE(r.violations(), 3u);
  add_evidence(c, r, {dir.path(), 200, true});
  std::set<std::string> ids_with_evidence;
  for (const auto& [id, t] : r.tallies)
    for (const Witness& w : t.witnesses) {
      EXPECT_GE(w.lines.size(), 2u) << id << ": the witness lost its entities";
      if (w.smt_file.empty()) continue;
      ids_with_evidence.insert(id);
      EXPECT_EQ(w.z3_sat, std::optional<bool>(true)) << id << " " << w.z3_error;
      EXPECT_EQ(z3_first_line(w.smt_file), "sat") << w.smt_file;
      ASSERT_FALSE(w.window_file.empty()) << id << ": " << w.window_note;
      const StateCapture window = read_state_capture(w.window_file);
      EXPECT_LT(window.records.size(), c.records.size() / 4) << id;
      const StateReport again = check_state_capture(window);
      bool at_last = false;
      for (const Witness& x : again.find(id)->witnesses)
        at_last = at_last || x.record + 1 == window.records.size();
      EXPECT_TRUE(at_last) << id << " not shown again by " << w.window_file;
    }
  for (const char* id : {ids::kInvPickEdf, ids::kInvKernelSums, ids::kThmLagBoundLinux})
    EXPECT_TRUE(ids_with_evidence.contains(id)) << id;
}

TEST(StateEvidence, ACleanCaptureWritesNothing) {
  const testing::TempDir dir;
  const std::string out = dir.path() + "/evidence";
  StateReport r = check_state_capture(fixture("hogs"));
  add_evidence(fixture("hogs"), r, {out, 5, true});
  EXPECT_EQ(r.violations(), 0u);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace vlag::kernel::state
