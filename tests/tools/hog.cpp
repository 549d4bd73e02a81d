// A CPU hog for the live kernel test and the captures:
// `hog SECONDS NICE [PIDFILE|-] [SLICE_US [COPIES]]` spins for SECONDS at nice NICE, with a custom
// slice of SLICE_US when given and not 0 (Linux >= 6.12), appending its pid to PIDFILE first
// (unless "-") so a test can tell its hogs from anyone else's. With COPIES > 1 it forks COPIES - 1
// more hogs first, so that all are runnable together (exec'ing forty hogs one by one beside those
// already spinning takes a second) and all stop SECONDS after the first started; each prints
// "hog PID: copy I of N", and the first waits for the others.
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/tools/sched_attr.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 6) {
    std::fprintf(stderr, "usage: hog SECONDS NICE [PIDFILE|-] [SLICE_US [COPIES]]\n");
    return 2;
  }
  const int copies = argc == 6 ? std::atoi(argv[5]) : 1;
  if (copies < 1) {
    std::fprintf(stderr, "hog: COPIES must be at least 1\n");
    return 2;
  }
  // The copies share one end, fixed before they fork: each computing its own at its first run
  // would end the last-scheduled ones later, alone on the CPU.
  const double seconds = std::atof(argv[1]);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int copy = 1;
  for (int i = 2; i <= copies && copy == 1; ++i)
    if (fork() == 0) copy = i;  // the first hog forks all the others
  if (copies > 1) {
    std::printf("hog %d: copy %d of %d\n", getpid(), copy, copies);
    std::fflush(stdout);
  }
  if (argc >= 4 && std::strcmp(argv[3], "-") != 0) {
    FILE* f = std::fopen(argv[3], "a");
    if (!f) {
      std::perror(argv[3]);
      return 2;
    }
    std::fprintf(f, "%d\n", getpid());
    std::fclose(f);
  }
  const int64_t slice_us = argc >= 5 ? std::atoll(argv[4]) : 0;
  if (!vlag::tools::set_fair_attr(std::atoi(argv[2]), slice_us)) return 2;
  while (std::chrono::steady_clock::now() < end) {
  }
  while (wait(nullptr) > 0) {
  }
  return 0;
}
