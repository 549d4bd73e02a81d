// Side by side on the same trace, one core, in one run: simdjson alone walking every field of
// every line (the floor: no checker can read the file faster), the trace reader (simdjson plus
// exact numbers), then `vlag check`'s full pass (all three layers, no Z3: a clean trace has no
// violation to arbitrate). Each is timed in CPU time of this thread, which other processes on
// the machine do not inflate, and in wall-clock time, each the best of --repeat runs (3); the
// ratio is the check's CPU time over simdjson's.
// Usage: vlag_check_bench [--repeat N] [--only simdjson|reader|check] TRACE
// (--only: that pass alone, for a profiler).
#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>

#include "checker/run.h"
#include "trace/reader.h"

namespace {

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timing {
  double cpu = 0, wall = 0;
};

// The best of `repeat` runs of f.
template <class F>
Timing timed(int repeat, F&& f) {
  Timing best;
  for (int i = 0; i < repeat; ++i) {
    const auto wall = std::chrono::steady_clock::now();
    const double cpu = thread_seconds();
    f();
    const Timing t{thread_seconds() - cpu,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count()};
    if (i == 0 || t.cpu < best.cpu) best.cpu = t.cpu;
    if (i == 0 || t.wall < best.wall) best.wall = t.wall;
  }
  return best;
}

// The floor: every line parsed by simdjson's on-demand API and every field value visited.
size_t simdjson_walk(const std::string& path) {
  std::ifstream in(path);
  simdjson::ondemand::parser parser;
  std::string line, padded;
  size_t fields = 0;
  while (std::getline(in, line)) {
    padded.assign(line);
    padded.resize(line.size() + simdjson::SIMDJSON_PADDING, ' ');
    simdjson::ondemand::document doc;
    simdjson::ondemand::object obj;
    if (parser.iterate(padded.data(), line.size(), padded.size()).get(doc) ||
        doc.get_object().get(obj))
      continue;
    for (auto field : obj) {
      simdjson::ondemand::value v;
      if (field.value().get(v)) break;
      fields += v.raw_json_token().size() > 0;
    }
  }
  return fields;
}

// The trace reader alone: simdjson plus conversion of every field into exact numbers.
size_t read_only(const std::string& path) {
  std::ifstream in(path);
  vlag::trace::Reader reader(in, path);
  size_t events = 0;
  while (reader.next_event()) ++events;
  return events;
}

void print(const char* what, const Timing& t, int64_t events) {
  std::cout << what << t.cpu << " s CPU, " << t.wall << " s wall";
  if (events > 0 && t.cpu > 0)
    std::cout << ", " << static_cast<int64_t>(static_cast<double>(events) / t.cpu) << " events/s";
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  int repeat = 3;
  int i = 1;
  for (; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--only") == 0)
      only = argv[i + 1];
    else if (std::strcmp(argv[i], "--repeat") == 0)
      repeat = std::atoi(argv[i + 1]);
    else
      break;
  }
  if (i != argc - 1 || repeat < 1 ||
      !(only.empty() || only == "simdjson" || only == "reader" || only == "check")) {
    std::cerr << "usage: vlag_check_bench [--repeat N] [--only simdjson|reader|check] TRACE\n";
    return 2;
  }
  const std::string path = argv[argc - 1];
  size_t fields = 0, events = 0;
  Timing parse, read, check;
  vlag::checker::Report r;
  if (only.empty() || only == "simdjson")
    parse = timed(repeat, [&] { fields = simdjson_walk(path); });
  if (only.empty() || only == "reader") read = timed(repeat, [&] { events = read_only(path); });
  if (only.empty() || only == "check") {
    vlag::checker::CheckOptions options;
    options.arbiter = false;
    check = timed(repeat,
                  [&] { r = vlag::checker::check({vlag::checker::file_source(path)}, options); });
  }
  if (!only.empty()) return 0;
  print("simdjson walk: ", parse, static_cast<int64_t>(events));
  std::cout << "               (" << fields << " fields)\n";
  print("trace reader:  ", read, static_cast<int64_t>(events));
  print("vlag check:    ", check, r.events);
  std::cout << "               (" << r.events << " events, " << r.violation_count
            << " violations)\n"
            << "ratio:         " << check.cpu / parse.cpu << "x simdjson (CPU time)\n";
  return 0;
}
