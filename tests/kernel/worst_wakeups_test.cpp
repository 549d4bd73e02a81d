// `--worst N` (kernel/worst_wakeups.h): on hand-made traces, what it lists is worked out by hand;
// on captures — the binary fixtures' texts and captures of the suite, one CPU and all — the N
// worst wakeups it keeps while streaming are the N worst of an independent computation over the
// whole list of parsed events (run intervals per CPU, waits found by scanning forward), entry for
// entry with what ran meanwhile; and the CLI prints them, text and JSON, worst first.
#include "kernel/worst_wakeups.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "kernel/capture_reader.h"
#include "tests/kernel/shell_run.h"

namespace vlag::kernel {
namespace {

// An event at time t recorded on `cpu` about `pid`; its line is its time, so a test can name it.
KernelEvent event(KernelEventKind kind, int64_t t, int cpu, int64_t pid) {
  KernelEvent e;
  e.kind = kind;
  e.time_ns = t;
  e.cpu = cpu;
  e.pid = pid;
  e.comm = "t" + std::to_string(pid);
  e.line = static_cast<int>(t);
  return e;
}

KernelEvent sw(int64_t t, int cpu, int64_t prev, int64_t next,
               PrevState left = PrevState::Blocked) {
  KernelEvent e = event(KernelEventKind::Switch, t, cpu, next);
  e.prev_pid = prev;
  e.prev_comm = "t" + std::to_string(prev);
  e.prev_leave = left;
  return e;
}

KernelEvent wake(int64_t t, int on_cpu, int64_t pid, int target) {
  KernelEvent e = event(KernelEventKind::Wakeup, t, on_cpu, pid);
  e.target_cpu = target;
  return e;
}

KernelEvent migrate(int64_t t, int64_t pid, int from, int to) {
  KernelEvent e = event(KernelEventKind::Migrate, t, from, pid);
  e.orig_cpu = from;
  e.dest_cpu = to;
  return e;
}

std::vector<WorstWakeup> stream(const std::vector<KernelEvent>& events, size_t n,
                                std::optional<int> cpu = std::nullopt) {
  WorstWakeups w(n, cpu);
  for (const auto& e : events) w.on_event(e);
  return w.finish();
}

TEST(WorstWakeups, WhatRanMeanwhileOnItsQueue) {
  // cpu1: 10 runs from 100; 20 is woken at 200, 11 runs 300..600, 20 runs 600..650.
  const auto w =
      stream({sw(100, 1, 0, 10), wake(200, 1, 20, 1), sw(300, 1, 10, 11, PrevState::Runnable),
              sw(600, 1, 11, 20, PrevState::Runnable), sw(650, 1, 20, 10)},
             5);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].pid, 20);
  EXPECT_EQ(w[0].cpu, 1);
  EXPECT_EQ(w[0].line, 200);
  EXPECT_EQ(w[0].woken_ns, 200);
  EXPECT_EQ(w[0].switched_in_ns, 600);
  EXPECT_EQ(w[0].delay_ns, 400);
  EXPECT_EQ(w[0].run_ns, 50);
  ASSERT_EQ(w[0].meanwhile.size(), 2u);
  EXPECT_EQ(w[0].meanwhile[0].pid, 11);
  EXPECT_EQ(w[0].meanwhile[0].ns, 300);
  EXPECT_EQ(w[0].meanwhile[1].pid, 10);
  EXPECT_EQ(w[0].meanwhile[1].ns, 100);
  EXPECT_EQ(w[0].unrecorded_ns, 0);
}

