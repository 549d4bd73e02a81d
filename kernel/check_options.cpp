#include "kernel/check_options.h"

#include <fstream>
#include <sstream>

#include "spec/error.h"

namespace vlag::kernel {

void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelCheckOptions& options) {
  for (const auto& cpu : snap.cpus)
    for (const auto& t : cpu.tasks) options.group_of[t.pid] = t.group_path;
  for (const auto& [pid, slice] : custom_slices(snap)) options.slice_of[pid] = slice;
  if (snap.base_slice_ns && options.base_slice_ns == 0) options.base_slice_ns = *snap.base_slice_ns;
  options.group_source = "sched debug snapshot " + snap.file;
}

void read_group_map(const std::string& file, KernelCheckOptions& options) {
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    int64_t pid = 0;
    std::string group;
    if (!(ss >> pid >> group))
      throw Error(file + ":" + std::to_string(n) + ": expected 'PID GROUP'");
    options.group_of[pid] = group;
  }
  options.group_source = "group map " + file;
}

}  // namespace vlag::kernel
