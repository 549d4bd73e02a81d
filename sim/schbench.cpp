#include "sim/schbench.h"

#include <fmt/format.h>

#include <algorithm>

#include "spec/error.h"

namespace vlag::sim {
namespace {

struct Row {
  double p;
  bool star;  // schbench marks the percentile it considers the headline
};

// schbench's show_latencies(): a block of percentiles, each with its value and the samples in its
// bucket, then min and max. Values are clamped to the maximum: a bucket's upper bound may
// exceed the largest sample in it.
std::string block(const std::string& title, const std::string& unit, int64_t runtime_s,
                  const LatencyStats& s, const std::vector<Row>& rows, double scale) {
  std::string out = fmt::format("{} percentiles ({}) runtime {} (s) ({} total samples)\n", title,
                                unit, runtime_s, s.count);
  const auto cdf = s.histogram.cdf();
  for (const Row& r : rows) {
    const int64_t bound = s.histogram.percentile(r.p);
    int64_t in_bucket = 0;
    for (size_t i = 0; i < cdf.size(); ++i)
      if (cdf[i].first == bound) {
        const double below = i ? cdf[i - 1].second : 0.0;
        in_bucket = std::llround((cdf[i].second - below) * static_cast<double>(s.count));
      }
    const auto value = static_cast<int64_t>(static_cast<double>(std::min(bound, s.max_ns)) / scale);
    out += fmt::format("\t{}{:.1f}th: {:<10} ({} samples)\n", r.star ? "* " : "  ", r.p, value,
                       in_bucket);
  }
  out +=
      fmt::format("\tmin={}, max={}\n", static_cast<int64_t>(static_cast<double>(s.min_ns) / scale),
                  static_cast<int64_t>(static_cast<double>(s.max_ns) / scale));
  return out;
}

int64_t clamped_percentile(const LatencyStats& s, double p) {
  return std::min(s.histogram.percentile(p), s.max_ns);
}

}  // namespace

Schbench::Schbench(SchbenchConfig c) : config_(std::move(c)) {
  if (config_.message_threads < 1 || config_.workers < 0)
    throw Error("schbench: message threads must be >= 1 and workers >= 0");
  if (config_.sleep_ns < 0 || config_.request_ns <= 0 || config_.warmup_ns < 0 ||
      config_.message_ns <= 0 || config_.post_ns <= 0)
    throw Error("schbench: the request time must be > 0, sleep and warmup >= 0");
}

void Schbench::start(Machine& m) {
  first_id_ = static_cast<int64_t>(m.tasks().size()) + 1;
  workers_ = config_.workers > 0
                 ? config_.workers
                 : (m.ncpus() + config_.message_threads - 1) / config_.message_threads;
  lists_.assign(static_cast<size_t>(config_.message_threads), {});
  size_t index = 0;
  const auto add = [&](const std::string& name) -> Task& {
    const int cpu = static_cast<int>(index % static_cast<size_t>(m.ncpus()));
    return m.add_task(config_.options.attrs(name, index++), cpu);
  };
  // Each message thread starts its workers; every worker's first act is to post itself and wait.
  for (int i = 0; i < config_.message_threads; ++i) {
    message_tasks_.push_back(&add(fmt::format("msg{}", i)));
    roles_.push_back({true, i});
    for (int k = 0; k < workers_; ++k) {
      Task& w = add(fmt::format("worker{}.{}", i, k));
      roles_.push_back({false, i});
      lists_[static_cast<size_t>(i)].push_back(&w);
    }
    m.wake(*message_tasks_.back(), config_.message_ns);
  }
}

void Schbench::post(Machine& m, Task& worker, int owner) {
  lists_[static_cast<size_t>(owner)].push_back(&worker);
  m.wake(*message_tasks_[static_cast<size_t>(owner)], config_.message_ns);
}

int64_t Schbench::burst_done(Machine& m, Task& t) {
  Role& r = role(t);
  if (r.message) {  // xlist_wake_all(): stamp once, wake everyone posted so far
    for (Task* w : lists_[static_cast<size_t>(r.owner)]) {
      role(*w).woke_at = m.now();
      m.wake(*w, config_.post_ns);
    }
    lists_[static_cast<size_t>(r.owner)].clear();
    return 0;
  }
  switch (r.phase) {
    case Phase::Waiting:
      // The machine recorded this wakeup's latency when the worker first ran.
      if (measuring(m)) wakeup_.add(t.latency.last_ns);
      r.work_start = r.woke_at + t.latency.last_ns;
      r.phase = Phase::Working;
      if (config_.sleep_ns == 0) return config_.request_ns;
      m.set_timer(t, m.now() + config_.sleep_ns);  // the usleep; its end starts the math
      return 0;
    case Phase::Working:
      if (measuring(m)) {
        request_.add(m.now() - r.work_start);
        ++requests_;
        const auto second = static_cast<size_t>((m.now() - config_.warmup_ns) / 1'000'000'000);
        if (second >= per_second_.size()) per_second_.resize(second + 1, 0);
        ++per_second_[second];
      }
      r.phase = Phase::Waiting;
      post(m, t, r.owner);
      return 0;
  }
  return 0;
}

void Schbench::timer(Machine& m, Task& t) { m.wake(t, config_.request_ns); }

double Schbench::rps(int64_t end_ns) const {
  const int64_t measured = end_ns - config_.warmup_ns;
  return measured > 0 ? static_cast<double>(requests_) * 1e9 / static_cast<double>(measured) : 0.0;
}

std::string Schbench::report(const MachineStats& st) const {
  const int64_t runtime_s = st.end_ns / 1'000'000'000;
  // Only whole seconds are RPS samples; the partial last one would read low.
  const auto whole =
      static_cast<size_t>(std::max<int64_t>(st.end_ns - config_.warmup_ns, 0) / 1'000'000'000);
  LatencyStats rps_samples;
  for (size_t i = 0; i < std::min(whole, per_second_.size()); ++i) rps_samples.add(per_second_[i]);
  for (size_t i = per_second_.size(); i < whole; ++i) rps_samples.add(0);
  std::string s = block("Wakeup Latencies", "usec", runtime_s, wakeup_,
                        {{50, false}, {90, false}, {99, true}, {99.9, false}}, 1000.0);
  s += block("Request Latencies", "usec", runtime_s, request_,
             {{50, false}, {90, false}, {99, true}, {99.9, false}}, 1000.0);
  s +=
      block("RPS", "requests", runtime_s, rps_samples, {{20, false}, {50, true}, {90, false}}, 1.0);
  s += fmt::format("average rps: {:.2f}\n", rps(st.end_ns));
  return s;
}

Metrics Schbench::metrics(const MachineStats& st) const {
  const auto us = [](int64_t ns) { return static_cast<double>(ns) / 1e3; };
  return {
      {"schbench.wakeup_p50", "us", us(clamped_percentile(wakeup_, 50)), Better::Lower},
      {"schbench.wakeup_p90", "us", us(clamped_percentile(wakeup_, 90)), Better::Lower},
      {"schbench.wakeup_p95", "us", us(clamped_percentile(wakeup_, 95)), Better::Lower},
      {"schbench.wakeup_p99", "us", us(clamped_percentile(wakeup_, 99)), Better::Lower},
      {"schbench.wakeup_p999", "us", us(clamped_percentile(wakeup_, 99.9)), Better::Lower},
      {"schbench.request_p50", "us", us(clamped_percentile(request_, 50)), Better::Lower},
      {"schbench.request_p99", "us", us(clamped_percentile(request_, 99)), Better::Lower},
      {"schbench.rps", "req/s", rps(st.end_ns), Better::Higher},
  };
}

}  // namespace vlag::sim