TEST(WorstWakeups, FollowsMigrationsAndKeepsTheWorst) {
  // 30 woken onto cpu0 at 100 (10 runs there), moved to cpu1 at 400 (11 runs there), run at 500
  // on cpu1 until the end. 31 woken onto cpu1 at 600, run at 650: a shorter wait, dropped at N 1.
  const std::vector<KernelEvent> ev = {sw(50, 0, 0, 10),
                                       sw(60, 1, 0, 11),
                                       wake(100, 0, 30, 0),
                                       migrate(400, 30, 0, 1),
                                       sw(500, 1, 11, 30, PrevState::Runnable),
                                       wake(600, 0, 31, 1),
                                       sw(650, 1, 30, 31, PrevState::Runnable)};
  const auto all = stream(ev, 5);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].pid, 30);
  EXPECT_EQ(all[0].delay_ns, 400);
  EXPECT_EQ(all[0].run_ns, 150);
  ASSERT_EQ(all[0].meanwhile.size(), 2u);
  EXPECT_EQ(all[0].meanwhile[0].pid, 10);  // 100..400 on cpu0
  EXPECT_EQ(all[0].meanwhile[0].cpu, 0);
  EXPECT_EQ(all[0].meanwhile[0].ns, 300);
  EXPECT_EQ(all[0].meanwhile[1].pid, 11);  // 400..500 on cpu1
  EXPECT_EQ(all[0].meanwhile[1].ns, 100);
  EXPECT_EQ(all[1].pid, 31);
  EXPECT_EQ(all[1].delay_ns, 50);
  EXPECT_FALSE(all[1].run_ns);  // still running when the trace ends
  const auto one = stream(ev, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].pid, 30);
  EXPECT_EQ(stream(ev, 5, 0).size(), 0u);  // neither ran on cpu0
}

TEST(WorstWakeups, WhatItDoesNotMeasure) {
  // A running task's wakeup; a second wakeup of a waiting task (the first counts); a wait on a
  // CPU whose runner is unknown (unrecorded); a waiting task seen leaving (it ran unseen).
  const auto w = stream({sw(10, 0, 0, 5), wake(20, 1, 5, 0), wake(30, 0, 6, 1), wake(40, 0, 6, 1),
                         sw(90, 1, 0, 6), wake(100, 0, 7, 0), sw(120, 1, 7, 8)},
                        5);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].pid, 6);
  EXPECT_EQ(w[0].woken_ns, 30);
  EXPECT_EQ(w[0].delay_ns, 60);
  EXPECT_TRUE(w[0].meanwhile.empty());
  EXPECT_EQ(w[0].unrecorded_ns, 60);
}

// ---- the independent computation ------------------------------------------------------------

struct Run {
  size_t from, to;  // event indices: its switch-in and the next switch on its CPU (or the end)
  int64_t from_ns, to_ns;
  int64_t pid;
  std::string comm;
};

