// A CPU hog for the live kernel test: `hog SECONDS NICE [PIDFILE]` spins for SECONDS at nice
// NICE, appending its pid to PIDFILE first so the test can tell its hogs from anyone else's.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: hog SECONDS NICE [PIDFILE]\n");
    return 2;
  }
  if (argc == 4) {
    FILE* f = std::fopen(argv[3], "a");
    if (!f) {
      std::perror(argv[3]);
      return 2;
    }
    std::fprintf(f, "%d\n", getpid());
    std::fclose(f);
  }
  const double seconds = std::atof(argv[1]);
  if (setpriority(PRIO_PROCESS, 0, std::atoi(argv[2])) != 0) {
    std::perror("setpriority");
    return 2;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
  }
  return 0;
}
