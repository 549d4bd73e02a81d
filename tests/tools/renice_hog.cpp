// A CPU hog that renices itself halfway, for the renice capture:
// `renice_hog SECONDS NICE_BEFORE NICE_AFTER AT_SECONDS` spins for SECONDS, at NICE_BEFORE until
// AT_SECONDS after its start and at NICE_AFTER from then on (setpriority(2), as renice(1) does),
// and prints "renice_hog PID: nice A -> B at T s (CLOCK_MONOTONIC M s)" once reniced.
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

double monotonic_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

bool set_nice(int nice) {
  if (setpriority(PRIO_PROCESS, 0, nice) == 0) return true;
  std::perror("setpriority");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: renice_hog SECONDS NICE_BEFORE NICE_AFTER AT_SECONDS\n");
    return 2;
  }
  const int before = std::atoi(argv[2]), after = std::atoi(argv[3]);
  if (!set_nice(before)) return 2;
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto end = start + std::chrono::duration<double>(std::atof(argv[1]));
  const auto at = start + std::chrono::duration<double>(std::atof(argv[4]));
  while (clock::now() < at) {
  }
  if (!set_nice(after)) return 2;
  std::printf("renice_hog %d: nice %d -> %d at %s s (CLOCK_MONOTONIC %.6f s)\n", getpid(), before,
              after, argv[4], monotonic_s());
  std::fflush(stdout);
  while (clock::now() < end) {
  }
  return 0;
}