std::vector<WorstWakeup> all_wakeups(const std::vector<KernelEvent>& ev) {
  const size_t end = ev.size();
  std::map<int, std::vector<Run>> runs;  // per CPU, in order
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev[i].kind != KernelEventKind::Switch) continue;
    auto& r = runs[ev[i].cpu];
    if (!r.empty()) r.back().to = i, r.back().to_ns = ev[i].time_ns;
    r.push_back({i, end, ev[i].time_ns, INT64_MAX, ev[i].pid, ev[i].comm});
  }
  // A task runs from its switch-in until the next switch on that CPU or its own switch-out.
  const auto running_at = [&](int64_t pid, size_t i) {
    for (const auto& [cpu, rs] : runs)
      for (const Run& r : rs) {
        if (r.pid != pid || r.from >= i || r.to <= i) continue;
        bool left = false;
        for (size_t k = r.from + 1; k < i && !left; ++k)
          left = ev[k].kind == KernelEventKind::Switch && ev[k].prev_pid == pid;
        if (!left) return true;
      }
    return false;
  };
  std::vector<WorstWakeup> out;
  std::map<int64_t, size_t> busy_until;  // pid → index its wait ended at
  for (size_t i = 0; i < ev.size(); ++i) {
    const KernelEvent& e = ev[i];
    if ((e.kind != KernelEventKind::Wakeup && e.kind != KernelEventKind::WakeupNew) || e.pid == 0)
      continue;
    if (busy_until.count(e.pid) && busy_until[e.pid] > i) continue;
    if (running_at(e.pid, i)) continue;
    // Its queue's CPUs over the wait, and how it ended.
    std::vector<std::pair<int64_t, int>> queue = {{e.time_ns, e.target_cpu.value_or(e.cpu)}};
    size_t k = i + 1;
    for (; k < ev.size(); ++k) {
      const KernelEvent& f = ev[k];
      if (f.kind == KernelEventKind::Migrate && f.pid == e.pid && f.dest_cpu)
        queue.push_back({f.time_ns, *f.dest_cpu});
      if (f.kind == KernelEventKind::Switch && (f.pid == e.pid || f.prev_pid == e.pid)) break;
    }
    busy_until[e.pid] = k;
    if (k == ev.size() || ev[k].pid != e.pid) continue;  // never ran, or ran unseen
    const KernelEvent& in = ev[k];
    WorstWakeup w{.pid = e.pid,
                  .comm = in.comm,
                  .cpu = in.cpu,
                  .line = e.line,
                  .woken_ns = e.time_ns,
                  .switched_in_ns = in.time_ns,
                  .delay_ns = in.time_ns - e.time_ns,
                  .run_ns = std::nullopt,
                  .meanwhile = {},
                  .unrecorded_ns = 0};
    for (size_t j = k + 1; j < ev.size(); ++j)
      if (ev[j].kind == KernelEventKind::Switch && ev[j].cpu == in.cpu) {
        if (ev[j].prev_pid == e.pid) w.run_ns = ev[j].time_ns - in.time_ns;
        break;
      }
    std::map<std::pair<int, int64_t>, RanMeanwhile> ran;
    int64_t seen = 0;
    for (size_t q = 0; q < queue.size(); ++q) {
      const int64_t a = queue[q].first;
      const int64_t b = q + 1 < queue.size() ? queue[q + 1].first : in.time_ns;
      for (const Run& r : runs[queue[q].second]) {
        if (r.from > k) break;
        const int64_t ns = std::min(b, r.to_ns) - std::max(a, r.from_ns);
        if (ns <= 0) continue;
        RanMeanwhile& m = ran[{queue[q].second, r.pid}];
        m.pid = r.pid, m.cpu = queue[q].second, m.comm = r.comm;
        m.ns += ns;
        seen += ns;
      }
    }
    for (auto& [key, m] : ran) w.meanwhile.push_back(m);
    std::sort(w.meanwhile.begin(), w.meanwhile.end(), [](const auto& x, const auto& y) {
      return x.ns != y.ns ? x.ns > y.ns : std::pair(x.cpu, x.pid) < std::pair(y.cpu, y.pid);
    });
    w.unrecorded_ns = std::max<int64_t>(0, w.delay_ns - seen);
    out.push_back(w);
  }
  std::sort(out.begin(), out.end(), [](const WorstWakeup& x, const WorstWakeup& y) {
    if (x.delay_ns != y.delay_ns) return x.delay_ns > y.delay_ns;
    return x.woken_ns != y.woken_ns ? x.woken_ns < y.woken_ns : x.pid < y.pid;
  });
  return out;
}

void expect_same(const WorstWakeup& a, const WorstWakeup& b) {
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.comm, b.comm);
  EXPECT_EQ(a.cpu, b.cpu);
  EXPECT_EQ(a.line, b.line);
  EXPECT_EQ(a.woken_ns, b.woken_ns);
  EXPECT_EQ(a.switched_in_ns, b.switched_in_ns);
  EXPECT_EQ(a.delay_ns, b.delay_ns);
  EXPECT_EQ(a.run_ns, b.run_ns);
  EXPECT_EQ(a.unrecorded_ns, b.unrecorded_ns);
  ASSERT_EQ(a.meanwhile.size(), b.meanwhile.size());
  for (size_t i = 0; i < a.meanwhile.size(); ++i) {
    EXPECT_EQ(a.meanwhile[i].pid, b.meanwhile[i].pid);
    EXPECT_EQ(a.meanwhile[i].cpu, b.meanwhile[i].cpu);
    EXPECT_EQ(a.meanwhile[i].comm, b.meanwhile[i].comm);
    EXPECT_EQ(a.meanwhile[i].ns, b.meanwhile[i].ns);
  }
}

