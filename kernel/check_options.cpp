#include "kernel/check_options.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel/group_weight.h"
#include "kernel/kernel_release.h"
#include "kernel/text_fields.h"
#include "spec/error.h"
#include "spec/weights.h"

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
        // Every view the range rests on is named (the range is what they agree on).
        const std::string view = snap.file + " cfs_rq[" + std::to_string(cpu.id) + "]";
        g.shares_source = g.shares_source.empty() ? "sched debug snapshot " + view
                                                  : g.shares_source + ", " + view;
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

namespace {

std::string shares_text(const Range& r) {
  return r.is_exact() ? std::to_string(static_cast<int64_t>(r.lo))
                      : std::to_string(static_cast<int64_t>(r.lo)) + ".." +
                            std::to_string(static_cast<int64_t>(r.hi));
}

// "GROUP KNOB VALUE": tg->shares as the cgroup knob set it. The knob is taken for the whole
// capture; a snapshot whose printed group-entity weight rules that value out says the knob was
// not what the line says (another group, or set again during the capture), and a verdict on a
// weight the capture contradicts could be a false alarm: the line is refused.
void read_shares_line(std::istringstream& ss, const std::string& group, const std::string& knob,
                      const std::string& file, int n, std::map<std::string, int>& first_line,
                      KernelCheckOptions& options) {
  const char* expected = " (expected 'GROUP cpu.shares N' or 'GROUP cpu.weight N')";
  std::string value_text, extra;
  if (knob != "cpu.shares" && knob != "cpu.weight")
    fail_at(file, n, "field 'knob': '" + knob + "' is not cpu.shares, cpu.weight or complete");
  if (!(ss >> value_text)) fail_at(file, n, std::string("field 'value': missing") + expected);
  if (ss >> extra) fail_at(file, n, "field 'value': '" + extra + "' after the value" + expected);
  if (group == "/") fail_at(file, n, "field 'group': the root group has no " + knob);
  if (group.rfind("/autogroup-", 0) == 0)
    fail_at(file, n,
            "field 'group': '" + group + "' is an autogroup, which has no " + knob +
                " (its shares follow its nice value, /proc/PID/autogroup)");
  const int64_t value = parse_int64(value_text, file, n, "value");
  int64_t shares = 0;
  if (knob == "cpu.shares") {
    if (value < 0) fail_at(file, n, "field 'value': cpu.shares " + value_text + " is negative");
    shares = shares_of_cpu_shares(value);
  } else {
    if (value < 1 || value > 10'000)
      fail_at(file, n,
              "field 'value': cpu.weight " + value_text +
                  " is outside 1..10000 (the kernel refuses it)");
    shares = cgroup_weight_to_shares(value);
  }
  const auto [it, fresh] = first_line.emplace(group, n);
  if (!fresh)
    fail_at(file, n,
            "field 'group': shares of " + group + " given twice (first on line " +
                std::to_string(it->second) + ")");
  GroupKnowledge& g = options.groups[group];
  const std::string stated =
      knob + " " + value_text + " (tg->shares " + std::to_string(shares) + ")";
  const double w = static_cast<double>(shares);
  if (g.shares && (w < g.shares->lo || w > g.shares->hi))
    fail_at(file, n,
            "field 'value': " + stated + " contradicts " + g.shares_source + ", whose weight of " +
                group + "'s entity allows tg->shares " + shares_text(*g.shares) + " only");
  g.shares = Range::exact(w);
  g.shares_source = "group map " + file + ":" + std::to_string(n) + ", " + knob + " " + value_text;
}

// "GROUP complete": the map names every task of the group and of the groups below it (or a
// parent they were forked from), so a task it does not name is in none of them. Without it, a
// task no snapshot or map places may be in any group (SPEC.md §6.2).
void read_complete_line(std::istringstream& ss, const std::string& group, const std::string& file,
                        int n, KernelCheckOptions& options) {
  std::string extra;
  if (ss >> extra)
    fail_at(file, n, "field 'knob': '" + extra + "' after complete (expected 'GROUP complete')");
  if (group == "/")
    fail_at(file, n, "field 'group': the root group holds every task no line places elsewhere");
  GroupKnowledge& g = options.groups[group];
  if (!g.complete_source.empty())
    fail_at(
        file, n,
        "field 'group': " + group + " said complete twice (first at " + g.complete_source + ")");
  g.complete_source = file + ":" + std::to_string(n);
}

}  // namespace

void read_group_map(const std::string& file, KernelCheckOptions& options) {
  if (std::filesystem::is_directory(file)) throw Error(file + ": is a directory, not a group map");
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot open");
  std::map<int64_t, int> first_line;
  std::map<std::string, int> shares_line;
  std::string line;
  int entries = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos) fail_at(file, n, "field 'line': NUL byte");
    const std::string_view s = trim_blanks(line);
    if (s.empty() || s[0] == '#') continue;
    std::istringstream ss{std::string(s)};
    std::string pid_text, group, extra;
    if (s[0] == '/') {  // a group's shares, or that the map names all its tasks
      std::string knob;
      ss >> group;
      if (!(ss >> knob))
        fail_at(file, n,
                "field 'knob': missing (expected 'GROUP cpu.shares N', 'GROUP cpu.weight N' or "
                "'GROUP complete')");
      if (knob == "complete")
        read_complete_line(ss, group, file, n, options);
      else
        read_shares_line(ss, group, knob, file, n, shares_line, options);
      ++entries;
      continue;
    }
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
  if (entries == 0) throw Error(file + ": no 'PID GROUP' or 'GROUP KNOB VALUE' lines");
  options.groups_known = true;
  options.group_source = options.group_source == "none"
                             ? "group map " + file
                             : options.group_source + ", group map " + file;
}

}  // namespace vlag::kernel
