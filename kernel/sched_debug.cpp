#include "kernel/sched_debug.h"

#include <charconv>
#include <istream>
#include <sstream>

#include "kernel/text_fields.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  fail_at(file, line, what);
}

[[noreturn]] void bad_field(const std::string& file, int line, const std::string& field,
                            const std::string& what) {
  fail(file, line, "field '" + field + "': " + what);
}

std::string trim(const std::string& s) { return std::string(trim_blanks(s)); }

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

constexpr int64_t kPidMax = 4'194'304;  // PID_MAX_LIMIT

int64_t parse_int(const std::string& text, const std::string& file, int line,
                  const std::string& field) {
  return parse_int64(text, file, line, field);
}

int64_t in_range(const std::string& text, int64_t lo, int64_t hi, const std::string& file, int line,
                 const std::string& field) {
  const int64_t v = parse_int(text, file, line, field);
  if (v < lo || v > hi)
    bad_field(file, line, field,
              text + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

// What each ".key : value" the kernel prints holds, so that a corrupt value is caught when
// read, whether or not a check uses it.
enum class Kind : uint8_t { Count, Signed, Time, PositiveTime, Pid, Text };

Kind kind_of(const std::string& key) {
  static const std::map<std::string, Kind> kinds = {
      {"nr_running", Kind::Count},
      {"nr_queued", Kind::Count},
      {"h_nr_runnable", Kind::Count},
      {"h_nr_queued", Kind::Count},
      {"h_nr_idle", Kind::Count},
      {"h_nr_running", Kind::Count},
      {"idle_nr_running", Kind::Count},
      {"idle_h_nr_running", Kind::Count},
      {"load", Kind::Count},
      {"load_avg", Kind::Count},
      {"runnable_avg", Kind::Count},
      {"util_avg", Kind::Count},
      {"util_est", Kind::Count},
      {"removed.load_avg", Kind::Count},
      {"removed.util_avg", Kind::Count},
      {"removed.runnable_avg", Kind::Count},
      {"tg_load_avg_contrib", Kind::Count},
      {"tg_load_avg", Kind::Count},
      {"throttled", Kind::Count},
      {"throttle_count", Kind::Count},
      {"se->load.weight", Kind::Count},
      {"se->avg.load_avg", Kind::Count},
      {"se->avg.util_avg", Kind::Count},
      {"se->avg.runnable_avg", Kind::Count},
      {"nr_switches", Kind::Count},
      {"avg_idle", Kind::Count},
      {"max_idle_balance_cost", Kind::Count},
      {"rt_nr_running", Kind::Count},
      {"rt_throttled", Kind::Count},
      {"dl_nr_running", Kind::Count},
      {"dl_bw->bw", Kind::Count},
      {"dl_bw->total_bw", Kind::Count},
      {"sysctl_sched_features", Kind::Count},
      {"nr_uninterruptible", Kind::Signed},
      {"curr->pid", Kind::Pid},
      {"avg_vruntime", Kind::Time},
      {"zero_vruntime", Kind::Time},
      {"min_vruntime", Kind::Time},
      {"left_vruntime", Kind::Time},
      {"right_vruntime", Kind::Time},
      {"left_deadline", Kind::Time},
      {"spread", Kind::Time},
      {"exec_clock", Kind::Time},
      {"clock", Kind::Time},
      {"clock_task", Kind::Time},
      {"next_balance", Kind::Time},
      {"se->exec_start", Kind::Time},
      {"se->vruntime", Kind::Time},
      {"se->sum_exec_runtime", Kind::Time},
      {"rt_time", Kind::Time},
      {"rt_runtime", Kind::Time},
      {"sysctl_sched_base_slice", Kind::PositiveTime},
  };
  const auto it = kinds.find(key);
  return it == kinds.end() ? Kind::Text : it->second;
}

void validate(const std::string& key, const std::string& value, const std::string& file, int line) {
  switch (kind_of(key)) {
    case Kind::Count:
      in_range(value, 0, INT64_MAX, file, line, key);
      return;
    case Kind::Signed:
      parse_int(value, file, line, key);
      return;
    case Kind::Pid:
      in_range(value, 0, kPidMax, file, line, key);
      return;
    case Kind::Time:
      parse_ms_as_ns(value, file, line, key);
      return;
    case Kind::PositiveTime:
      if (parse_ms_as_ns(value, file, line, key) <= 0)
        bad_field(file, line, key, value + " is not a positive time");
      return;
    case Kind::Text:
      if (value.empty()) bad_field(file, line, key, "empty");
      return;
  }
}

// "cfs_rq[3]:/autogroup-1" → 3.
int bracket_number(const std::string& s, const std::string& file, int line) {
  const size_t a = s.find('['), b = s.find(']', a == std::string::npos ? 0 : a + 1);
  if (a == std::string::npos || b == std::string::npos)
    fail(file, line, "malformed header '" + s + "'");
  return static_cast<int>(in_range(s.substr(a + 1, b - a - 1), 0, 8191, file, line, "cpu"));
}

struct Columns {
  size_t comm_end = 0;             // where the right-aligned comm column ends
  std::vector<std::string> after;  // header names after "task", in order
};

Columns parse_header(const std::string& header, const std::string& file, int line) {
  const size_t task = header.find("task");
  if (task == std::string::npos) fail(file, line, "runnable tasks header has no 'task' column");
  Columns c;
  c.comm_end = task + 4;
  std::istringstream rest(header.substr(c.comm_end));
  for (std::string name; rest >> name;) c.after.push_back(name);
  if (c.after.empty() || (c.after.front() != "PID" && c.after.front() != "pid"))
    fail(file, line, "runnable tasks header has no PID column after 'task'");
  return c;
}

TaskRowSnapshot parse_row(const std::string& row, const Columns& cols, const std::string& file,
                          int line) {
  if (row.size() < cols.comm_end + 1) fail(file, line, "runnable task row is too short");
  TaskRowSnapshot t;
  t.line = line;
  if (row[0] != '>' && row[0] != ' ')
    bad_field(file, line, "current", std::string("'") + row[0] + "' is neither '>' nor blank");
  t.current = row[0] == '>';
  t.state = row[1];
  if (std::string("RSDTtXZPIWKN").find(t.state) == std::string::npos)
    bad_field(file, line, "state", std::string("'") + t.state + "' is not a task state");
  t.comm = trim(row.substr(2, cols.comm_end - 2));
  std::istringstream rest(row.substr(cols.comm_end));
  std::vector<std::string> toks;
  for (std::string tok; rest >> tok;) toks.push_back(tok);

  size_t i = 0;
  for (const std::string& col : cols.after) {
    if (i >= toks.size()) bad_field(file, line, col, "missing (truncated row?)");
    if (col == "eligible") {
      if (toks[i] != "E" && toks[i] != "N")
        bad_field(file, line, col, "'" + toks[i] + "' is neither E nor N");
      t.eligible = toks[i++] == "E";
      continue;
    }
    if (col == "slice" && toks[i] == "S") {  // the custom-slice flag
      t.custom_slice = true;
      if (++i >= toks.size()) bad_field(file, line, col, "missing (truncated row?)");
    }
    const std::string& v = toks[i++];
    if (col == "PID" || col == "pid")
      t.pid = in_range(v, 0, kPidMax, file, line, col);
    else if (col == "vruntime" || col == "tree-key")
      t.vruntime_ns = parse_ms_as_ns(v, file, line, col);
    else if (col == "deadline")
      t.deadline_ns = parse_ms_as_ns(v, file, line, col);
    else if (col == "slice") {
      t.slice_ns = parse_ms_as_ns(v, file, line, col);
      if (*t.slice_ns <= 0) bad_field(file, line, col, v + " is not a positive time");
    } else if (col == "sum-exec") {
      t.sum_exec_ns = parse_ms_as_ns(v, file, line, col);
      if (*t.sum_exec_ns < 0) bad_field(file, line, col, v + " is negative");
    } else if (col == "switches")
      t.switches = in_range(v, 0, INT64_MAX, file, line, col);
    else if (col == "prio")
      t.prio = static_cast<int>(in_range(v, -1, 139, file, line, col));
    else if (col == "wait-time" || col == "sum-sleep" || col == "sum-block") {
      if (parse_ms_as_ns(v, file, line, col) < 0) bad_field(file, line, col, v + " is negative");
    } else if (col == "node")
      in_range(v, -1, 1 << 20, file, line, col);
    else if (col == "group-id")
      in_range(v, 0, INT64_MAX, file, line, col);
    else if (col == "group-path") {
      if (v[0] != '/') bad_field(file, line, col, "'" + v + "' is not a path");
      t.group_path = v;
    }
  }
  if (t.comm.empty()) bad_field(file, line, "task", "empty");
  if (t.group_path.empty()) t.group_path = "/";
  return t;
}

// Stores a ".key : value" line after checking it; a key given twice in one section is an error.
void store_field(std::map<std::string, SnapshotField>& into, const std::string& s,
                 const std::string& file, int line) {
  const size_t colon = s.find(':');
  if (colon == std::string::npos) fail(file, line, "field line without ':'");
  const std::string key = trim(s.substr(1, colon - 1));
  const std::string value = trim(s.substr(colon + 1));
  if (key.empty()) fail(file, line, "field line without a key");
  validate(key, value, file, line);
  const auto [it, fresh] = into.emplace(key, SnapshotField{value, line});
  if (!fresh)
    bad_field(file, line, key,
              "given twice in one section (first on line " + std::to_string(it->second.line) + ")");
}

}  // namespace

int64_t parse_ms_as_ns(const std::string& text, const std::string& file, int line,
                       const std::string& field) {
  const auto bad = [&]() -> int64_t {
    bad_field(file, line, field, "'" + text + "' is not a time in ms with 6 decimals");
  };
  const bool neg = !text.empty() && text[0] == '-';
  const std::string body = neg ? text.substr(1) : text;
  const size_t dot = body.find('.');
  if (dot == std::string::npos || dot == 0 || body.size() - dot - 1 != 6) return bad();
  // Digits only on both sides: from_chars alone would take a sign ("1.-84462", found by the
  // fuzzer, made the range check below overflow).
  for (size_t i = 0; i < body.size(); ++i)
    if (i != dot && (body[i] < '0' || body[i] > '9')) return bad();
  int64_t ms = 0, ns = 0;
  const char* b = body.data();
  auto r1 = std::from_chars(b, b + dot, ms);
  auto r2 = std::from_chars(b + dot + 1, b + body.size(), ns);
  if (r1.ec != std::errc() || r1.ptr != b + dot || r2.ec != std::errc() ||
      r2.ptr != b + body.size())
    return bad();
  if (ms > (INT64_MAX - ns) / 1'000'000)
    bad_field(file, line, field, "'" + text + "' does not fit 64-bit nanoseconds");
  const int64_t v = ms * 1'000'000 + ns;
  return neg ? -v : v;
}

std::optional<int64_t> CfsRqSnapshot::time_ns(const std::string& key,
                                              const std::string& file) const {
  const auto it = fields.find(key);
  if (it == fields.end()) return std::nullopt;
  return parse_ms_as_ns(it->second.value, file, it->second.line, key);
}

std::optional<int64_t> CfsRqSnapshot::integer(const std::string& key,
                                              const std::string& file) const {
  const auto it = fields.find(key);
  if (it == fields.end()) return std::nullopt;
  return parse_int(it->second.value, file, it->second.line, key);
}

std::optional<int64_t> CpuSnapshot::curr_pid(const std::string& file) const {
  const auto it = fields.find("curr->pid");
  if (it == fields.end()) return std::nullopt;
  return parse_int(it->second.value, file, it->second.line, "curr->pid");
}

SchedDebugSnapshot parse_sched_debug(std::istream& in, const std::string& file,
                                     const SchedDebugOptions& options) {
  SchedDebugSnapshot snap;
  snap.file = file;
  enum class Section {
    None,
    Sysctl,
    Cpu,
    CfsRq,
    Other,
    TasksHeader,
    TasksRule,
    Tasks
  } sec = Section::None;
  Columns cols;
  std::string raw;
  int last_line = 0;
  const auto tolerate = [&](const Error& e) {
    if (!options.keep_going) throw e;
    if (snap.skipped++ == 0) snap.first_error = e.what();
  };
  for (int line = 1; std::getline(in, raw); ++line) {
    last_line = line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (const size_t nul = raw.find('\0'); nul != std::string::npos) {
      try {
        bad_field(file, line, "line", "NUL byte at column " + std::to_string(nul + 1));
      } catch (const Error& e) {
        tolerate(e);
      }
      continue;
    }
    const std::string s = trim(raw);
    if (starts_with(raw, "Sched Debug Version:")) {
      snap.version = trim(raw.substr(20));
    } else if (starts_with(raw, "cpu_clk") && sec == Section::None) {
      const size_t colon = raw.find(':');
      if (colon == std::string::npos) fail(file, line, "field line without ':'");
      snap.clock_ns = parse_ms_as_ns(trim(raw.substr(colon + 1)), file, line, "cpu_clk");
    } else if (raw == "sysctl_sched") {
      sec = Section::Sysctl;
    } else if (starts_with(raw, "cpu#")) {
      CpuSnapshot cpu;
      cpu.id =
          static_cast<int>(in_range(raw.substr(4, raw.find(',') - 4), 0, 8191, file, line, "cpu"));
      cpu.line = line;
      for (const auto& other : snap.cpus)
        if (other.id == cpu.id)
          bad_field(file, line, "cpu",
                    "cpu#" + std::to_string(cpu.id) + " given twice (first on line " +
                        std::to_string(other.line) + ")");
      snap.cpus.push_back(cpu);
      sec = Section::Cpu;
    } else if (starts_with(raw, "cfs_rq[")) {
      if (snap.cpus.empty()) fail(file, line, "cfs_rq section before any cpu# section");
      CfsRqSnapshot rq;
      rq.cpu = bracket_number(raw, file, line);
      if (rq.cpu != snap.cpus.back().id)
        fail(file, line,
             "cfs_rq of cpu " + std::to_string(rq.cpu) + " inside cpu#" +
                 std::to_string(snap.cpus.back().id));
      rq.path = trim(raw.substr(raw.find(':') + 1));
      if (rq.path.empty() || rq.path[0] != '/')
        bad_field(file, line, "cfs_rq", "'" + rq.path + "' is not a group path");
      rq.line = line;
      snap.cpus.back().cfs_rqs.push_back(rq);
      sec = Section::CfsRq;
    } else if (raw == "runnable tasks:") {
      if (snap.cpus.empty()) fail(file, line, "runnable tasks before any cpu# section");
      snap.cpus.back().has_task_table = true;
      sec = Section::TasksHeader;
    } else if (sec == Section::TasksHeader) {
      cols = parse_header(raw, file, line);
      sec = Section::TasksRule;
    } else if (sec == Section::TasksRule) {
      if (s.empty() || s.find_first_not_of('-') != std::string::npos)
        fail(file, line, "expected the dashed rule under the runnable tasks header");
      sec = Section::Tasks;
    } else if (sec == Section::Tasks && !s.empty()) {
      try {
        snap.cpus.back().tasks.push_back(parse_row(raw, cols, file, line));
      } catch (const Error& e) {
        tolerate(e);
      }
    } else if (s.empty()) {
      if (sec != Section::Cpu) sec = Section::None;
    } else if (s[0] == '.' &&
               (sec == Section::CfsRq || sec == Section::Sysctl || sec == Section::Cpu)) {
      try {
        if (sec == Section::CfsRq) {
          store_field(snap.cpus.back().cfs_rqs.back().fields, s, file, line);
        } else if (sec == Section::Cpu) {
          store_field(snap.cpus.back().fields, s, file, line);
        } else {
          std::map<std::string, SnapshotField> sysctl;
          store_field(sysctl, s, file, line);
          const auto it = sysctl.find("sysctl_sched_base_slice");
          if (it != sysctl.end()) {
            if (snap.base_slice_ns) bad_field(file, line, it->first, "given twice");
            snap.base_slice_ns = parse_ms_as_ns(it->second.value, file, line, it->first);
          }
        }
      } catch (const Error& e) {
        tolerate(e);
      }
    } else if (raw.find("_rq[") != std::string::npos) {
      sec = Section::Other;  // rt_rq, dl_rq: not the fair class
    }
  }
  if (snap.cpus.empty())
    throw Error(file + ": no cpu# sections: not a /sys/kernel/debug/sched/debug snapshot" +
                (last_line == 0 ? " (empty)" : ""));
  for (const auto& cpu : snap.cpus)
    if (!cpu.has_task_table)
      throw Error(file + ":" + std::to_string(last_line) + ": cpu#" + std::to_string(cpu.id) +
                  " (line " + std::to_string(cpu.line) +
                  ") has no runnable tasks table: the snapshot is truncated");
  return snap;
}

std::map<int64_t, int64_t> custom_slices(const SchedDebugSnapshot& snap) {
  std::map<int64_t, int64_t> slices;
  for (const auto& cpu : snap.cpus)
    for (const auto& t : cpu.tasks)
      if (t.custom_slice && t.slice_ns) slices[t.pid] = *t.slice_ns;
  return slices;
}

}  // namespace vlag::kernel
