// Ingestion of `vlag kernel check`, one core: the perf script (or trace-cmd report) text of a
// capture read from memory and parsed into events (kernel/perf_script.h) — or a perf.data read
// by the native reader (kernel/perf_data_reader.h) — best of three, as MB/s and events/s: the
// rate the target of 100 MB/s is about (no checks, no file I/O).
// Usage: vlag_kernel_parse_bench FILE
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kernel/perf_data.h"
#include "kernel/perf_data_reader.h"
#include "kernel/perf_script.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vlag_kernel_parse_bench FILE\n";
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) {
    std::cerr << argv[1] << ": cannot open\n";
    return 2;
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();
  const bool binary = vlag::kernel::is_perf_data(text);
  double best = 1e9;
  int64_t events = 0, checksum = 0;
  for (int run = 0; run < 3; ++run) {
    std::istringstream in(text);
    const auto start = std::chrono::steady_clock::now();
    const auto sink = [&](vlag::kernel::KernelEvent& e) { checksum += e.time_ns; };
    const vlag::kernel::PerfParseStats stats =
        binary ? vlag::kernel::read_perf_data_bytes(text, argv[1], sink)
               : vlag::kernel::parse_perf_script(in, argv[1], sink);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    events = stats.events;
  }
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::cout << (binary ? "perf.data " : "perf script text ") << argv[1] << ": " << mb << " MB, "
            << events << " events; parsed in " << best << " s: " << mb / best << " MB/s, "
            << static_cast<double>(events) / best << " events/s (checksum " << checksum % 997
            << ")\n";
}
