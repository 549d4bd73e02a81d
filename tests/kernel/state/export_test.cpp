// A capture of the kernel's own state as spec/TRACE.md traces (kernel/state/export.h): every
// fixture of tests/data/linux-state/ gives one trace per cfs_rq that reads without a fault,
// says "source":"linux" and its runqueue, names its tasks, checks with no violation (what fails
// is inconclusive: kernel capture) and exports to Perfetto; and on such a trace a failed pick is
// inconclusive where the same trace from a model is violated.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel/state/export.h"
#include "tests/kernel/state/state_fixtures.h"
#include "tests/support/trace_helpers.h"
#include "trace/perfetto.h"
#include "trace/reader.h"

namespace vlag::kernel::state {
namespace {

class ExportFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(ExportFixture, EachCfsRqIsATraceThatChecksWithoutAViolation) {
  const std::vector<ExportedTrace> traces = export_state_traces(fixture(GetParam()));
  ASSERT_GE(traces.size(), 3u);
  uint64_t events = 0, named = 0;
  for (const ExportedTrace& t : traces) {
    std::istringstream in(t.text);
    trace::Reader reader(in, t.name);
    EXPECT_TRUE(reader.header().linux_source) << t.name;
    EXPECT_EQ(reader.header().runqueue, t.runqueue);
    EXPECT_TRUE(reader.header().window);
    events += t.events;
    named += t.text.find("\"name\":\"") != std::string::npos;
    const checker::Report r = testing::check_text(t.text);
    EXPECT_EQ(r.violation_count, 0) << t.name << ": "
                                    << (r.violations.empty() ? "" : r.violations[0].detail);
    for (const checker::Finding& f : r.findings) {
      if (f.verdict == Verdict::Inconclusive) {
        EXPECT_TRUE(f.reasons.has(Reason::KernelCapture)) << t.name << " " << f.id;
      }
    }
    std::istringstream again(t.text);
    trace::Reader perfetto_reader(again, t.name);
    std::ostringstream json;
    EXPECT_EQ(trace::export_perfetto(perfetto_reader, json).events,
              static_cast<int64_t>(t.events));
  }
  EXPECT_GE(events, 200u);
  EXPECT_GE(named, traces.size() / 2);
}

INSTANTIATE_TEST_SUITE_P(LinuxState, ExportFixture,
                         ::testing::Values("hogs", "renice", "sessions", "cgroups", "forks",
                                           "messaging-a"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

TEST(StateExport, AFailedPickOnTheKernelsNumbersIsInconclusiveNotViolated) {
  std::ifstream in(std::string(VLAG_FIXTURES) + "/inv-pick-eligible.jsonl");
  std::ostringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  ASSERT_EQ(testing::check_text(text).stats.at("INV-PICK-ELIGIBLE").violated, 1);  // control
  text.insert(text.find('}'), ",\"source\":\"linux\"");
  const checker::Report r = testing::check_text(text);
  EXPECT_EQ(r.violation_count, 0);
  const checker::InvariantStats& st = r.stats.at("INV-PICK-ELIGIBLE");
  EXPECT_EQ(st.inconclusive_by_reason[static_cast<size_t>(Reason::KernelCapture)], 1);
}

TEST(StateExport, ACaptureWithoutTheKernelsParametersIsRefused) {
  StateCapture c = fixture("hogs");
  c.kernel.reset();
  EXPECT_THROW(export_state_traces(c), Error);
}

}  // namespace
}  // namespace vlag::kernel::state
