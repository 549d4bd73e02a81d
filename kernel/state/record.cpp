#include "kernel/state/record.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "kernel/state/capture_file.h"
#include "spec/error.h"

namespace vlag::kernel::state {
namespace {

namespace fs = std::filesystem;

std::string make_dir(const std::string& wanted) {
  if (!wanted.empty()) {
    std::error_code ec;
    fs::create_directories(wanted, ec);
    if (ec) throw Error(wanted + ": cannot create the directory: " + ec.message());
    return wanted;
  }
  std::string pattern = (fs::temp_directory_path() / "vlag-state-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw Error(pattern + ": cannot create a directory");
  return pattern;
}

}  // namespace

RecordedState record_state(const StateRecordOptions& o,
                           const std::function<void(const bpf::KernelParameters&)>& on_start) {
  if (const auto missing = bpf::capture_unavailable()) throw *missing;
  RecordedState out;
  out.dir = make_dir(o.out_dir);
  bpf::CaptureOptions c;
  c.cpus = o.cpus;
  c.duration_s = o.duration_s;
  c.command = o.command;
  c.queues = o.queues;
  c.raw_path = (fs::path(out.dir) / kRawName).string();
  out.result = bpf::capture(
      c, [](const bpf::StateRecord&) {}, on_start);
  CaptureFacts facts;
  facts.cpus = o.cpus;
  facts.lost_per_cpu = out.result.lost_per_cpu;
  facts.records = out.result.records;
  facts.seconds = out.result.seconds;
  facts.stopped_by = out.result.stopped_by;
  facts.command = o.command;
  facts.queues = o.queues;
  const std::string path = (fs::path(out.dir) / kFactsName).string();
  std::ofstream f(path);
  f << capture_json(out.result.kernel, facts);
  if (!f.flush()) throw Error(path + ": cannot write");
  return out;
}

}  // namespace vlag::kernel::state
