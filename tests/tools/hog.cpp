// A CPU hog for the live kernel test: `hog SECONDS NICE` spins for SECONDS at nice NICE.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: hog SECONDS NICE\n");
    return 2;
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
