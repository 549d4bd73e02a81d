#include "sim/cyclictest.h"

#include <fmt/format.h>

#include <cmath>

#include "spec/error.h"
#include "stats/latency_histogram.h"

namespace vlag::sim {
namespace {

// cyclictest keeps the cycle numbers of only the first few overflows and counts the rest.
constexpr size_t kOverflowCyclesKept = 64;

}  // namespace

Cyclictest::Cyclictest(CyclictestConfig c) : config_(std::move(c)) {
  if (config_.threads < 1) throw Error("cyclictest: threads must be >= 1");
  if (config_.interval_ns <= 0) throw Error("cyclictest: the interval must be > 0");
  if (config_.distance_ns < 0 || config_.work_ns <= 0 || config_.loops < 0 ||
      config_.histogram_us < 0)
    throw Error("cyclictest: distance, loops and histogram must be >= 0, work > 0");
}

void Cyclictest::start(Machine& m) {
  first_id_ = static_cast<int64_t>(m.tasks().size()) + 1;
  stats_.assign(static_cast<size_t>(config_.threads), CyclicThreadStats{});
  next_expiry_.assign(static_cast<size_t>(config_.threads), 0);
  for (int i = 0; i < config_.threads; ++i) {
    Task& t =
        m.add_task(config_.options.attrs("cyclic" + std::to_string(i), static_cast<size_t>(i)), i);
    threads_.push_back(&t);
    stats_[static_cast<size_t>(i)].histogram.assign(static_cast<size_t>(config_.histogram_us), 0);
    const int64_t first = m.now() + config_.interval_ns + i * config_.distance_ns;
    next_expiry_[static_cast<size_t>(i)] = first;
    m.set_timer(t, first);
  }
  running_ = config_.threads;
}

int64_t Cyclictest::burst_done(Machine& m, Task& t) {
  CyclicThreadStats& s = stats_[index_of(t)];
  // Expiry to running: how late the timer fired (its slack, SPEC.md §9.2) and this wakeup's
  // wake-to-run latency, which the machine records at the first run.
  const int64_t ns = t.timer_late_ns + t.latency.last_ns;
  s.latency.add(ns);
  if (config_.histogram_us > 0) {
    const int64_t us = ns / 1000;
    if (us < config_.histogram_us) {
      ++s.histogram[static_cast<size_t>(us)];
    } else {
      ++s.overflows;
      if (s.overflow_cycles.size() < kOverflowCyclesKept)
        s.overflow_cycles.push_back(s.latency.count - 1);
    }
  }
  if (config_.loops > 0 && s.latency.count == config_.loops && --running_ == 0) finish(m);
  return 0;  // back to clock_nanosleep until the next expiry
}

void Cyclictest::timer(Machine& m, Task& t) {
  const size_t i = index_of(t);
  if (config_.loops > 0 && stats_[i].latency.count >= config_.loops) return;  // thread exited
  // A thread still busy at its expiry takes no new wakeup (wake returns false): that expiry is
  // not measured, and the thread keeps its period.
  m.wake(t, config_.work_ns);
  next_expiry_[i] += config_.interval_ns;
  m.set_timer(t, next_expiry_[i]);
}

std::string Cyclictest::report(const MachineStats&) const {
  std::string s = cyclictest_summary(*this);
  if (config_.histogram_us > 0) s += cyclictest_histogram(*this);
  return s;
}

// The measuring threads' latencies, merged: what cyclictest's summary lines are made of.
Metrics Cyclictest::metrics(const MachineStats&) const {
  stats::LatencyHistogram all;
  int64_t max_ns = 0;
  int64_t sum_ns = 0;
  for (const CyclicThreadStats& s : stats_) {
    all.merge(s.latency.histogram);
    max_ns = std::max(max_ns, s.latency.max_ns);
    sum_ns += s.latency.sum_ns;
  }
  const double n = static_cast<double>(std::max<int64_t>(all.count(), 1));
  return {{"cyclictest.avg", "us", static_cast<double>(sum_ns) / n / 1e3, Better::Lower},
          {"cyclictest.p99", "us", static_cast<double>(all.percentile(99)) / 1e3, Better::Lower},
          {"cyclictest.max", "us", static_cast<double>(max_ns) / 1e3, Better::Lower}};
}

std::string cyclictest_summary(const Cyclictest& w) {
  std::string s;
  const auto us = [](double ns) { return static_cast<int64_t>(std::llround(ns / 1000.0)); };
  for (size_t i = 0; i < w.threads().size(); ++i) {
    const Task& t = *w.threads()[i];
    const LatencyStats& l = w.stats()[i].latency;
    s += fmt::format("T:{:2} ({:5}) P: 0 I:{} C:{:7} Min:{:7} Act:{:5} Avg:{:5} Max:{:8}\n", i,
                     t.id, w.config().interval_ns / 1000, l.count,
                     us(static_cast<double>(l.min_ns)), us(static_cast<double>(l.last_ns)),
                     us(l.avg_ns()), us(static_cast<double>(l.max_ns)));
  }
  return s;
}

std::string cyclictest_histogram(const Cyclictest& w) {
  const auto& stats = w.stats();
  std::string s = "# Histogram\n";
  for (int b = 0; b < w.config().histogram_us; ++b) {
    int64_t row = 0;
    for (const auto& st : stats) row += st.histogram[static_cast<size_t>(b)];
    if (row == 0) continue;  // cyclictest leaves out buckets that are empty on every thread
    s += fmt::format("{:06} ", b);
    for (size_t i = 0; i < stats.size(); ++i)
      s += fmt::format("{}{:06}", i ? "\t" : "", stats[i].histogram[static_cast<size_t>(b)]);
    s += "\n";
  }
  const auto footer = [&](const char* label, int width, auto value) {
    s += label;
    for (const auto& st : stats) s += fmt::format(" {:0{}}", value(st), width);
    s += "\n";
  };
  footer("# Total:", 9, [](const CyclicThreadStats& st) {
    int64_t n = 0;
    for (int64_t c : st.histogram) n += c;
    return n;
  });
  footer("# Min Latencies:", 5,
         [](const CyclicThreadStats& st) { return st.latency.min_ns / 1000; });
  footer("# Avg Latencies:", 5, [](const CyclicThreadStats& st) {
    return static_cast<int64_t>(st.latency.avg_ns() / 1000);
  });
  footer("# Max Latencies:", 5,
         [](const CyclicThreadStats& st) { return st.latency.max_ns / 1000; });
  footer("# Histogram Overflows:", 5, [](const CyclicThreadStats& st) { return st.overflows; });
  s += "# Histogram Overflow at cycle number:\n";
  for (size_t i = 0; i < stats.size(); ++i) {
    s += fmt::format("# Thread {}:", i);
    for (int64_t c : stats[i].overflow_cycles) s += fmt::format(" {:05}", c);
    const int64_t others =
        stats[i].overflows - static_cast<int64_t>(stats[i].overflow_cycles.size());
    if (others > 0) s += fmt::format(" # {:05} others", others);
    s += "\n";
  }
  return s;
}

}  // namespace vlag::sim
