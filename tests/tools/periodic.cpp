// A periodic task for the live kernel test: `periodic SECONDS PERIOD_US WORK_US SLICE_US OUT`
// wakes on an absolute timer every PERIOD_US, works WORK_US, with a custom slice set through
// sched_attr.sched_runtime (Linux >= 6.12), and writes its own latency from timer expiry to
// running (p50, p99 in ns) to OUT.
#include <linux/sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: periodic SECONDS PERIOD_US WORK_US SLICE_US OUT\n");
    return 2;
  }
  const int64_t end = now_ns() + static_cast<int64_t>(std::atof(argv[1]) * 1e9);
  const int64_t period = std::atoll(argv[2]) * 1000, work = std::atoll(argv[3]) * 1000;
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = SCHED_NORMAL;
  attr.sched_runtime = static_cast<uint64_t>(std::atoll(argv[4])) * 1000;
  if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
    std::perror("sched_setattr");
    return 2;
  }
  std::vector<int64_t> lat;
  int64_t next = now_ns() + period;
  while (next < end) {
    timespec ts{static_cast<time_t>(next / 1'000'000'000), static_cast<long>(next % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    const int64_t woke = now_ns();
    lat.push_back(woke - next);
    while (now_ns() - woke < work) {
    }
    next += period;
  }
  std::sort(lat.begin(), lat.end());
  FILE* out = std::fopen(argv[5], "w");
  if (!out || lat.empty()) return 2;
  std::fprintf(out, "%lld %lld %d\n", static_cast<long long>(lat[lat.size() / 2]),
               static_cast<long long>(lat[lat.size() * 99 / 100]), getpid());
  std::fclose(out);
  return 0;
}