std::string data(const std::string& rel) { return std::string(VLAG_TEST_DATA) + "/" + rel; }

TEST(WorstWakeups, TheWorstOfCapturesAsAnIndependentCountFindsThem) {
  for (const std::string file :
       {"formats/perf.txt", "formats/trace.txt", "linux/periodic/perf.txt",
        "linux/sleepers-a/perf.txt", "linux/forks-a/perf.txt", "linux/messaging-a/perf.txt"}) {
    SCOPED_TRACE(file);
    std::vector<KernelEvent> ev;
    read_perf_capture(data(file), [&](const KernelEvent& e) { ev.push_back(e); });
    const auto expected = all_wakeups(ev);
    ASSERT_GT(expected.size(), 20u);
    for (const size_t n : {size_t{1}, size_t{10}}) {
      const auto got = stream(ev, n);
      ASSERT_EQ(got.size(), n);
      for (size_t i = 0; i < n; ++i) {
        SCOPED_TRACE("entry " + std::to_string(i));
        expect_same(got[i], expected[i]);
      }
    }
    WorstWakeups counted(3);
    for (const auto& e : ev) counted.on_event(e);
    counted.finish();
    EXPECT_EQ(counted.measured(), static_cast<int64_t>(expected.size()));
    // On one CPU: the worst of those that ran there.
    std::vector<WorstWakeup> on1;
    for (const auto& w : expected)
      if (w.cpu == 1) on1.push_back(w);
    const auto got1 = stream(ev, 5, 1);
    ASSERT_EQ(got1.size(), std::min<size_t>(5, on1.size()));
    for (size_t i = 0; i < got1.size(); ++i) expect_same(got1[i], on1[i]);
  }
}

TEST(WorstWakeups, TheCommandLineListsThemWorstFirst) {
  testing::TempDir tmp;
  const std::string f = data("formats/perf.txt");
  const auto text = testing::shell(
      std::string(VLAG_BINARY) + " kernel check --worst 3 " + testing::quoted(f), tmp);
  EXPECT_LE(text.status, 1) << text.err;
  EXPECT_NE(text.out.find("Worst wakeups (3 of "), std::string::npos);
  EXPECT_NE(text.out.find("delay ms"), std::string::npos);
  const auto json = testing::shell(
      std::string(VLAG_BINARY) + " kernel check --json --worst 3 " + testing::quoted(f), tmp);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(json.out);
  simdjson::dom::array wakeups = doc["files"].at(0)["worst_wakeups"]["wakeups"];
  ASSERT_EQ(wakeups.size(), 3u);
  int64_t last = INT64_MAX;
  for (simdjson::dom::element w : wakeups) {
    const int64_t delay = w["delay_ns"];
    const int64_t woken = w["woken_ns"], in = w["switched_in_ns"];
    EXPECT_LE(delay, last);
    EXPECT_EQ(delay, in - woken);
    last = delay;
  }
  std::vector<KernelEvent> ev;
  read_perf_capture(f, [&](const KernelEvent& e) { ev.push_back(e); });
  EXPECT_EQ(int64_t(doc["files"].at(0)["worst_wakeups"]["wakeups"].at(0)["delay_ns"]),
            all_wakeups(ev)[0].delay_ns);
  for (const std::string bad : {"0", "-1", "x"}) {
    const auto r = testing::shell(
        std::string(VLAG_BINARY) + " kernel check --worst " + bad + " " + testing::quoted(f), tmp);
    EXPECT_EQ(r.status, 2) << bad;
  }
}

}  // namespace
}  // namespace vlag::kernel
