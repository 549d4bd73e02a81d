// A periodic task for the live kernel test and the captures:
// `periodic SECONDS PERIOD_US WORK_US SLICE_US OUT [NICE]` wakes on an absolute timer every
// PERIOD_US, spins WORK_US of wall-clock time, at nice NICE (default 0) with a custom slice of
// SLICE_US (0: the default) set through sched_attr.sched_runtime (Linux >= 6.12). When a wakeup
// comes a whole period late it skips the periods it missed (counted as overruns) rather than
// running them back to back, so a starved task stays a sleeper and its latency stays a latency.
// It measures its own latency from timer expiry to running (which includes the timer slack,
// 50 us by default), writes "p50 p99 pid" (ns) to OUT unless OUT is "-", and prints on stdout
// "periodic PID: period P us work W us slice S us nice N: K wakeups, O overruns, latency avg A
// p50 B p99 C max D us".
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "tests/tools/sched_attr.h"

namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr, "usage: periodic SECONDS PERIOD_US WORK_US SLICE_US OUT|- [NICE]\n");
    return 2;
  }
  const int64_t end = now_ns() + static_cast<int64_t>(std::atof(argv[1]) * 1e9);
  const int64_t period = std::atoll(argv[2]) * 1000, work = std::atoll(argv[3]) * 1000;
  const int64_t slice_us = std::atoll(argv[4]);
  const int nice = argc == 7 ? std::atoi(argv[6]) : 0;
  if (!vlag::tools::set_fair_attr(nice, slice_us)) return 2;
  std::vector<int64_t> lat;
  int64_t overruns = 0;
  int64_t next = now_ns() + period;
  while (next < end) {
    timespec ts{static_cast<time_t>(next / 1'000'000'000), static_cast<long>(next % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    const int64_t woke = now_ns();
    lat.push_back(woke - next);
    while (now_ns() - woke < work) {
    }
    next += period;
    const int64_t missed = (now_ns() - next) / period;
    if (missed > 0) {
      overruns += missed;
      next += missed * period;
    }
  }
  if (lat.empty()) return 2;
  const int64_t sum = std::accumulate(lat.begin(), lat.end(), int64_t{0});
  std::sort(lat.begin(), lat.end());
  const int64_t p50 = lat[lat.size() / 2], p99 = lat[lat.size() * 99 / 100];
  if (std::strcmp(argv[5], "-") != 0) {
    FILE* out = std::fopen(argv[5], "w");
    if (!out) return 2;
    std::fprintf(out, "%lld %lld %d\n", static_cast<long long>(p50), static_cast<long long>(p99),
                 getpid());
    std::fclose(out);
  }
  std::printf(
      "periodic %d: period %s us work %s us slice %s us nice %d: %zu wakeups, %lld overruns, "
      "latency avg %.1f p50 %.1f p99 %.1f max %.1f us\n",
      getpid(), argv[2], argv[3], argv[4], nice, lat.size(), static_cast<long long>(overruns),
      us(sum / static_cast<int64_t>(lat.size())), us(p50), us(p99), us(lat.back()));
  return 0;
}
