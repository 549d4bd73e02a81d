#include "kernel/check_options.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel/group_weight.h"
#include "kernel/kernel_release.h"
#include "kernel/text_fields.h"
#include "spec/error.h"

namespace vlag::kernel {

void learn_from_snapshot(const SchedDebugSnapshot& snap, KernelCheckOptions& options) {
  int max_cpu = 0;
  for (const auto& cpu : snap.cpus) {
    max_cpu = std::max(max_cpu, cpu.id);
    for (const auto& t : cpu.tasks) {
      options.group_of[t.pid] = t.group_path;
      if (t.slice_ns) options.slice_of[t.pid] = *t.slice_ns;
      options.snapshot_tasks[t.pid] = {cpu.id, t.state};
    }
    for (const auto& rq : cpu.cfs_rqs) {
      if (rq.path == "/") continue;
      GroupKnowledge& g = options.groups[rq.path];
      if (const auto s = shares_from_snapshot(rq, snap.file)) {
        if (!g.shares) {
          g.shares = *s;
        } else {  // several views of one value: keep what they agree on
          const Range both{std::max(g.shares->lo, s->lo), std::min(g.shares->hi, s->hi)};
          g.shares = both.lo <= both.hi ? both : g.shares->hull(*s);
        }
      }
      const auto other = other_cpus_load(rq, snap.file);
      if (other && snap.clock_ns) g.samples.push_back({*snap.clock_ns, cpu.id, *other});
    }
  }
  options.groups_known = true;
  if (!options.kernel_release)
    if (auto release = release_of_sched_debug_version(snap.version)) {
      options.kernel_release = std::move(release);
      options.kernel_release_source = snap.file;
    }
  const int n = max_cpu + 1;
  if (!options.machine_cpus || *options.machine_cpus < n) options.machine_cpus = n;
  if (snap.base_slice_ns && !options.base_slice_ns) {
    options.base_slice_ns = *snap.base_slice_ns;
    options.base_slice_source = "sysctl_sched_base_slice of " + snap.file;
  }
  options.group_source = "sched debug snapshot " + snap.file;
}

void read_group_map(const std::string& file, KernelCheckOptions& options) {
  if (std::filesystem::is_directory(file)) throw Error(file + ": is a directory, not a group map");
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  std::map<int64_t, int> first_line;
  std::string line;
  int entries = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos) fail_at(file, n, "field 'line': NUL byte");
    const std::string_view s = trim_blanks(line);
    if (s.empty() || s[0] == '#') continue;
    std::istringstream ss{std::string(s)};
    std::string pid_text, group, extra;
    if (!(ss >> pid_text >> group))
      fail_at(file, n, "field 'group': missing (expected 'PID GROUP')");
    if (ss >> extra)
      fail_at(file, n, "field 'group': '" + extra + "' after the group (expected 'PID GROUP')");
    const int64_t pid = parse_int64(pid_text, file, n, "pid");
    if (pid < 0 || pid > 4'194'304)
      fail_at(file, n, "field 'pid': " + pid_text + " is outside 0..4194304");
    if (group[0] != '/')
      fail_at(file, n, "field 'group': '" + group + "' is not a path starting with '/'");
    const auto [it, fresh] = first_line.emplace(pid, n);
    if (!fresh)
      fail_at(file, n,
              "field 'pid': " + pid_text + " given twice (first on line " +
                  std::to_string(it->second) + ")");
    options.group_of[pid] = group;
    ++entries;
  }
  if (entries == 0) throw Error(file + ": no 'PID GROUP' lines");
  options.groups_known = true;
  options.group_source = "group map " + file;
}

}  // namespace vlag::kernel
