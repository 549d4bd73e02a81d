// `vlag check` on a simulated 2-CPU run as a whole (checker/machine.h): its per-CPU traces,
// merged by time, pass INV-MIGRATE-LAG and INV-ONE-RUNQUEUE (SPEC.md §6, §4.13) with migrations
// by wakeup placement and by load balancing; one planted fault per rule — a lag changed in
// transit, a task arriving before it left — is caught with its ID at its line; and the report
// of --jobs 2 is the one thread's, fault for fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "checker/machine.h"
#include "sim/schbench.h"
#include "spec/error.h"
#include "spec/properties.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_helpers.h"

namespace vlag::checker {
namespace {

namespace fs = std::filesystem;

// Six schbench workers on two CPUs, woken onto the idle one and balanced: tasks migrate both
// ways. The traces are written once, into a directory of their own.
const fs::path& run_dir() {
  static const testing::TempDir tmp;
  static const fs::path dir = [] {
    const fs::path d = tmp.path();
    sim::SchbenchConfig c;
    c.workers = 6;
    sim::Schbench w(c);
    sim::Machine m(testing::test_machine(2, sim::Placement::Idle, d.string()));
    const sim::MachineStats st = m.run(w, 500'000'000);
    EXPECT_GT(st.migrations - st.balance_migrations, 0);
    EXPECT_GT(st.balance_migrations, 0);
    return d;
  }();
  return dir;
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return testing::lines_of(text.str());
}

// The traces of the run with `edit` applied to one CPU's lines, in the directory `into`.
template <class Edit>
fs::path edited_run(const testing::TempDir& into, int cpu, Edit&& edit) {
  const fs::path d = into.path();
  for (int k = 0; k < 2; ++k) {
    const std::string file = "cpu" + std::to_string(k) + ".jsonl";
    std::vector<std::string> lines = lines_of(run_dir() / file);
    if (k == cpu) edit(lines);
    std::ofstream(d / file) << testing::join_lines(lines);
  }
  return d;
}

Report check_dir(const fs::path& d, int jobs = 1) {
  CheckOptions o;
  o.arbiter = false;
  o.jobs = jobs;
  return check(trace_sources(d.string()), o);
}

// Everything a report says, in one string, to compare two of them.
std::string all_of(const Report& r) {
  std::ostringstream out;
  out << r.events << " events, " << r.violation_count << " violations, " << r.problem_count
      << " problems\n";
  for (const auto& f : r.files) out << "file " << f << "\n";
  for (const auto& [id, s] : r.stats)
    out << id << " " << s.checked << " " << s.violated << " " << s.not_promised << " " << s.worst
        << " " << s.verdict << "\n";
  for (const auto& v : r.violations)
    out << v.file << ":" << v.line << " " << v.id << " " << v.detail << "\n";
  for (const auto& p : r.problems) out << "problem " << p.message << "\n";
  for (const auto& n : r.notes) out << "note " << n << "\n";
  return out.str();
}

size_t line_with(const std::vector<std::string>& lines, const std::string& part, size_t from = 0) {
  for (size_t i = from; i < lines.size(); ++i)
    if (lines[i].find(part) != std::string::npos) return i;
  ADD_FAILURE() << "no line with " << part;
  return lines.size();
}

int64_t time_of(const std::string& line) {
  return std::stoll(line.substr(line.find("\"t\":") + 4));
}

// The number a field of a line has.
std::string field_of(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":") + key.size() + 3;
  return line.substr(at, line.find_first_of(",}", at) - at);
}

// The detach line's vlag one more: the lag the task takes with it is not the one it left with.
void bump_vlag(std::string& line) {
  const std::string v = field_of(line, "vlag");
  const std::string from = "\"vlag\":" + v;
  line.replace(line.find(from), from.size(), "\"vlag\":" + std::to_string(std::stoll(v) + 1));
}

TEST(MachineCheck, TheRunsCpusAreOneMachine) {
  const std::vector<Source> sources = trace_sources(run_dir().string());
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(group_runs(sources), (std::vector<std::vector<size_t>>{{0, 1}}));
  // One CPU's stream checked alone is a run of its own, and judges nothing across runqueues.
  CheckOptions quiet;
  quiet.arbiter = false;
  const Report alone = check({sources[0]}, quiet);
  EXPECT_FALSE(alone.stats.contains(ids::kInvMigrateLag));
  EXPECT_FALSE(alone.stats.contains(ids::kInvOneRunqueue));
}

TEST(MachineCheck, ASimulatedRunWithMigrationsPasses) {
  const Report r = check_dir(run_dir());
  EXPECT_EQ(r.violation_count, 0) << (r.violations.empty() ? "" : r.violations[0].detail);
  EXPECT_EQ(r.problem_count, 0);
  EXPECT_GT(r.stats.at(ids::kInvMigrateLag).checked, 0);
  EXPECT_GT(r.stats.at(ids::kInvOneRunqueue).checked, r.stats.at(ids::kInvMigrateLag).checked);
  EXPECT_GT(r.stats.at(ids::kInvStep).checked, 0);
}

// The detach's vlag is what the other runqueue's attach must bring; the source runqueue does not
// see it again, so the planted change shows as INV-MIGRATE-LAG alone, at the attach.
TEST(MachineCheck, ALagChangedInTransitIsCaught) {
  int64_t attach_line = 0;
  std::string task;
  const testing::TempDir tmp;
  const fs::path d = edited_run(tmp, 0, [&](std::vector<std::string>& lines) {
    std::string& l = lines[line_with(lines, "\"ev\":\"detach\"")];
    task = field_of(l, "task");
    bump_vlag(l);
    const std::vector<std::string> other = lines_of(run_dir() / "cpu1.jsonl");
    for (size_t k = 0; k < other.size(); ++k)
      if (other[k].find("\"ev\":\"attach\",\"task\":" + task + ",") != std::string::npos &&
          time_of(other[k]) == time_of(l))
        attach_line = static_cast<int64_t>(k + 1);
  });
  ASSERT_GT(attach_line, 0);
  const Report r = check_dir(d);
  ASSERT_EQ(r.violation_count, 1) << all_of(r);
  const Violation& v = r.violations[0];
  EXPECT_EQ(v.id, ids::kInvMigrateLag);
  EXPECT_EQ(v.file, (d / "cpu1.jsonl").string());
  EXPECT_EQ(v.line, attach_line);
  EXPECT_NE(v.detail.find("task " + task + " arrives with vlag"), std::string::npos) << v.detail;
}

// A task CPU 0 creates at t = 0 is attached and detached again by CPU 1 at that instant: there,
// the task is on both. CPU 1's trace is consistent on its own (a sleeping visitor).
TEST(MachineCheck, ATaskOnTwoRunqueuesIsCaught) {
  const std::vector<std::string> cpu0 = lines_of(run_dir() / "cpu0.jsonl");
  const size_t created = line_with(cpu0, "\"ev\":\"new\"");
  const std::string task = field_of(cpu0[created], "task");
  ASSERT_EQ(time_of(cpu0[created]), 0);
  const testing::TempDir tmp;
  const fs::path d = edited_run(tmp, 1, [&](std::vector<std::string>& lines) {
    ASSERT_EQ(time_of(lines[1]), 0);
    lines.insert(lines.begin() + 1, {"{\"t\":0,\"ev\":\"attach\",\"task\":" + task +
                                         ",\"weight\":1024,\"slice\":0,\"vlag\":0}",
                                     "{\"t\":0,\"ev\":\"detach\",\"task\":" + task + "}"});
  });
  const Report r = check_dir(d);
  ASSERT_EQ(r.violation_count, 1) << all_of(r);
  const Violation& v = r.violations[0];
  EXPECT_EQ(v.id, ids::kInvOneRunqueue);
  EXPECT_EQ(v.file, (d / "cpu1.jsonl").string());
  EXPECT_EQ(v.line, 2);
  EXPECT_NE(v.detail.find("task " + task + " arrives on " + (d / "cpu1.jsonl").string()),
            std::string::npos)
      << v.detail;
  EXPECT_NE(v.detail.find("while it is on " + (d / "cpu0.jsonl").string() + " rq 0 since " +
                          (d / "cpu0.jsonl").string() + ":" + std::to_string(created + 1)),
            std::string::npos)
      << v.detail;
}

TEST(MachineCheck, JobsGiveTheSameReport) {
  const auto planted = [](std::vector<std::string>& l) {
    bump_vlag(l[line_with(l, "\"ev\":\"detach\"")]);
  };
  const testing::TempDir tmp;
  for (const fs::path& d : {run_dir(), edited_run(tmp, 0, planted)}) {
    const std::string one = all_of(check_dir(d, 1));
    EXPECT_EQ(all_of(check_dir(d, 2)), one) << d;
    EXPECT_EQ(all_of(check_dir(d, 8)), one) << d;
  }
}

// Of two faults in two traces, the one a single thread meets first is the one reported.
TEST(MachineCheck, JobsReportTheFaultOneThreadMeetsFirst) {
  const testing::TempDir tmp;
  const fs::path d = edited_run(tmp, 1, [](std::vector<std::string>& lines) {
    lines.insert(lines.begin() + static_cast<int64_t>(lines.size() / 2), "{\"t\":");  // late
  });
  {
    std::vector<std::string> cpu0 = lines_of(d / "cpu0.jsonl");
    cpu0.insert(cpu0.begin() + static_cast<int64_t>(cpu0.size() / 4), "not json");  // earlier
    std::ofstream(d / "cpu0.jsonl") << testing::join_lines(cpu0);
  }
  std::string one;
  try {
    check_dir(d, 1);
  } catch (const trace::InputError& e) {
    one = e.what();
  }
  ASSERT_NE(one.find("cpu0.jsonl"), std::string::npos) << one;
  try {
    check_dir(d, 2);
    ADD_FAILURE() << "no fault with --jobs 2";
  } catch (const trace::InputError& e) {
    EXPECT_EQ(e.what(), one);
  }
  // Under --keep-going both are counted, whatever the threads.
  CheckOptions keep;
  keep.arbiter = false;
  keep.keep_going = true;
  const Report a = check(trace_sources(d.string()), keep);
  keep.jobs = 2;
  EXPECT_EQ(all_of(check(trace_sources(d.string()), keep)), all_of(a));
  EXPECT_EQ(a.problem_count, 2);
}

TEST(MachineCheck, TwoTracesOfOneCpuAreBadInput) {
  const testing::TempDir tmp;
  const fs::path d = tmp.path();
  fs::copy_file(run_dir() / "cpu0.jsonl", d / "cpu0.jsonl");
  fs::copy_file(run_dir() / "cpu0.jsonl", d / "cpu0-again.jsonl");
  EXPECT_THROW(check_dir(d), trace::InputError);
  fs::create_directories(d / "empty");
  EXPECT_THROW(trace_sources((d / "empty").string()), Error);
}

}  // namespace
}  // namespace vlag::checker
