// The checker of the kernel's own numbers on one capture, one core: reading and decoding it
// (kernel/state/capture_file.h), then every check of SPEC.md §6.4 over its records
// (kernel/state/checks.h), best of three, as records per second.
// Usage: vlag_state_check_bench CAPTURE (a `vlag kernel record --state` directory or raw file)
#include <chrono>
#include <iostream>

#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vlag_state_check_bench CAPTURE\n";
    return 2;
  }
  using namespace vlag::kernel::state;
  double read_best = 1e9, check_best = 1e9;
  size_t records = 0;
  uint64_t violations = 0;
  for (int run = 0; run < 3; ++run) {
    auto start = std::chrono::steady_clock::now();
    const StateCapture capture = read_state_capture(argv[1]);
    read_best = std::min(read_best, seconds_since(start));
    start = std::chrono::steady_clock::now();
    const StateReport report = check_state_capture(capture);
    check_best = std::min(check_best, seconds_since(start));
    records = capture.records.size();
    violations = report.violations();
  }
  const double n = static_cast<double>(records);
  std::cout << "checker on " << argv[1] << ": " << records << " records; read and decode "
            << read_best << " s (" << n / read_best << " records/s), checks " << check_best
            << " s (" << n / check_best << " records/s), " << violations << " violations\n";
  return 0;
}
