// A fork storm for the captures: `fork_storm SECONDS RATE_HZ CHILD_US` forks a child RATE_HZ
// times a second (on an absolute timer, sleeping in between) for SECONDS; each child spins
// CHILD_US of wall-clock time and exits. The parent reaps as it goes and prints
// "fork_storm PID: N children in S s, each spinning C us".
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void reap(int options) {
  while (waitpid(-1, nullptr, options) > 0) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: fork_storm SECONDS RATE_HZ CHILD_US\n");
    return 2;
  }
  const int64_t end = now_ns() + static_cast<int64_t>(std::atof(argv[1]) * 1e9);
  const int64_t rate = std::atoll(argv[2]), child = std::atoll(argv[3]) * 1000;
  if (rate <= 0) {
    std::fprintf(stderr, "fork_storm: RATE_HZ must be positive\n");
    return 2;
  }
  const int64_t period = 1'000'000'000 / rate;
  std::fflush(stdout);  // a child must not inherit buffered output
  int64_t children = 0;
  for (int64_t next = now_ns(); next < end; next += period) {
    timespec ts{static_cast<time_t>(next / 1'000'000'000), static_cast<long>(next % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      break;
    }
    if (pid == 0) {
      const int64_t start = now_ns();
      while (now_ns() - start < child) {
      }
      _exit(0);
    }
    ++children;
    reap(WNOHANG);
  }
  reap(0);
  std::printf("fork_storm %d: %lld children in %s s, each spinning %s us\n", getpid(),
              static_cast<long long>(children), argv[1], argv[3]);
  return 0;
}
