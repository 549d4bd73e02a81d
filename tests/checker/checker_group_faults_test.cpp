// `vlag check` on traces of task groups (SPEC.md §10, spec/TRACE.md §7): every planted fault of
// tests/fixtures/ moved into a group runqueue — each runqueue's tasks under a group entity of
// its CPU's root, the group runqueue declared and the entity woken and picked with its first
// task — is caught with its ID on that group runqueue, confirmed by Z3, while INV-GROUP-QUEUED
// and INV-GROUP-SHARES hold on the same trace; and a clean `vlag sim --cgroup` run, under the
// EEVDF and both CFS policies, passes with both group IDs judged, its mutations caught, its
// multi-CPU run judged where it can be and noted where it cannot.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "checker/run.h"
#include "sim/cgroups.h"
#include "sim/policy.h"
#include "sim/scenario.h"
#include "spec/error.h"
#include "spec/properties.h"
#include "spec/weights.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/planted_faults.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_helpers.h"

namespace vlag::checker {
namespace {

// A fixture's tasks in group runqueues: root runqueue r's events go to runqueue 100 + r, owned
// by group entity 1000 + r of group /g on r.
constexpr RunqueueId kGroupRqBase = 100;
constexpr EntityId kGroupEntityBase = 1000;

struct GroupFixture {
  std::string text;
  std::map<int64_t, int64_t> line_of;  // the fixture's line → the moved trace's
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string read_fixture(const char* name) {
  return slurp(std::string(VLAG_FIXTURES) + "/" + name);
}

int64_t field(const std::string& line, const std::string& name, int64_t otherwise) {
  std::smatch m;
  if (std::regex_search(line, m, std::regex("\"" + name + "\":(-?[0-9]+)")))
    return std::stoll(m[1]);
  return otherwise;
}

GroupFixture in_group_runqueues(const std::string& text) {
  const std::vector<std::string> lines = testing::lines_of(text);
  GroupFixture out;
  std::vector<std::string> moved;
  const bool window = lines.at(0).find("\"window\":true") != std::string::npos;
  const auto add = [&](std::string l) { moved.push_back(std::move(l)); };
  const auto declare = [&](int64_t root, int64_t cpu) {
    add(fmt::format(
        R"({{"t":0,"ev":"runqueue","rq":{},"cpu":{},"group":"/g","parent":{},"se":{}}})",
        kGroupRqBase + root, cpu, root, kGroupEntityBase + root));
    if (!window)
      add(fmt::format(
          R"({{"t":0,"ev":"new","rq":{},"se":{},"weight":1024,"slice":0,"group":"/g"}})", root,
          kGroupEntityBase + root));
  };
  add(std::regex_replace(lines.at(0), std::regex("\"version\":1"), "\"version\":2"));
  out.line_of[1] = 1;
  const bool declared = text.find("\"ev\":\"runqueue\"") != std::string::npos;
  if (!declared) declare(0, 0);
  std::map<int64_t, bool> woken;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.find("\"ev\":\"runqueue\"") != std::string::npos) {
      add(l);
      out.line_of[static_cast<int64_t>(i) + 1] = static_cast<int64_t>(moved.size());
      declare(field(l, "rq", 0), field(l, "cpu", 0));
      continue;
    }
    const int64_t root = field(l, "rq", 0);
    std::string m = l.find("\"rq\":") != std::string::npos
                        ? std::regex_replace(l, std::regex("\"rq\":[0-9]+"),
                                             "\"rq\":" + std::to_string(kGroupRqBase + root))
                        : "{\"rq\":" + std::to_string(kGroupRqBase + root) + "," + l.substr(1);
    add(m);
    out.line_of[static_cast<int64_t>(i) + 1] = static_cast<int64_t>(moved.size());
    if (!window && l.find("\"ev\":\"wakeup\"") != std::string::npos && !woken[root]) {
      woken[root] = true;
      const int64_t t = field(l, "t", 0);
      add(fmt::format(R"({{"t":{},"ev":"wakeup","rq":{},"se":{}}})", t, root,
                      kGroupEntityBase + root));
      add(fmt::format(R"({{"t":{},"ev":"pick","rq":{},"se":{}}})", t, root,
                      kGroupEntityBase + root));
    }
  }
  out.text = testing::join_lines(moved);
  return out;
}

bool has_note(const Report& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// The §6 IDs `vlag check` judges whose fixtures hold their tasks on root runqueues (that of
// INV-KERNEL-SUMS has its fault in a group runqueue already: checker_runqueues_test.cpp).
std::vector<testing::Planted> section6_faults() {
  std::vector<testing::Planted> out;
  for (const testing::Planted& p : testing::kPlanted)
    if (property(p.id).section == std::string("6") && p.id != std::string(ids::kInvKernelSums))
      out.push_back(p);
  return out;
}

class FaultInAGroup : public ::testing::TestWithParam<testing::Planted> {};

TEST_P(FaultInAGroup, IsCaughtWithItsIdOnTheGroupRunqueue) {
  const testing::Planted& planted = GetParam();
  const GroupFixture g = in_group_runqueues(read_fixture(property(planted.id).fixture));
  const int64_t line = g.line_of.at(planted.line);
  CheckOptions options;
  options.max_evidence = Report::kMaxKept;
  const Report r = check({text_source("group.jsonl", g.text)}, options);
  EXPECT_EQ(r.problem_count, 0) << g.text;

  const Violation* found = nullptr;
  for (const Violation& v : r.violations)
    if (v.id == planted.id && v.line == line) found = &v;
  ASSERT_NE(found, nullptr) << "no " << planted.id << " at line " << line << " of\n" << g.text;
  EXPECT_EQ(found->z3_sat, std::optional<bool>(true)) << found->detail;
  const bool across = planted.id == std::string(ids::kInvMigrateLag) ||
                      planted.id == std::string(ids::kInvOneRunqueue);
  if (across) {  // a rule across runqueues names them in its detail
    EXPECT_NE(found->detail.find("rq " + std::to_string(kGroupRqBase)), std::string::npos)
        << found->detail;
  } else {
    EXPECT_EQ(found->rq, std::optional<RunqueueId>(kGroupRqBase)) << found->detail;
  }
  // Nothing of the hierarchy is at fault: its rules hold wherever they are judged.
  for (const Violation& v : r.violations) {
    EXPECT_NE(v.id, ids::kInvGroupQueued) << v.detail;
    EXPECT_NE(v.id, ids::kInvGroupShares) << v.detail;
  }
  if (property(planted.id).judged.windowed && g.text.find("\"window\":true") != std::string::npos) {
    EXPECT_TRUE(has_note(r, "a window holds one runqueue's state"));
    return;
  }
  EXPECT_GT(r.stats.at(ids::kInvGroupQueued).checked, 0);
  if (across) {
    EXPECT_TRUE(has_note(r, std::string(ids::kInvGroupShares) + " not judged")) << g.text;
  } else {
    EXPECT_GT(r.stats.at(ids::kInvGroupShares).checked, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FaultInAGroup, ::testing::ValuesIn(section6_faults()),
                         [](const auto& info) {
                           std::string name = info.param.id;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// The two group IDs' own fixtures: the fault is named on the group runqueue, and a fixed trace
// holds.
TEST(GroupFixtures, NameTheGroupRunqueue) {
  for (const char* id : {ids::kInvGroupQueued, ids::kInvGroupShares}) {
    const Report r = testing::check_text(read_fixture(property(id).fixture));
    ASSERT_EQ(r.stats.at(id).violated, 1) << id;
    for (const Violation& v : r.violations) {
      if (v.id != id) continue;
      EXPECT_EQ(v.rq, std::optional<RunqueueId>(1)) << v.detail;
      EXPECT_NE(v.detail.find("group /a: its entity 100 on rq 0"), std::string::npos) << v.detail;
    }
  }
}

TEST(GroupFixtures, HoldOnceTheFaultIsRepaired) {
  // The group entity leaves with its last task; its weight stays S_G.
  std::string queued = read_fixture(property(ids::kInvGroupQueued).fixture);
  queued += R"({"t":1000000,"ev":"sleep","se":100})"
            "\n";
  std::string shares = read_fixture(property(ids::kInvGroupShares).fixture);
  shares = std::regex_replace(shares, std::regex("\"weight\":2048"), "\"weight\":1024");
  for (const std::string& text : {queued, shares}) {
    const Report r = testing::check_text(text);
    EXPECT_EQ(r.stats.at(ids::kInvGroupQueued).violated, 0) << text;
    EXPECT_EQ(r.stats.at(ids::kInvGroupShares).violated, 0) << text;
    EXPECT_EQ(r.stats.at(ids::kInvGroupQueued).checked, 2) << text;  // the end of t = 0 and 1 ms
  }
}

// A group entity that arrives by `attach`, its `new` in no trace at hand: its shares are not
// judged, with the reason; whether it is queued still is.
TEST(GroupFixtures, SharesOfAnEntityWithoutItsNewAreNotJudged) {
  std::string text = read_fixture(property(ids::kInvGroupShares).fixture);
  text = std::regex_replace(text,
                            std::regex(R"(\{"t":0,"ev":"new","se":100,"weight":1024,"slice":0,)"
                                       R"("group":"/a"\})"),
                            R"({"t":0,"ev":"attach","se":100,"weight":1024,"slice":0,"vlag":0})");
  ASSERT_NE(text.find("attach"), std::string::npos);
  const Report r = testing::check_text(text);
  EXPECT_EQ(r.stats.count(ids::kInvGroupShares) ? r.stats.at(ids::kInvGroupShares).checked : 0, 0);
  EXPECT_EQ(r.stats.at(ids::kInvGroupQueued).checked, 2);
  EXPECT_TRUE(has_note(r,
                       "INV-GROUP-SHARES not judged at 2 state(s) of a group whose shares S_G "
                       "are unknown (weight unknown"))
      << testing::join_lines(r.notes);
}

// A reconstruction from kernel tracepoints: the kernel weighs group entities by PELT averages,
// so the planted weight is not judged against the instantaneous rule.
TEST(GroupFixtures, SharesOfAKernelReconstructionAreNotJudged) {
  std::string text = read_fixture(property(ids::kInvGroupShares).fixture);
  text.replace(text.find("\"cpus\":1"), 8, "\"cpus\":1,\"kernel_reconstruction\":true");
  const Report r = testing::check_text(text);
  EXPECT_EQ(r.stats.count(ids::kInvGroupShares) ? r.stats.at(ids::kInvGroupShares).checked : 0, 0);
  EXPECT_EQ(r.stats.at(ids::kInvGroupQueued).checked, 2);
  EXPECT_TRUE(has_note(r,
                       "INV-GROUP-SHARES not judged at 2 state(s) (weight unknown): a "
                       "reconstruction from kernel tracepoints"))
      << testing::join_lines(r.notes);
}

// The fixture's reweight of the group entity, named as a write of its group's cpu.weight
// (TRACE.md §7): S_G is 2048 from then on, so the same weight holds; a task's reweight may not
// name a group.
TEST(GroupFixtures, ACpuWeightWriteGivesTheSharesFromThenOn) {
  std::string text = read_fixture(property(ids::kInvGroupShares).fixture);
  const std::string reweight = R"({"t":1000000,"ev":"reweight","se":100,"weight":2048)";
  const size_t at = text.find(reweight);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + reweight.size(), R"(,"group":"/a")");
  const Report r = testing::check_text(text);
  ASSERT_TRUE(r.stats.count(ids::kInvGroupShares));
  EXPECT_GT(r.stats.at(ids::kInvGroupShares).checked, 0);
  EXPECT_EQ(r.stats.at(ids::kInvGroupShares).violated, 0) << testing::join_lines(r.notes);
  std::string task = read_fixture(property(ids::kInvGroupShares).fixture);
  task += R"({"t":2000000,"ev":"reweight","rq":1,"task":1,"weight":2048,"group":"/a"})"
          "\n";
  EXPECT_THROW(testing::check_text(task), Error);
}

// ---------------------------------------------------------------------------------------------
// `vlag sim --cgroup a:weight=100 --cgroup b:weight=100`: one hog in /a, three in /b.

sim::ScenarioConfig one_against_three(sim::Policy policy, int cpus, const std::string& dir) {
  sim::ScenarioConfig c;
  c.machine = testing::test_machine(cpus, sim::Placement::Prev, dir);
  c.machine.policy = policy;
  c.workload = "hogs";
  c.tasks = 4 * cpus;
  c.limit_ns = 1'000'000'000;
  c.machine.cgroups = {sim::parse_cgroup_spec("a:weight=100,tasks=" + std::to_string(cpus)),
                       sim::parse_cgroup_spec("b:weight=100,tasks=" + std::to_string(3 * cpus))};
  return c;
}

// Every policy puts group entities on their parents' runqueues and weighs them by the shares
// rule: EEVDF as SPEC.md §10, the CFS ones as v6.5 (§8.6), so the group IDs judge all three.
class GroupSim : public ::testing::TestWithParam<sim::Policy> {};

TEST_P(GroupSim, ACleanRunPassesWithEveryGroupIdJudged) {
  testing::TempDir dir;
  sim::run_scenario(one_against_three(GetParam(), 1, dir.path()));
  const Report r = check({file_source(dir.path() + "/cpu0.jsonl")}, {});
  EXPECT_EQ(r.problem_count, 0);
  EXPECT_EQ(r.violation_count, 0) << (r.violations.empty() ? "" : r.violations[0].detail);
  EXPECT_EQ(r.inconclusive_count(), 0);
  for (const char* id : {ids::kInvGroupQueued, ids::kInvGroupShares}) {
    ASSERT_TRUE(r.stats.count(id)) << id;
    // Every instant, for both groups: more than one judgment per tick of the 1 s run.
    EXPECT_GT(r.stats.at(id).checked, 2 * 250) << id;
    EXPECT_EQ(r.stats.at(id).held(), r.stats.at(id).checked) << id;
    EXPECT_FALSE(has_note(r, std::string(id) + " not judged")) << id;
  }
}

// The clean run broken twice: /b's entity created with twice its shares, and /a's entity left
// queued once its runqueue is emptied (its one hog dequeued, planted at the end).
TEST_P(GroupSim, ItsMutationsAreCaughtOnTheirGroupRunqueue) {
  testing::TempDir dir;
  sim::run_scenario(one_against_three(GetParam(), 1, dir.path()));
  const std::string clean = slurp(dir.path() + "/cpu0.jsonl");
  const auto declared = [&](const std::string& group, std::smatch& m) {
    return std::regex_search(
        clean, m,
        std::regex(R"(\{"t":0,"ev":"runqueue","rq":([0-9]+),"cpu":0,"group":")" + group +
                   R"(","parent":0,"se":([0-9]+)\})"));
  };
  std::smatch a, b;
  ASSERT_TRUE(declared("/a", a));
  ASSERT_TRUE(declared("/b", b));
  const std::string b_new = "\"ev\":\"new\",\"se\":" + b[2].str() + ",\"weight\":1024";
  ASSERT_NE(clean.find(b_new), std::string::npos);
  std::string heavy = clean;
  heavy.replace(heavy.find(b_new), b_new.size(),
                "\"ev\":\"new\",\"se\":" + b[2].str() + ",\"weight\":2048");
  const Report r = check({text_source("heavy.jsonl", heavy)}, {});
  ASSERT_GT(r.stats.at(ids::kInvGroupShares).violated, 0);
  for (const Violation& v : r.violations) {
    if (v.id == ids::kInvGroupShares) {
      EXPECT_EQ(v.rq, std::optional<RunqueueId>(std::stoll(b[1].str()))) << v.detail;
    }
  }

  // The last instant ends with /a's one hog (task 1) dequeued and its group entity still queued.
  std::vector<std::string> lines = testing::lines_of(clean);
  const int64_t end = field(lines.back(), "t", 0) + 1;
  lines.push_back(fmt::format(R"({{"t":{},"ev":"dequeue","rq":{},"task":1}})", end, a[1].str()));
  const Report q = check({text_source("queued.jsonl", testing::join_lines(lines))}, {});
  ASSERT_EQ(q.stats.at(ids::kInvGroupQueued).violated, 1);
  const Violation* v = nullptr;
  for (const Violation& x : q.violations)
    if (x.id == ids::kInvGroupQueued) v = &x;
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->line, static_cast<int64_t>(lines.size()));
  EXPECT_EQ(v->rq, std::optional<RunqueueId>(std::stoll(a[1].str())));
}

// Two CPUs: each CPU's trace has its INV-GROUP-QUEUED judged; the shares need the other CPU's
// loads, and a note says why they are not judged.
TEST_P(GroupSim, OnTwoCpusSharesAreNotedNotJudged) {
  testing::TempDir dir;
  sim::run_scenario(one_against_three(GetParam(), 2, dir.path()));
  const Report r = check(trace_sources(dir.path()), {});
  EXPECT_EQ(r.problem_count, 0);
  EXPECT_EQ(r.violation_count, 0) << (r.violations.empty() ? "" : r.violations[0].detail);
  EXPECT_GT(r.stats.at(ids::kInvGroupQueued).checked, 4 * 250);
  EXPECT_EQ(r.stats.count(ids::kInvGroupShares) ? r.stats.at(ids::kInvGroupShares).checked : 0, 0);
  EXPECT_TRUE(has_note(r, "INV-GROUP-SHARES not judged at")) << testing::join_lines(r.notes);
  EXPECT_TRUE(has_note(r, "2 CPUs: the shares rule reads the other CPUs' loads"))
      << testing::join_lines(r.notes);
}

INSTANTIATE_TEST_SUITE_P(Policies, GroupSim,
                         ::testing::Values(sim::Policy::Eevdf, sim::Policy::Cfs,
                                           sim::Policy::CfsLatencyNice),
                         [](const auto& info) {
                           std::string name(sim::policy_name(info.param));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// A CFS group entity's slice is its share of the whole hierarchy's sched_period, which grows with
// the tasks: alone at the root, hackbench's 320 tasks in one cgroup give it 240 ms and more, past
// the 100 ms of an EEVDF slice. The trace the simulator writes is read back and passes, with both
// group IDs judged at every instant (the reader once rejected its `r` as out of range).
TEST(GroupSimCfs, AGroupEntitysLongSliceIsReadAndItsTracePasses) {
  testing::TempDir dir;
  sim::ScenarioConfig c;
  c.machine = testing::test_machine(1, sim::Placement::Prev, dir.path());
  c.machine.policy = sim::Policy::Cfs;
  c.workload = "hackbench";
  c.limit_ns = 50'000'000;
  c.machine.cgroups = {sim::parse_cgroup_spec("hb:weight=100,workload=hackbench")};
  sim::run_scenario(c);
  const std::string text = slurp(dir.path() + "/cpu0.jsonl");
  int64_t max_r = 0;
  const std::regex slice(R"("r":([0-9]+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), slice);
       it != std::sregex_iterator(); ++it)
    max_r = std::max<int64_t>(max_r, std::stoll((*it)[1].str()));
  ASSERT_GT(max_r, kMaxCustomSliceNs);
  const Report r = check({file_source(dir.path() + "/cpu0.jsonl")}, {});
  EXPECT_EQ(r.problem_count, 0);
  EXPECT_EQ(r.violation_count, 0) << (r.violations.empty() ? "" : r.violations[0].detail);
  for (const char* id : {ids::kInvGroupQueued, ids::kInvGroupShares}) {
    ASSERT_TRUE(r.stats.count(id)) << id;
    EXPECT_GT(r.stats.at(id).checked, 1000) << id;
    EXPECT_EQ(r.stats.at(id).held(), r.stats.at(id).checked) << id;
  }
}

}  // namespace
}  // namespace vlag::checker
