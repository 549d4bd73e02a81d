// Side by side on one trace, one core: simdjson alone walking every field of every line, the
// trace reader (simdjson plus exact numbers), then `vlag check`'s full pass (all three layers, no
// Z3: a clean trace has no violation to arbitrate). Usage: vlag_check_bench TRACE
#include <simdjson.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

#include "checker/run.h"
#include "trace/reader.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  while (reader.next()) ++events;
  return events;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vlag_check_bench TRACE\n";
    return 2;
  }
  const std::string path = argv[1];
  auto start = std::chrono::steady_clock::now();
  const size_t fields = simdjson_walk(path);
  const double parse = seconds_since(start);

  start = std::chrono::steady_clock::now();
  read_only(path);
  const double read = seconds_since(start);

  vlag::checker::CheckOptions options;
  options.arbiter = false;
  start = std::chrono::steady_clock::now();
  const vlag::checker::Report r = vlag::checker::check({vlag::checker::file_source(path)}, options);
  const double check = seconds_since(start);

  std::cout << "simdjson walk: " << parse << " s (" << fields << " fields)\n"
            << "trace reader:  " << read << " s\n"
            << "vlag check:    " << check << " s (" << r.events << " events, " << r.violation_count
            << " violations)\n"
            << "ratio:         " << check / parse << "x\n";
  return 0;
}
