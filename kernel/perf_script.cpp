#include "kernel/perf_script.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <istream>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/text_fields.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  fail_at(file, line, what);
}

std::string trim(const std::string& s) { return std::string(trim_blanks(s)); }

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

int64_t to_int(std::string_view text, const std::string& file, int line, std::string_view field) {
  return parse_int64(text, file, line, field);
}

// Linux's NR_CPUS is at most 8192: a larger CPU number is a garbled field, not a machine.
int cpu_number(std::string_view text, const std::string& file, int line, std::string_view field) {
  const int64_t c = to_int(text, file, line, field);
  if (c < 0 || c >= 8192)
    fail(file, line,
         "field '" + std::string(field) + "': CPU " + std::string(text) + " is outside 0..8191");
  return static_cast<int>(c);
}

// "381.230664" or "381.230664123" seconds → ns.
int64_t seconds_to_ns(std::string_view text, const std::string& file, int line) {
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(frac)) || frac.size() > 9)
    fail(file, line,
         "field 'time': '" + std::string(text) + "' is not seconds with up to 9 decimals");
  const int64_t s = to_int(whole, file, line, "time");
  if (s > INT64_MAX / 1'000'000'000 - 1)
    fail(file, line, "field 'time': '" + std::string(text) + "' does not fit 64-bit nanoseconds");
  int64_t ns = frac.empty() ? 0 : to_int(frac, file, line, "time");
  for (size_t i = frac.size(); i < 9; ++i) ns *= 10;
  return s * 1'000'000'000 + ns;
}

struct EventKeys {
  const char* name;
  KernelEventKind kind;
  std::vector<std::string_view> keys;  // in the order the tracepoint prints them
};

