// A CPU hog for the live kernel test and the captures: `hog SECONDS NICE [PIDFILE|-] [SLICE_US]`
// spins for SECONDS at nice NICE, with a custom slice of SLICE_US when given (Linux >= 6.12),
// appending its pid to PIDFILE first (unless "-") so a test can tell its hogs from anyone else's.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sched_attr.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: hog SECONDS NICE [PIDFILE|-] [SLICE_US]\n");
    return 2;
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
  const double seconds = std::atof(argv[1]);
  const int64_t slice_us = argc == 5 ? std::atoll(argv[4]) : 0;
  if (!vlag::tools::set_fair_attr(std::atoi(argv[2]), slice_us)) return 2;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
  }
  return 0;
}
