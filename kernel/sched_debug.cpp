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

std::string trim(const std::string& s) { return std::string(trim_blanks(s)); }

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

int64_t parse_int(const std::string& text, const std::string& file, int line,
                  const std::string& field) {
  return parse_int64(text, file, line, field);
}

// "cfs_rq[3]:/autogroup-1" → (3, "/autogroup-1"); "cpu#1, 2445.404 MHz" → 1.
int bracket_number(const std::string& s, char open, char close, const std::string& file, int line) {
  const size_t a = s.find(open), b = s.find(close, a == std::string::npos ? 0 : a + 1);
  if (a == std::string::npos || b == std::string::npos)
    fail(file, line, "malformed header '" + s + "'");
  return static_cast<int>(parse_int(s.substr(a + 1, b - a - 1), file, line, "cpu"));
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

bool is_flag(const std::string& tok) { return tok.size() == 1 && tok[0] >= 'A' && tok[0] <= 'Z'; }

TaskRowSnapshot parse_row(const std::string& row, const Columns& cols, const std::string& file,
                          int line) {
  if (row.size() < cols.comm_end + 1) fail(file, line, "runnable task row is too short");
  TaskRowSnapshot t;
  t.line = line;
  t.current = row[0] == '>';
  t.state = row[1];
  t.comm = trim(row.substr(2, cols.comm_end - 2));
  std::istringstream rest(row.substr(cols.comm_end));
  std::vector<std::string> toks;
  for (std::string tok; rest >> tok;) toks.push_back(tok);

  size_t i = 0;
  for (const std::string& col : cols.after) {
    if (i >= toks.size()) break;  // trailing columns may be empty
    if (col == "eligible") {
      if (toks[i] != "E" && toks[i] != "N")
        fail(file, line, "field 'eligible': '" + toks[i] + "' is neither E nor N");
      t.eligible = toks[i++] == "E";
      continue;
    }
    std::string flag;
    if (is_flag(toks[i]) && col != "group-path") flag = toks[i++];
    if (i >= toks.size()) fail(file, line, "field '" + col + "' is missing");
    const std::string& v = toks[i++];
    if (col == "PID" || col == "pid")
      t.pid = parse_int(v, file, line, col);
    else if (col == "vruntime" || col == "tree-key")
      t.vruntime_ns = parse_ms_as_ns(v, file, line, col);
    else if (col == "deadline")
      t.deadline_ns = parse_ms_as_ns(v, file, line, col);
    else if (col == "slice") {
      t.slice_ns = parse_ms_as_ns(v, file, line, col);
      t.custom_slice = flag == "S";
    } else if (col == "prio")
      t.prio = static_cast<int>(parse_int(v, file, line, col));
    else if (col == "group-path")
      t.group_path = v;
  }
  if (t.pid == 0 && t.comm.empty()) fail(file, line, "runnable task row has no PID");
  if (t.group_path.empty()) t.group_path = "/";
  return t;
}

}  // namespace

int64_t parse_ms_as_ns(const std::string& text, const std::string& file, int line,
                       const std::string& field) {
  const auto bad = [&]() -> int64_t {
    fail(file, line, "field '" + field + "': '" + text + "' is not a time in ms with 6 decimals");
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
    fail(file, line, "field '" + field + "': '" + text + "' does not fit 64-bit nanoseconds");
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

SchedDebugSnapshot parse_sched_debug(std::istream& in, const std::string& file) {
  SchedDebugSnapshot snap;
  snap.file = file;
  enum class Section {
    None,
    Sysctl,
    CfsRq,
    Other,
    TasksHeader,
    TasksRule,
    Tasks
  } sec = Section::None;
  Columns cols;
  std::string raw;
  for (int line = 1; std::getline(in, raw); ++line) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string s = trim(raw);
    if (starts_with(raw, "Sched Debug Version:")) {
      snap.version = trim(raw.substr(20));
    } else if (raw == "sysctl_sched") {
      sec = Section::Sysctl;
    } else if (starts_with(raw, "cpu#")) {
      CpuSnapshot cpu;
      cpu.id = static_cast<int>(parse_int(raw.substr(4, raw.find(',') - 4), file, line, "cpu"));
      cpu.line = line;
      snap.cpus.push_back(cpu);
      sec = Section::Other;
    } else if (starts_with(raw, "cfs_rq[")) {
      if (snap.cpus.empty()) fail(file, line, "cfs_rq section before any cpu# section");
      CfsRqSnapshot rq;
      rq.cpu = bracket_number(raw, '[', ']', file, line);
      if (rq.cpu != snap.cpus.back().id)
        fail(file, line,
             "cfs_rq of cpu " + std::to_string(rq.cpu) + " inside cpu#" +
                 std::to_string(snap.cpus.back().id));
      rq.path = trim(raw.substr(raw.find(':') + 1));
      rq.line = line;
      snap.cpus.back().cfs_rqs.push_back(rq);
      sec = Section::CfsRq;
    } else if (raw == "runnable tasks:") {
      if (snap.cpus.empty()) fail(file, line, "runnable tasks before any cpu# section");
      sec = Section::TasksHeader;
    } else if (sec == Section::TasksHeader) {
      cols = parse_header(raw, file, line);
      sec = Section::TasksRule;
    } else if (sec == Section::TasksRule) {
      if (s.find_first_not_of('-') != std::string::npos)
        fail(file, line, "expected the dashed rule under the runnable tasks header");
      sec = Section::Tasks;
    } else if (sec == Section::Tasks && !s.empty()) {
      snap.cpus.back().tasks.push_back(parse_row(raw, cols, file, line));
    } else if (s.empty()) {
      if (sec == Section::Tasks || sec == Section::CfsRq || sec == Section::Sysctl)
        sec = Section::None;
    } else if (s[0] == '.' && (sec == Section::CfsRq || sec == Section::Sysctl)) {
      const size_t colon = s.find(':');
      if (colon == std::string::npos) fail(file, line, "field line without ':'");
      const std::string key = trim(s.substr(1, colon - 1));
      const std::string value = trim(s.substr(colon + 1));
      if (sec == Section::CfsRq) {
        snap.cpus.back().cfs_rqs.back().fields[key] = {value, line};
      } else if (key == "sysctl_sched_base_slice") {
        snap.base_slice_ns = parse_ms_as_ns(value, file, line, key);
      }
    } else if (raw.find("_rq[") != std::string::npos) {
      sec = Section::Other;  // rt_rq, dl_rq: not the fair class
    }
  }
  if (snap.cpus.empty())
    throw Error(file + ": no cpu# sections: not a /sys/kernel/debug/sched/debug snapshot");
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
