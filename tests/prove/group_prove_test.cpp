// `vlag prove --groups` (smt/detail/group_system.cpp): a two-level hierarchy on one CPU, two
// groups of one and two tasks. Small proofs close by induction with the hierarchy's lemmas; a
// counterexample where the preset does not promise the ID (a cpu.weight write under
// linux-6.6's keep-v reweight) is replayed by the reference hierarchy and flagged by the
// checker with that ID alone; a broken walk-up is caught. The step-by-step agreement of the
// symbolic hierarchy is tests/smt/group_agreement_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "checker/report.h"
#include "prove/prove.h"
#include "prove/replay.h"
#include "reference/hierarchy.h"
#include "tests/support/trace_helpers.h"

namespace vlag::prove {
namespace {

Options group_options(const std::string& preset, const std::string& id, int depth,
                      std::vector<int> groups = {1, 2}) {
  Options o;
  o.params = make_params(preset_by_name(preset));
  o.invariant = id;
  o.depth = depth;
  o.groups = std::move(groups);
  o.tasks = 0;
  for (int n : o.groups) o.tasks += n;
  return o;
}

// The hierarchy's own IDs and §6's, on every level, close at k = 1 under linux-6.6 and paper-1
// (the assumption of INV-GROUP-QUEUED, the one-CPU shares rule, the running path and
// L-SEQ-DISTINCT at every level carries them).
TEST(ProveGroups, SmallProofsCloseByInduction) {
  for (const char* preset : {"paper-1", "linux-6.6"})
    for (const char* id : {"INV-GROUP-QUEUED", "INV-GROUP-SHARES", "INV-LAG-SUM",
                           "INV-ELIGIBLE-EXISTS", "INV-PLACE-LAG"}) {
      const Result r = run(group_options(preset, id, 2), nullptr, nullptr);
      EXPECT_EQ(r.verdict, Verdict::Proved) << preset << " " << id << ": " << r.note;
      EXPECT_EQ(r.method, "k-induction") << preset << " " << id;
    }
}

// Under linux-6.18 (delayed dequeue: a group's pick may complete its last tasks' dequeues and
// find nothing, and the pick starts again at the root) INV-GROUP-QUEUED still closes.
TEST(ProveGroups, GroupQueuedIsProvedWithDelayedDequeue) {
  const Result r = run(group_options("linux-6.18", "INV-GROUP-QUEUED", 2), nullptr, nullptr);
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.note;
}

// linux-6.6 reweights keeping v (SPEC.md §4.8), which moves V; a cpu.weight write reweights the
// group entity on the root, so a group entity with lag whose group's weight changes breaks
// INV-REWEIGHT on the root runqueue: expected, as the preset does not promise it.
TEST(ProveGroups, CpuWeightWriteUnderKeepVIsAnExpectedCounterexample) {
  Options o = group_options("linux-6.6", "INV-REWEIGHT", 5, {1, 1});
  o.weights = {1024};
  o.group_weights = {1024, 3121};
  o.induction = false;
  const Result r = run(o, nullptr, nullptr);
  ASSERT_EQ(r.verdict, Verdict::Counterexample) << r.note;
  const Counterexample& c = *r.cex;
  EXPECT_FALSE(c.promised);
  EXPECT_TRUE(c.reference_agrees) << c.detail;
  EXPECT_EQ(c.detail.rfind("rq 0: ", 0), 0u) << c.detail;  // on the root runqueue
  EXPECT_TRUE(reference::is_group_entity(c.ops.back().se)) << to_string(c.ops.back());
  std::ostringstream trace;
  write_trace(o, c.ops, trace);
  // The trace carries the hierarchy: a runqueue line per group, the write named on it.
  EXPECT_NE(trace.str().find("\"ev\":\"runqueue\",\"rq\":2"), std::string::npos) << trace.str();
  EXPECT_NE(trace.str().find("\"ev\":\"reweight\""), std::string::npos) << trace.str();
  const checker::Report report = testing::check_text(trace.str());
  std::vector<std::string> failing;
  for (const auto& [id, st] : report.stats)
    if (st.violated > 0 || st.not_promised > 0) failing.push_back(id);
  // INV-REWEIGHT alone, not promised; INV-GROUP-SHARES takes the written S_G from the trace.
  EXPECT_EQ(failing, std::vector<std::string>{"INV-REWEIGHT"}) << trace.str();
  EXPECT_EQ(report.stats.at("INV-REWEIGHT").not_promised, 1) << trace.str();
  EXPECT_GT(report.stats.at("INV-GROUP-SHARES").checked, 0) << trace.str();
}

// Without the walk-up that dequeues a group entity with its runqueue's last task, the proof of
// INV-GROUP-QUEUED fails at once (a wakeup and a sleep); the reference, unbroken, disagrees.
TEST(ProveGroups, BrokenWalkUpGivesGroupQueuedCounterexample) {
  Options o = group_options("linux-6.6", "INV-GROUP-QUEUED", 3);
  o.mutation = Mutation::NoGroupDequeue;
  const Result r = run(o, nullptr, nullptr);
  ASSERT_EQ(r.verdict, Verdict::Counterexample) << r.note;
  EXPECT_EQ(r.depth, 2);
  EXPECT_EQ(r.cex->ops.back().kind, OpKind::Dequeue);
  EXPECT_FALSE(r.cex->reference_agrees);
}

TEST(ProveGroups, RejectsWhatTheHierarchyDoesNotEncode) {
  Options o = group_options("linux-6.6", "INV-GROUP-QUEUED", 2);
  EXPECT_NO_THROW(validate(o));
  o.groups.clear();
  o.tasks = 2;
  EXPECT_THROW(validate(o), Error);  // a hierarchy's ID without a hierarchy
  o = group_options("paper-1", "THM-LAG-BOUND", 2);
  EXPECT_THROW(validate(o), Error);  // the steady driver is one runqueue's
  o = group_options("linux-6.6", "INV-LAG-SUM", 2);
  o.tasks = 2;
  EXPECT_THROW(validate(o), Error);  // --tasks is the sum of --groups
  o = group_options("linux-6.6", "INV-LAG-SUM", 2, {1, 4});
  EXPECT_THROW(validate(o), Error);
  o = group_options("linux-6.6", "INV-LAG-SUM", 2);
  o.groups.clear();
  o.tasks = 2;
  o.mutation = Mutation::NoGroupDequeue;
  EXPECT_THROW(validate(o), Error);  // a hierarchy's mutation without a hierarchy
}

}  // namespace
}  // namespace vlag::prove