const std::array<EventKeys, 8>& event_table() {
  static const std::array<EventKeys, 8> t = {{
      {"sched_switch",
       KernelEventKind::Switch,
       {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"}},
      {"sched_wakeup", KernelEventKind::Wakeup, {"comm", "pid", "prio", "success", "target_cpu"}},
      {"sched_wakeup_new",
       KernelEventKind::WakeupNew,
       {"comm", "pid", "prio", "success", "target_cpu"}},
      {"sched_waking", KernelEventKind::Waking, {"comm", "pid", "prio", "success", "target_cpu"}},
      {"sched_migrate_task",
       KernelEventKind::Migrate,
       {"comm", "pid", "prio", "orig_cpu", "dest_cpu"}},
      {"sched_process_exit", KernelEventKind::Exit, {"comm", "pid", "prio", "group_dead"}},
      {"sched_process_fork", KernelEventKind::Fork, {"comm", "pid", "child_comm", "child_pid"}},
      {"sched_stat_runtime", KernelEventKind::StatRuntime, {"comm", "pid", "runtime", "vruntime"}},
  }};
  return t;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct Field {
  std::string_view key;
  std::string_view value;
};

// Splits "k1=v1 k2=v two k3=v3" at the known keys; a value runs to the next known key, so task
// names with spaces survive. Keys the kernel version does not print are simply absent.
size_t split_fields(std::string_view trace, const EventKeys& ev, std::array<Field, 8>& out) {
  std::array<std::pair<std::string_view, size_t>, 8> found;  // key, where its value starts
  size_t n = 0, from = 0;
  for (const std::string_view k : ev.keys) {
    size_t p = trace.find(k, from);
    while (p != std::string_view::npos &&
           ((p != 0 && trace[p - 1] != ' ') || p + k.size() >= trace.size() ||
            trace[p + k.size()] != '='))
      p = trace.find(k, p + 1);
    if (p == std::string_view::npos) continue;
    found[n++] = {k, p + k.size() + 1};
    from = p + k.size() + 1;
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t start = found[i].second;
    const size_t end =
        i + 1 < n ? found[i + 1].second - found[i + 1].first.size() - 1 : trace.size();
    std::string_view v = trim_blanks(trace.substr(start, end - start));
    if (ends_with(v, "==>")) v = trim_blanks(v.substr(0, v.size() - 3));
    if (ends_with(v, "[ns]")) v = trim_blanks(v.substr(0, v.size() - 4));
    out[i] = {found[i].first, v};
  }
  return n;
}

void fill(KernelEvent& e, std::string_view key, std::string_view v, const std::string& file,
          int line) {
  const auto num = [&] { return to_int(v, file, line, key); };
  const auto small = [&] { return static_cast<int>(num()); };
  if (key == "comm" || key == "next_comm")
    e.comm = v;
  else if (key == "pid" || key == "next_pid")
    e.pid = num();
  else if (key == "prio" || key == "next_prio")
    e.prio = small();
  else if (key == "prev_comm")
    e.prev_comm = v;
  else if (key == "prev_pid")
    e.prev_pid = num();
  else if (key == "prev_prio")
    e.prev_prio = small();
  else if (key == "prev_state")
    e.prev_state = v;
  else if (key == "target_cpu")
    e.target_cpu = cpu_number(v, file, line, key);
  else if (key == "orig_cpu")
    e.orig_cpu = cpu_number(v, file, line, key);
  else if (key == "dest_cpu")
    e.dest_cpu = cpu_number(v, file, line, key);
  else if (key == "child_comm")
    e.child_comm = v;
  else if (key == "child_pid")
    e.child_pid = num();
  else if (key == "runtime")
    e.runtime_ns = num();
}

// The number that ends the leading task: perf's "comm pid" or "comm pid/tid" (the tid), or
// trace-cmd's "comm-pid"; none when it ends otherwise.
std::optional<int64_t> context_pid(std::string_view task) {
  const size_t cut = task.find_last_of(" /-");
  const std::string_view n = cut == std::string_view::npos ? task : task.substr(cut + 1);
  int64_t v = 0;
  if (n.empty() || !all_digits(n) ||
      std::from_chars(n.data(), n.data() + n.size(), v).ptr != n.data() + n.size())
    return std::nullopt;
  return v;
}

}  // namespace

KernelEvent parse_perf_line(const std::string& text, const std::string& file, int line) {
  KernelEvent e;
  e.line = line;
  // "<comm> <pid> [<cpu>] <time>: …" (perf) or "<comm>-<pid> [<cpu>] <flags> <time>: …"
  // (trace-cmd). The CPU bracket is the anchor; the task name before it may contain anything.
  const std::string_view view = text;
  size_t open = view.find(" [");
  while (open != std::string_view::npos) {
    const size_t close = view.find(']', open);
    if (close != std::string_view::npos && all_digits(view.substr(open + 2, close - open - 2)))
      break;
    open = view.find(" [", open + 1);
  }
  if (open == std::string_view::npos) fail(file, line, "field 'cpu': no [CPU] column");
  const size_t close = view.find(']', open);
  e.cpu = cpu_number(view.substr(open + 2, close - open - 2), file, line, "cpu");

  const std::string_view task = trim_blanks(view.substr(0, open));
  if (task.empty()) fail(file, line, "field 'comm': no task before [CPU]");
  e.context_pid = context_pid(task);

  // After the CPU: optional trace-cmd flags, "<seconds>:", an optional period, "<event>:".
  size_t pos = close + 1;
  const auto next_token = [&]() -> std::string_view {
    const size_t b = view.find_first_not_of(' ', pos);
    if (b == std::string_view::npos) return {};
    const size_t end = view.find(' ', b);
    pos = end == std::string_view::npos ? view.size() : end;
    return view.substr(b, pos - b);
  };
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string_view tok = next_token();
  while (!tok.empty() && !(tok.back() == ':' && is_digit(tok.front()))) tok = next_token();
  if (tok.empty()) fail(file, line, "field 'time': no '<seconds>:' after [CPU]");
  e.time_ns = seconds_to_ns(tok.substr(0, tok.size() - 1), file, line);
  tok = next_token();
  if (all_digits(tok)) tok = next_token();  // perf's period column
  if (tok.empty() || tok.back() != ':') fail(file, line, "field 'event': missing");
  std::string_view name = tok.substr(0, tok.size() - 1);
  if (name.substr(0, 6) == "sched:") name = name.substr(6);
  const EventKeys* ev = nullptr;
  for (const auto& candidate : event_table())
    if (name == candidate.name) ev = &candidate;
  if (!ev) fail(file, line, "field 'event': unknown event '" + std::string(name) + "'");
  e.kind = ev->kind;

  std::array<Field, 8> fields;
  const std::string_view rest =
      pos < text.size() ? std::string_view(text).substr(pos) : std::string_view();
  const size_t n = split_fields(rest, *ev, fields);
  const bool is_switch = e.kind == KernelEventKind::Switch;
  bool has_pid = false, has_prev = false;
  for (size_t i = 0; i < n; ++i) {
    fill(e, fields[i].key, fields[i].value, file, line);
    has_pid = has_pid || fields[i].key == (is_switch ? "next_pid" : "pid");
    has_prev = has_prev || fields[i].key == "prev_pid";
  }
  if (!has_pid)
    fail(file, line, std::string("field '") + (is_switch ? "next_pid" : "pid") + "': missing");
  if (is_switch && !has_prev) fail(file, line, "field 'prev_pid': missing");
  return e;
}

PerfParseStats parse_perf_script(std::istream& in, const std::string& file,
                                 const std::function<void(KernelEvent&)>& sink,
                                 const PerfParseOptions& options) {
  PerfParseStats stats;
  std::string raw;
  for (int line = 1; std::getline(in, raw); ++line) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string s = trim(raw);
    if (s.empty() || s[0] == '#') continue;
    KernelEvent e;
    try {
      e = parse_perf_line(raw, file, line);
    } catch (const Error& err) {
      if (!options.keep_going) throw;
      if (stats.skipped++ == 0) stats.first_error = err.what();
      continue;
    }
    ++stats.events;
    sink(e);
  }
  return stats;
}

}  // namespace vlag::kernel
