#include "sim/rtapp.h"

#include <fmt/format.h>

#include <algorithm>

namespace vlag::sim {

RtApp::RtApp(RtAppConfig config, std::string workload, std::vector<WorkloadSettings> settings)
    : config_(std::move(config)), workload_(std::move(workload)), settings_(std::move(settings)) {}

bool RtApp::ends_by_itself() const {
  return std::all_of(config_.tasks.begin(), config_.tasks.end(),
                     [](const RtAppTask& t) { return t.loop > 0; });
}

void RtApp::start(Machine& m) {
  first_id_ = static_cast<int64_t>(m.tasks().size()) + 1;
  size_t count = 0;
  for (const RtAppTask& spec : config_.tasks) count += static_cast<size_t>(spec.instances);
  instances_.reserve(count);
  size_t index = 0;
  for (const RtAppTask& spec : config_.tasks) {
    TaskOptions own;
    own.nice = {spec.nice};
    own.slice_ns = {spec.slice_ns};
    own.latency_nice = {spec.latency_nice};
    const TaskOptions options = own.for_workload(workload_, settings_);
    for (int i = 0; i < spec.instances; ++i) {
      const std::string name = spec.instances > 1 ? fmt::format("{}-{}", spec.name, i) : spec.name;
      Task& t = m.add_task(options.attrs(name, 0),
                           static_cast<int>(index++ % static_cast<size_t>(m.ncpus())));
      Instance in;
      in.spec = &spec;
      in.number = i;
      in.task = &t;
      instances_.push_back(std::move(in));
    }
  }
  running_ = static_cast<int>(instances_.size());
  for (Instance& in : instances_) {
    if (in.spec->delay_ns > 0) {
      m.set_timer(*in.task, m.now() + in.spec->delay_ns);
      continue;
    }
    begin_loop(m, in);
    if (const int64_t run = advance(m, in); run > 0) m.wake(*in.task, run);
  }
}

void RtApp::begin_loop(Machine& m, Instance& in) {
  RtAppThreadStats& s = in.stats;
  if (s.last_loop_at >= 0) {
    const int64_t period = m.now() - s.last_loop_at;
    s.min_period_ns = s.loops > 1 ? std::min(s.min_period_ns, period) : period;
    s.max_period_ns = std::max(s.max_period_ns, period);
  }
  if (s.first_loop_at < 0) s.first_loop_at = m.now();
  s.last_loop_at = m.now();
  ++s.loops;
}

int64_t RtApp::advance(Machine& m, Instance& in) {
  for (;;) {
    const std::vector<RtAppPhase>& phases = in.spec->phases;
    if (in.event == phases[in.phase].events.size()) {
      in.event = 0;
      if (++in.phase_loop < phases[in.phase].loop) continue;
      in.phase_loop = 0;
      if (++in.phase < phases.size()) continue;
      in.phase = 0;
      if (in.spec->loop > 0 && in.stats.loops == in.spec->loop) {
        in.stats.exited = true;
        if (--running_ == 0 && ends_by_itself()) finish(m);
        return 0;
      }
      begin_loop(m, in);
    }
    const RtAppEvent& ev = phases[in.phase].events[in.event++];
    switch (ev.kind) {
      case RtAppEvent::Kind::Run:
        in.task->wall_work = ev.wall;  // runtime: a loop on the clock (SPEC.md §9.5)
        return ev.ns;
      case RtAppEvent::Kind::Sleep:
        m.set_timer(*in.task, m.now() + ev.ns);
        return 0;
      case RtAppEvent::Kind::Timer: {
        const bool unique = ev.timer_ref.rfind("unique", 0) == 0;
        auto& timers = unique ? in.unique_timers : shared_timers_;
        // At its first use a timer starts from the start of the current loop, as rt-app sets
        // t_next to the loop's start time then.
        int64_t& next = timers.try_emplace(ev.timer_ref, in.stats.last_loop_at).first->second;
        next += ev.ns;
        if (next > m.now()) {
          m.set_timer(*in.task, next);
          return 0;
        }
        // Late: an absolute timer keeps its grid and does not sleep; a relative one restarts
        // its period from now.
        if (ev.relative) next = m.now();
        continue;
      }
    }
  }
}

int64_t RtApp::burst_done(Machine& m, Task& t) {
  Instance& in = of(t);
  if (in.woken) {
    // rt-app's wu_lat counts from the sleep's end as asked: the timer's lateness, then the
    // wake-to-run latency the machine recorded at the first run.
    in.stats.wakeup.add(in.late_ns + t.latency.last_ns);
    in.woken = false;
  }
  return advance(m, in);
}

void RtApp::timer(Machine& m, Task& t) {
  Instance& in = of(t);
  if (in.stats.loops == 0) begin_loop(m, in);  // the end of the initial delay
  const int64_t run = advance(m, in);
  if (run > 0) {
    in.woken = true;
    in.late_ns = t.timer_late_ns;
    m.wake(t, run);
  }
}

std::string RtApp::report(const MachineStats&) const {
  std::string s;
  for (size_t i = 0; i < instances_.size(); ++i)
    s += fmt::format("[rt-app] <notice> [{}] Starting with SCHED_OTHER policy with priority {}\n",
                     i, instances_[i].task->attrs.nice);
  s += fmt::format("{:<16} {:>8} {:>12} {:>10} {:>10} {:>12} {:>12}\n", "# thread", "loops",
                   "run(us)", "wu_lat avg", "wu_lat max", "period min", "period max");
  for (const Instance& in : instances_) {
    const RtAppThreadStats& st = in.stats;
    s += fmt::format("{:<16} {:>8} {:>12} {:>10.1f} {:>10} {:>12} {:>12}\n", in.task->attrs.name,
                     st.loops, in.task->runtime_ns / 1000, st.wakeup.avg_ns() / 1000.0,
                     st.wakeup.max_ns / 1000, st.min_period_ns / 1000, st.max_period_ns / 1000);
  }
  for (size_t i = 0; i < instances_.size(); ++i)
    if (instances_[i].stats.exited) s += fmt::format("[rt-app] <notice> [{}] Exiting.\n", i);
  return s;
}

Metrics RtApp::metrics(const MachineStats&) const {
  LatencyStats all;
  for (const Instance& in : instances_) {
    all.histogram.merge(in.stats.wakeup.histogram);
    if (in.stats.wakeup.count > 0) {
      all.max_ns = std::max(all.max_ns, in.stats.wakeup.max_ns);
      all.sum_ns += in.stats.wakeup.sum_ns;
      all.count += in.stats.wakeup.count;
    }
  }
  const double n = static_cast<double>(std::max<int64_t>(all.count, 1));
  return {{"rtapp.wu_lat_avg", "us", static_cast<double>(all.sum_ns) / n / 1e3, Better::Lower},
          {"rtapp.wu_lat_p99", "us",
           static_cast<double>(std::min(all.histogram.percentile(99), all.max_ns)) / 1e3,
           Better::Lower},
          {"rtapp.wu_lat_max", "us", static_cast<double>(all.max_ns) / 1e3, Better::Lower}};
}

}  // namespace vlag::sim
