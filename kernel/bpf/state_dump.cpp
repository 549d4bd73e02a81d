// state_dump: captures the running kernel's EEVDF state for a while, or around a command, and
// prints each record as text or JSON Lines — the developer's window on kernel/bpf until
// `vlag kernel record --state` writes spec/TRACE.md traces. Exit 2 when capturing is not
// possible here (the message says why), 0 otherwise; lost records are reported on stderr.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "kernel/bpf/raw_capture.h"
#include "kernel/bpf/state_capture.h"
#include "kernel/bpf/state_format.h"

namespace {

using namespace vlag::kernel::bpf;

// "0-1,3" -> {0, 1, 3}
std::vector<int> parse_cpus(const std::string& list) {
  std::vector<int> cpus;
  size_t at = 0;
  while (at < list.size()) {
    const size_t comma = list.find(',', at);
    const std::string item =
        list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const size_t dash = item.find('-');
    try {
      const int lo = std::stoi(item.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
      if (lo < 0 || hi < lo) throw std::invalid_argument(item);
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    } catch (const std::exception&) {
      throw CLI::ValidationError("--cpus", "'" + item + "' is not a CPU or a range A-B");
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return cpus;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Capture the running kernel's EEVDF state with BPF and print the records."};
  CaptureOptions o;
  std::string cpus, out_path, decode_path;
  bool json = false, quiet = false;
  size_t ring_mb = 32;
  app.add_option("--duration", o.duration_s, "seconds to capture (with a command: at most)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--cpus", cpus, "capture only these CPUs' runqueues, e.g. 1 or 0-1,3");
  app.add_flag("--queues", o.queues, "at each switch, every entity queued in next's cfs_rqs");
  app.add_flag("--setattr", o.setattr,
               "record renice and sched_setattr calls (a probe on every syscall exit)");
  app.add_flag("--json", json, "JSON Lines instead of text");
  app.add_flag("--quiet", quiet, "decode every record but print only the summary");
  app.add_option("-o,--output", out_path, "write the records here instead of stdout");
  app.add_option("--raw", o.raw_path,
                 "keep the records undecoded in this file (cheapest on a busy machine)");
  app.add_option("--decode", decode_path, "print the records of a --raw file; capture nothing");
  app.add_option("--ring-mb", ring_mb, "ring buffer size in MiB (a power of two)")
      ->check(CLI::Range(1, 1024));
  app.add_option("command", o.command, "a command to capture around (after --)");
  app.allow_extras(false);
  try {
    app.parse(argc, argv);
    if (!cpus.empty()) o.cpus = parse_cpus(cpus);
    if (o.duration_s <= 0 && o.command.empty() && decode_path.empty())
      throw CLI::ValidationError("--duration", "give a duration, a command, or both");
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  o.ring_bytes = ring_mb << 20;

  std::unique_ptr<FILE, int (*)(FILE*)> file(nullptr, fclose);
  FILE* out = stdout;
  if (!out_path.empty()) {
    file.reset(std::fopen(out_path.c_str(), "w"));
    if (!file) {
      std::fprintf(stderr, "state_dump: cannot write %s\n", out_path.c_str());
      return 2;
    }
    out = file.get();
  }
  const auto print = [&](const StateRecord& r) {
    if (quiet) return;
    const std::string line = json ? format_record_json(r) : format_record_text(r);
    std::fwrite(line.data(), 1, line.size(), out);
  };
  try {
    if (!decode_path.empty()) {
      const uint64_t n = read_raw_capture(decode_path, print);
      std::fprintf(stderr, "state_dump: %llu records in %s\n", static_cast<unsigned long long>(n),
                   decode_path.c_str());
      return 0;
    }
    const auto result = capture(o, print, [&](const KernelParameters& k) {
      if (quiet) return;
      const std::string head = json ? format_parameters_json(k) : format_parameters_text(k);
      std::fwrite(head.data(), 1, head.size(), out);
    });
    std::string lost;
    for (size_t c = 0; c < result.lost_per_cpu.size(); ++c)
      lost += fmt::format(" cpu{}={}", c, result.lost_per_cpu[c]);
    std::fprintf(stderr, "state_dump: %llu records in %.3f s (stopped by %s); lost:%s%s\n",
                 static_cast<unsigned long long>(result.records), result.seconds,
                 result.stopped_by.c_str(), lost.c_str(),
                 result.lost_total() ? "  RECORDS WERE LOST: the capture is incomplete" : "");
  } catch (const CaptureError& e) {
    std::fprintf(stderr, "state_dump: %s [%s]\n", e.what(), error_kind_name(e.kind()));
    return 2;
  }
  return 0;
}
