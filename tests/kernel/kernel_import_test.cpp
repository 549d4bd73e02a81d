// `vlag kernel import`: a captured perf trace of one CPU becomes a spec/TRACE.md trace that the
// trace reader accepts, with the tasks, weights and decisions the kernel showed.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "kernel/import.h"
#include "kernel/perf_script.h"
#include "trace/reader.h"

namespace vlag::kernel {
namespace {

std::string import_cpu(const std::string& name, int cpu) {
  std::ifstream in(std::string(VLAG_TEST_DATA) + "/linux/" + name);
  std::ostringstream out;
  KernelImportOptions o;
  o.cpu = cpu;
  KernelImporter importer(o, name);
  parse_perf_script(in, name, [&](const KernelEvent& e) { importer.on_event(e); });
  importer.finish(out);
  return out.str();
}

TEST(KernelImport, HogsBecomeATraceWithTheirWeightsAndPicks) {
  const std::string text = import_cpu("hogs-nice.perf.txt", 1);
  std::istringstream in(text);
  trace::Reader reader(in, "hogs.jsonl");
  std::map<TaskId, int64_t> weight;
  int picks = 0;
  int64_t last_t = 0;
  while (const auto next = reader.next()) {
    const trace::Event& e = *next;
    EXPECT_GE(e.t, last_t);
    last_t = e.t;
    if (e.kind == trace::EventKind::New || e.kind == trace::EventKind::Reweight)
      weight[*e.task] = e.weight;
    if (e.kind == trace::EventKind::Pick && e.task) {
      ++picks;
      EXPECT_TRUE(weight.count(*e.task)) << "picked before its new event";
    }
  }
  // The three hogs end with the weights of nice 0, 2 and -3.
  EXPECT_EQ(weight.at(4973), 1024);
  EXPECT_EQ(weight.at(4974), 655);
  EXPECT_EQ(weight.at(4975), 1991);
  EXPECT_GT(picks, 400);
}

TEST(KernelImport, OtherCpusEventsStayOut) {
  const std::string text = import_cpu("hogs-nice.perf.txt", 0);  // traced with -C 1
  std::istringstream in(text);
  trace::Reader reader(in, "cpu0.jsonl");
  int picks = 0;
  while (const auto e = reader.next())
    if (e->kind == trace::EventKind::Pick) ++picks;
  EXPECT_EQ(picks, 0);
}

}  // namespace
}  // namespace vlag::kernel
