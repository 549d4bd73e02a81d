// `vlag check`'s verdicts on the lattice of SPEC.md §6.3: on a trace rebuilt from a kernel's
// tracepoints a failed decision or state check is inconclusive (the rebuild is not the kernel's
// state), never a violation; a failure the preset does not promise is a not-applicable finding
// with its line, as `vlag prove` calls its counterexample "expected"; and what a report counts
// but does not keep is counted as left out.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "checker/run.h"
#include "kernel/import.h"
#include "kernel/perf_script.h"
#include "tests/support/trace_helpers.h"

namespace vlag::checker {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture(const std::string& name) {
  return read(std::string(VLAG_FIXTURES) + "/" + name);
}

// The header of `text` with "kernel_reconstruction":true added.
std::string as_reconstruction(std::string text) {
  const size_t end = text.find('}');
  text.insert(end, ",\"kernel_reconstruction\":true");
  return text;
}

TEST(CheckerVerdicts, AFailedPickOnAReconstructionIsInconclusiveNotViolated) {
  const std::string text = fixture("inv-pick-eligible.jsonl");
  const Report plain = testing::check_text(text);
  ASSERT_EQ(plain.stats.at("INV-PICK-ELIGIBLE").violated, 1);  // the control: a real violation
  EXPECT_EQ(plain.worst(), Verdict::Violated);

  const Report r = testing::check_text(as_reconstruction(text));
  EXPECT_EQ(r.violation_count, 0);
  const InvariantStats& st = r.stats.at("INV-PICK-ELIGIBLE");
  EXPECT_EQ(st.violated, 0);
  EXPECT_EQ(st.inconclusive, 1);
  EXPECT_EQ(st.inconclusive_by_reason[static_cast<size_t>(Reason::Reconstruction)], 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "INV-PICK-ELIGIBLE");
  EXPECT_EQ(r.findings[0].verdict, Verdict::Inconclusive);
  EXPECT_TRUE(r.findings[0].reasons.has(Reason::Reconstruction));
  EXPECT_EQ(r.findings[0].line, 8);
  EXPECT_EQ(r.worst(), Verdict::Inconclusive);
  EXPECT_EQ(verdict_exit_code(r.worst(), false), 0);
  EXPECT_EQ(verdict_exit_code(r.worst(), true), 1);
}

// A real capture of a correct kernel (40 hogs on CPU 1), imported and checked as `vlag kernel
// import | vlag check` does: its reconstruction's departures from the kernel are inconclusive.
TEST(CheckerVerdicts, AnImportedCaptureOfACorrectKernelHasNoViolation) {
  const std::string dir = std::string(VLAG_TEST_DATA) + "/linux/forty/";
  std::ifstream in(dir + "perf.txt");
  kernel::KernelImportOptions o;
  o.cpu = 1;
  o.machine_cpus = 2;
  kernel::KernelImporter importer(o, "forty");
  kernel::parse_perf_script(in, "forty",
                            [&](const kernel::KernelEvent& e) { importer.on_event(e); });
  std::ostringstream trace;
  importer.finish(trace);
  const Report r = testing::check_text(trace.str());
  EXPECT_EQ(r.violation_count, 0) << (r.violations.empty() ? "" : r.violations[0].detail);
  EXPECT_GT(r.inconclusive_count(), 0);  // the rebuild parts from the kernel: said, not hidden
  for (const Finding& f : r.findings) {
    EXPECT_EQ(f.verdict, Verdict::Inconclusive) << f.id << ": " << f.detail;
    EXPECT_TRUE(f.reasons.has(Reason::Reconstruction)) << f.id;
  }
}

// spec/results' counterexample of INV-REWEIGHT under linux-6.6 (keep-v: SPEC.md §4.8), which
// `vlag prove` reports as expected: the checker shows the same failure, not promised, at the
// reweight that breaks it, and the run still holds what the preset promises.
TEST(CheckerVerdicts, ProvesExpectedCounterexampleIsANotPromisedFinding) {
  const std::string path =
      std::string(VLAG_FIXTURES) + "/../../spec/results/" + "28-inv-reweight-linux-6.6.trace";
  const Report r = check({file_source(path)}, {});
  EXPECT_EQ(r.violation_count, 0);
  EXPECT_EQ(r.stats.at("INV-REWEIGHT").not_promised, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.id, "INV-REWEIGHT");
  EXPECT_EQ(f.verdict, Verdict::NotApplicable);
  EXPECT_TRUE(f.reasons.has(Reason::NotPromised));
  // The reweight is the trace's last event.
  const std::vector<std::string> lines = testing::lines_of(read(path));
  EXPECT_EQ(f.line, static_cast<int64_t>(lines.size()));
  EXPECT_NE(lines.back().find("\"reweight\""), std::string::npos);
  EXPECT_EQ(r.worst(), Verdict::Held);
}

// CPU hogs with one slice under linux-6.18 are a steady system of CPU-bound entities: the lag
// figure names its bound (r + TICK), and its sample is the demo's own largest |lag|.
TEST(CheckerVerdicts, ASteadyRunsLagFigureNamesItsBoundAndMatchesTheDemo) {
  const std::vector<sim::DemoTask> hogs = {{"a", 0}, {"b", 3}, {"c", -2}};
  const Params params = make_params(preset_by_name("linux-6.18"));
  std::ostringstream trace;
  trace::TraceObserver<reference::Num> tracer(trace, testing::header_for(params));
  const sim::DemoReport demo = sim::run_demo(params, hogs, 200'000'000, false, &tracer);
  double largest = 0;
  for (const auto& t : demo.tasks) largest = std::max({largest, -t.min_lag_ns, t.max_lag_ns});

  const Report r = testing::check_text(trace.str());
  const InvariantStats& st = r.stats.at("THM-LAG-BOUND-LINUX");
  EXPECT_FALSE(st.verdict);
  EXPECT_EQ(st.worst.find("no bound"), std::string::npos) << st.worst;
  EXPECT_NE(st.worst.find("(bound <= r + TICK = 4.700 ms)"), std::string::npos) << st.worst;
  const double bound = static_cast<double>(params.base_slice_ns() + params.tick_ns());
  EXPECT_NEAR(st.worst_ratio * bound, largest, 1e-6) << st.worst;
}

// More faulty lines than a report keeps: the count of all of them, and how many it left out.
TEST(CheckerVerdicts, ProblemsBeyondTheKeptOnesAreCountedAsLeftOut) {
  std::string text = "{\"format\":\"vlag-trace\",\"version\":2,\"preset\":\"linux-6.18\"}\n";
  const int64_t bad = static_cast<int64_t>(Report::kMaxKept) + 17;
  for (int64_t i = 0; i < bad; ++i) text += "{\"t\":0,\"ev\":\"teleport\"}\n";
  const Report r = testing::check_text(text, true);
  EXPECT_EQ(r.problem_count, bad);
  EXPECT_EQ(r.problems.size(), Report::kMaxKept);
  EXPECT_EQ(r.problems_left_out(), 17);
  EXPECT_EQ(r.problems.front().line, 2);
  EXPECT_EQ(r.problems.front().field, "ev");
}

}  // namespace
}  // namespace vlag::checker
