// The worst wakeups of a model trace, through kernel/model_tracepoints.h: on a simulated
// cyclictest beside hogs (one CPU, and two with migrations), the N worst are the N longest
// wakeup-to-pick delays that a direct reading of the trace finds, and what ran meanwhile adds up
// to each delay.
#include "kernel/model_tracepoints.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "kernel/worst_wakeups.h"
#include "sim/composite.h"
#include "sim/cyclictest.h"
#include "sim/hogs.h"
#include "sim/machine.h"
#include "tests/support/machine_helpers.h"
#include "tests/support/temp_dir.h"
#include "trace/reader.h"

namespace vlag::kernel {
namespace {

struct Delay {
  int64_t pid = 0, woken = 0, delay = 0;
};

// Every wakeup and the pick of its task that follows on its runqueue, read straight from the
// trace; a task that leaves the runqueue before its pick is not measured.
std::vector<Delay> direct_delays(const std::string& path) {
  std::ifstream in(path);
  trace::Reader r(in, path);
  std::map<int64_t, int64_t> woken;
  std::vector<Delay> out;
  while (const auto e = r.next()) {
    if (!e->task || (e->se && *e->se != *e->task)) continue;
    if (e->kind == trace::EventKind::Wakeup) woken[*e->task] = e->t;
    if (e->kind == trace::EventKind::Detach) woken.erase(*e->task);
    if (e->kind == trace::EventKind::Pick && woken.count(*e->task)) {
      out.push_back({*e->task, woken[*e->task], e->t - woken[*e->task]});
      woken.erase(*e->task);
    }
  }
  std::sort(out.begin(), out.end(), [](const Delay& a, const Delay& b) {
    return a.delay != b.delay ? a.delay > b.delay : a.woken < b.woken;
  });
  return out;
}

std::vector<WorstWakeup> through_tracepoints(const std::string& path, size_t n, int64_t& measured) {
  WorstWakeups worst(n);
  ModelTracepoints tp([&](const KernelEvent& k) { worst.on_event(k); },
                      [&](int64_t pid) { worst.forget(pid); });
  std::ifstream in(path);
  trace::Reader r(in, path);
  while (const auto e = r.next()) tp.on_event(*e, static_cast<int>(r.line()));
  auto out = worst.finish();
  measured = worst.measured();
  return out;
}

void expect_worst_match(const std::string& path) {
  const auto direct = direct_delays(path);
  ASSERT_GT(direct.size(), 50u) << path;
  int64_t measured = 0;
  const auto worst = through_tracepoints(path, 10, measured);
  EXPECT_EQ(measured, static_cast<int64_t>(direct.size())) << path;
  ASSERT_EQ(worst.size(), 10u);
  EXPECT_GT(worst.front().delay_ns, 0);
  for (size_t i = 0; i < worst.size(); ++i) {
    EXPECT_EQ(worst[i].delay_ns, direct[i].delay) << path << " #" << i;
    EXPECT_EQ(worst[i].pid, direct[i].pid) << path << " #" << i;
    int64_t meanwhile = 0;
    for (const auto& m : worst[i].meanwhile) meanwhile += m.ns;
    EXPECT_EQ(meanwhile + worst[i].unrecorded_ns, worst[i].delay_ns) << path << " #" << i;
    EXPECT_FALSE(worst[i].comm.empty());
  }
}

void simulate(int cpus, const std::string& dir) {
  sim::CyclictestConfig c;
  c.threads = 2;
  c.work_ns = 200'000;
  auto load = std::make_unique<sim::Composite>();
  load->add("cyclictest", std::make_unique<sim::Cyclictest>(c));
  load->add("background", std::make_unique<sim::Hogs>(3, sim::TaskOptions{}));
  sim::Machine m(testing::test_machine(cpus, sim::Placement::Idle, dir));
  m.run(*load, 200'000'000);
}

TEST(ModelTracepoints, TheWorstWakeupsOfAModelTraceAreItsLongestDelays) {
  const vlag::testing::TempDir tmp;
  simulate(1, tmp.path() + "/one");
  expect_worst_match(tmp.path() + "/one/cpu0.jsonl");
  simulate(2, tmp.path() + "/two");  // wakeups placed on an idle CPU: detaches and attaches
  for (const char* f : {"/two/cpu0.jsonl", "/two/cpu1.jsonl"}) expect_worst_match(tmp.path() + f);
}

}  // namespace
}  // namespace vlag::kernel
