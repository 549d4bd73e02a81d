#include "sim/cyclictest.h"

#include <fmt/format.h>

#include <cmath>

namespace vlag::sim {

void Cyclictest::start(Machine& m) {
  for (int i = 0; i < config_.hogs; ++i) {
    TaskAttrs hog;
    hog.name = "hog" + std::to_string(i);
    m.wake(m.add_task(hog, i), kForever);
  }
  next_expiry_.assign(static_cast<size_t>(config_.hogs + config_.threads) + 1, 0);
  for (int i = 0; i < config_.threads; ++i) {
    Task& t =
        m.add_task(config_.options.attrs("cyclic" + std::to_string(i), static_cast<size_t>(i)), i);
    threads_.push_back(&t);
    const int64_t first = config_.interval_ns + i * config_.distance_ns;
    next_expiry_[static_cast<size_t>(t.id)] = first;
    m.set_timer(t, first);
  }
}

int64_t Cyclictest::burst_done(Machine&, Task& t) {
  if (t.id <= config_.hogs) return kForever;  // the hogs are created first
  return 0;                                   // back to clock_nanosleep until the next expiry
}

void Cyclictest::timer(Machine& m, Task& t) {
  int64_t& expiry = next_expiry_[static_cast<size_t>(t.id)];
  // A thread still busy at its expiry takes no new wakeup (wake returns false): that expiry is
  // not measured, and the thread keeps its period.
  m.wake(t, config_.work_ns);
  expiry += config_.interval_ns;
  m.set_timer(t, expiry);
}

std::string cyclictest_summary(const Cyclictest& w) {
  std::string s;
  const auto us = [](double ns) { return static_cast<int64_t>(std::llround(ns / 1000.0)); };
  for (size_t i = 0; i < w.threads().size(); ++i) {
    const Task& t = *w.threads()[i];
    const LatencyStats& l = t.latency;
    s += fmt::format("T:{:2} ({:5}) P: 0 I:{} C:{:7} Min:{:7} Act:{:5} Avg:{:5} Max:{:8}\n", i,
                     t.id, w.config().interval_ns / 1000, l.count,
                     us(static_cast<double>(l.min_ns)), us(static_cast<double>(l.last_ns)),
                     us(l.avg_ns()), us(static_cast<double>(l.max_ns)));
  }
  return s;
}

}  // namespace vlag::sim
