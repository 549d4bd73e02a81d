#include "kernel/perf_script.h"

#include <algorithm>
#include <array>
#include <cstring>
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

[[noreturn]] void bad_field(const std::string& file, int line, std::string_view field,
                            const std::string& what) {
  fail(file, line, "field '" + std::string(field) + "': " + what);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// s == lit with lit's length known here, so the comparison is a load or two, not a call.
template <size_t N>
bool is(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

// a == b for the short words of a line, compared in place (a call to memcmp costs more).
bool same_word(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Linux's limits: PID_MAX_LIMIT is 2^22, NR_CPUS at most 8192, prio -1 (deadline) .. 139.
constexpr int64_t kPidMax = 4'194'304;
constexpr int64_t kCpuMax = 8191;

// An integer value as the plain layout prints it — an optional '-', 1 to 18 digits (so it fits)
// — within lo..hi; false for anything else, left to the general path to judge.
bool plain_int(std::string_view v, int64_t lo, int64_t hi, int64_t& out) {
  const bool negative = !v.empty() && v[0] == '-';
  const size_t first = negative ? 1 : 0;
  if (v.size() == first || v.size() - first > 18) return false;
  int64_t x = 0;
  for (size_t i = first; i < v.size(); ++i) {
    const unsigned d = static_cast<unsigned char>(v[i]) - unsigned{'0'};
    if (d > 9) return false;
    x = x * 10 + static_cast<int64_t>(d);
  }
  if (negative) x = -x;
  if (x < lo || x > hi) return false;
  out = x;
  return true;
}

template <typename T>
bool plain_int(std::string_view v, int64_t lo, int64_t hi, std::optional<T>& out) {
  int64_t x = 0;
  if (!plain_int(v, lo, hi, x)) return false;
  out = static_cast<T>(x);
  return true;
}

int64_t in_range(std::string_view text, int64_t lo, int64_t hi, const char* what,
                 const std::string& file, int line, std::string_view field) {
  const int64_t v = parse_int64(text, file, line, field);
  if (v < lo || v > hi)
    bad_field(file, line, field,
              std::string(what) + " " + std::string(text) + " is outside " + std::to_string(lo) +
                  ".." + std::to_string(hi));
  return v;
}

int64_t pid_value(std::string_view t, const std::string& f, int l, std::string_view field) {
  int64_t v = 0;
  return plain_int(t, 0, kPidMax, v) ? v : in_range(t, 0, kPidMax, "pid", f, l, field);
}
int cpu_value(std::string_view t, const std::string& f, int l, std::string_view field) {
  int64_t v = 0;
  return static_cast<int>(
      plain_int(t, 0, kCpuMax, v) ? v : in_range(t, 0, kCpuMax, "CPU", f, l, field));
}
int prio_value(std::string_view t, const std::string& f, int l, std::string_view field) {
  return static_cast<int>(in_range(t, -1, 139, "prio", f, l, field));
}

// "381.230664" or "381.230664123" seconds → ns.
int64_t seconds_to_ns(std::string_view text, const std::string& file, int line) {
  // As perf prints it: up to 9 digits of seconds (so the ns fit), a dot, 1 to 9 decimals.
  if (const size_t dot = text.find('.'); dot != std::string_view::npos && dot <= 9) {
    int64_t s = 0, ns = 0;
    const std::string_view frac = text.substr(dot + 1);
    if (frac.size() <= 9 && all_digits(text.substr(0, dot)) && all_digits(frac) &&
        plain_int(text.substr(0, dot), 0, INT64_MAX, s) && plain_int(frac, 0, INT64_MAX, ns)) {
      for (size_t i = frac.size(); i < 9; ++i) ns *= 10;
      return s * 1'000'000'000 + ns;
    }
  }
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(frac)) || frac.size() > 9)
    bad_field(file, line, "time",
              "'" + std::string(text) + "' is not seconds with up to 9 decimals");
  const int64_t s = parse_int64(whole, file, line, "time");
  if (s > INT64_MAX / 1'000'000'000 - 1)
    bad_field(file, line, "time", "'" + std::string(text) + "' does not fit 64-bit nanoseconds");
  int64_t ns = frac.empty() ? 0 : parse_int64(frac, file, line, "time");
  for (size_t i = frac.size(); i < 9; ++i) ns *= 10;
  return s * 1'000'000'000 + ns;
}

// prev_state as perf and `trace-cmd report -N` print it ("R", "R+", "S", "D|K", …), as the
// sched_switch plugin prints it (one letter; its table is older than the kernel's, so "X" may
// stand for a zombie and "W" for an idle kthread), or as `trace-cmd report -R` prints it (the
// kernel's number: 0 running, the TASK_REPORT bits, +256 for a preemption).
// The letters of prev_state ("R", "R+", "S", "D|K", …); nullopt when they are none.
std::optional<PrevState> state_letters(std::string_view s) {
  if (s.size() == 1 && s[0] == 'R') return PrevState::Runnable;
  if (s.size() == 2 && s[0] == 'R' && s[1] == '+') return PrevState::Preempted;
  std::string_view body = s;
  if (!body.empty() && body.back() == '+') body.remove_suffix(1);
  if (body.empty() || body.size() % 2 == 0) return std::nullopt;  // or it ends with '|'
  bool dead = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (i % 2 == 1) {
      if (c != '|') return std::nullopt;
      continue;
    }
    if (std::string_view("SDTtXZPIWKNxn").find(c) == std::string_view::npos) return std::nullopt;
    dead = dead || c == 'X' || c == 'Z';
  }
  return dead ? PrevState::Dead : PrevState::Blocked;
}

// prev_state as perf and `trace-cmd report -N` print it ("R", "R+", "S", "D|K", …), as the
// sched_switch plugin prints it (one letter; its table is older than the kernel's, so "X" may
// stand for a zombie and "W" for an idle kthread), or as `trace-cmd report -R` prints it (the
// kernel's number: 0 running, the TASK_REPORT bits, +256 for a preemption).
PrevState parse_prev_state(std::string_view s, const std::string& file, int line) {
  if (all_digits(s)) {
    const int64_t v = in_range(s, 0, 511, "state", file, line, "prev_state");
    if ((v & 0xff) == 0) return v & 0x100 ? PrevState::Preempted : PrevState::Runnable;
    return (v & 0x30) != 0 ? PrevState::Dead : PrevState::Blocked;
  }
  if (const auto state = state_letters(s)) return *state;
  bad_field(file, line, "prev_state", "'" + std::string(s) + "' is not a task state");
}

// Where a key's value goes in the event, and what it must be.
enum class Slot : uint8_t {
  Comm,       // e.comm (comm, next_comm, parent_comm)
  Pid,        // e.pid (pid, next_pid, parent_pid)
  Prio,       // e.prio (prio, next_prio)
  PrevComm,   // e.prev_comm
  PrevPid,    // e.prev_pid
  PrevPrio,   // e.prev_prio
  PrevState,  // e.prev_state and e.prev_leave
  TargetCpu,
  OrigCpu,
  DestCpu,
  ChildComm,
  ChildPid,
  Runtime,
  Vruntime,   // checked, not kept
  Success,    // checked, not kept
  GroupDead,  // checked, not kept
};

struct Key {
  std::string_view name;
  Slot slot;
};

struct EventKeys {
  std::string_view name;
  KernelEventKind kind;
  std::vector<Key> keys;  // in the order the tracepoint prints them
};

const std::array<EventKeys, 8>& event_table() {
  using S = Slot;
  static const std::array<EventKeys, 8> t = {{
      {"sched_switch",
       KernelEventKind::Switch,
       {{"prev_comm", S::PrevComm},
        {"prev_pid", S::PrevPid},
        {"prev_prio", S::PrevPrio},
        {"prev_state", S::PrevState},
        {"next_comm", S::Comm},
        {"next_pid", S::Pid},
        {"next_prio", S::Prio}}},
      {"sched_wakeup",
       KernelEventKind::Wakeup,
       {{"comm", S::Comm},
        {"pid", S::Pid},
        {"prio", S::Prio},
        {"success", S::Success},
        {"target_cpu", S::TargetCpu}}},
      {"sched_wakeup_new",
       KernelEventKind::WakeupNew,
       {{"comm", S::Comm},
        {"pid", S::Pid},
        {"prio", S::Prio},
        {"success", S::Success},
        {"target_cpu", S::TargetCpu}}},
      {"sched_waking",
       KernelEventKind::Waking,
       {{"comm", S::Comm},
        {"pid", S::Pid},
        {"prio", S::Prio},
        {"success", S::Success},
        {"target_cpu", S::TargetCpu}}},
      {"sched_migrate_task",
       KernelEventKind::Migrate,
       {{"comm", S::Comm},
        {"pid", S::Pid},
        {"prio", S::Prio},
        {"orig_cpu", S::OrigCpu},
        {"dest_cpu", S::DestCpu}}},
      {"sched_process_exit",
       KernelEventKind::Exit,
       {{"comm", S::Comm}, {"pid", S::Pid}, {"prio", S::Prio}, {"group_dead", S::GroupDead}}},
      {"sched_process_fork",
       KernelEventKind::Fork,
       {{"comm", S::Comm},
        {"pid", S::Pid},
        {"parent_comm", S::Comm},
        {"parent_pid", S::Pid},
        {"child_comm", S::ChildComm},
        {"child_pid", S::ChildPid}}},
      {"sched_stat_runtime",
       KernelEventKind::StatRuntime,
       {{"comm", S::Comm}, {"pid", S::Pid}, {"runtime", S::Runtime}, {"vruntime", S::Vruntime}}},
  }};
  return t;
}

struct Field {
  std::string_view key;
  std::string_view value;
};

// Where key k starts as "k=" at a word boundary in trace, from `from`; npos if nowhere.
size_t find_key(std::string_view trace, std::string_view k, size_t from) {
  size_t p = trace.find(k, from);
  while (p != std::string_view::npos &&
         ((p != 0 && trace[p - 1] != ' ') || p + k.size() >= trace.size() ||
          trace[p + k.size()] != '='))
    p = trace.find(k, p + 1);
  return p;
}

// Splits "k1=v1 k2=v two k3=v3" at the known keys; a value runs to the next known key, so task
// names with spaces survive. Keys the kernel version does not print are simply absent; a key
// printed twice is an error.
//
// The words that can be keys — "w=" at a word boundary — are listed in one pass first, so each
// key is looked up among a few words instead of searched for twice along the whole line (the
// second search finds a key given twice); a line of more such words than the list holds is
// searched key by key, with the same result.
struct KeyWord {
  std::string_view name;
  size_t at;
};

size_t key_words(std::string_view trace, std::array<KeyWord, 24>& out) {
  size_t n = 0;
  for (size_t p = 0; p < trace.size();) {
    size_t end = p;  // the word's first '=' or ' ' (by hand: find_first_of is a memchr a char)
    while (end < trace.size() && trace[end] != '=' && trace[end] != ' ') ++end;
    if (end == trace.size()) break;
    if (trace[end] == '=' && end > p) {
      if (n == out.size()) return n + 1;  // too many: the caller searches instead
      out[n++] = {trace.substr(p, end - p), p};
    }
    const size_t space = trace.find(' ', end);  // the next word boundary
    if (space == std::string_view::npos) break;
    p = space + 1;
  }
  return n;
}

// The key words of a line's fields, listed once for the plugin-layout test and the split.
struct KeyWords {
  std::string_view trace;
  std::array<KeyWord, 24> words;
  size_t n;
  explicit KeyWords(std::string_view t) : trace(t), n(key_words(t, words)) {}
  // The first word k at or after `from`, as find_key finds it.
  size_t locate(std::string_view k, size_t from) const {
    if (n > words.size()) return find_key(trace, k, from);
    for (size_t i = 0; i < n; ++i)
      if (words[i].at >= from && same_word(words[i].name, k)) return words[i].at;
    return std::string_view::npos;
  }
};

// A field's value from the text between its '=' and the next key: trimmed, without the "==>"
// that ends a switch's prev_state or the " [ns]" of trace-cmd's runtimes.
std::string_view field_value(std::string_view between) {
  std::string_view v = trim_blanks(between);
  // Their last byte first: most values end in neither.
  if (!v.empty() && v.back() == '>' && ends_with(v, "==>"))
    v = trim_blanks(v.substr(0, v.size() - 3));
  if (!v.empty() && v.back() == ']' && ends_with(v, "[ns]"))
    v = trim_blanks(v.substr(0, v.size() - 4));
  return v;
}

size_t split_fields(const KeyWords& words, const EventKeys& ev, std::array<Field, 8>& out,
                    const std::string& file, int line) {
  const std::string_view trace = words.trace;
  std::array<std::pair<std::string_view, size_t>, 8> found;  // key, where its value starts
  const auto locate = [&](std::string_view k, size_t from) { return words.locate(k, from); };
  size_t n = 0, from = 0;
  for (const Key& key : ev.keys) {
    const std::string_view k = key.name;
    const size_t p = locate(k, from);
    if (p == std::string_view::npos) continue;
    if (locate(k, p + k.size() + 1) != std::string_view::npos)
      bad_field(file, line, k, "given twice");
    found[n++] = {k, p + k.size() + 1};
    from = p + k.size() + 1;
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t start = found[i].second;
    const size_t end =
        i + 1 < n ? found[i + 1].second - found[i + 1].first.size() - 1 : trace.size();
    out[i] = {found[i].first, field_value(trace.substr(start, end - start))};
  }
  return n;
}

void fill(KernelEvent& e, std::string_view key, std::string_view v, const std::string& file,
          int line) {
  if (is(key, "comm") || is(key, "next_comm") || is(key, "parent_comm"))
    e.comm = v;
  else if (is(key, "pid") || is(key, "next_pid") || is(key, "parent_pid"))
    e.pid = pid_value(v, file, line, key);
  else if (is(key, "prio") || is(key, "next_prio"))
    e.prio = prio_value(v, file, line, key);
  else if (is(key, "prev_comm"))
    e.prev_comm = v;
  else if (is(key, "prev_pid"))
    e.prev_pid = pid_value(v, file, line, key);
  else if (is(key, "prev_prio"))
    e.prev_prio = prio_value(v, file, line, key);
  else if (is(key, "prev_state")) {
    e.prev_leave = parse_prev_state(v, file, line);
    e.prev_state = v;
  } else if (is(key, "target_cpu"))
    e.target_cpu = cpu_value(v, file, line, key);
  else if (is(key, "orig_cpu"))
    e.orig_cpu = cpu_value(v, file, line, key);
  else if (is(key, "dest_cpu"))
    e.dest_cpu = cpu_value(v, file, line, key);
  else if (is(key, "child_comm"))
    e.child_comm = v;
  else if (is(key, "child_pid"))
    e.child_pid = pid_value(v, file, line, key);
  else if (is(key, "runtime"))
    e.runtime_ns = in_range(v, 0, INT64_MAX, "runtime", file, line, key);
  else if (is(key, "vruntime"))
    in_range(v, 0, INT64_MAX, "vruntime", file, line, key);
  else if (is(key, "success"))
    in_range(v, 0, 1, "success", file, line, key);
  else if (is(key, "group_dead") && v != "true" && v != "false" && v != "0" && v != "1")
    bad_field(file, line, key, "'" + std::string(v) + "' is neither true nor false");
}

// The trace part of a line as perf and trace-cmd print it — "k=v" with each key of the event at
// most once and in its order, the first at the start, no '=' in a value but the " ==>" that
// ends a switch's prev_state — read straight into the event, left to right, each value where
// its key's slot says. Anything else (a '=' or a key out of place, a key missing, a value empty
// or out of range) returns false, and the line goes through split_fields and fill, which find
// the same fields in a plain line and say what is wrong with any other. A plain line's only key
// words are its keys, so split_fields would find these, none twice, with these values.
bool fill_plain(KernelEvent& e, std::string_view rest, const EventKeys& ev) {
  if (rest.empty()) return false;  // no key to find (and rest.data() may be null)
  const char* const end = rest.data() + rest.size();
  const char* scan = rest.data();
  while (scan < end && *scan == ' ') ++scan;
  const char* key = scan;
  const char* eq =
      static_cast<const char*>(std::memchr(scan, '=', static_cast<size_t>(end - scan)));
  if (eq == nullptr || eq == key) return false;
  for (const char* c = key; c < eq; ++c)
    if (*c == ' ') return false;  // a word before the first key
  size_t next = 0;                // the first index of ev.keys the next key may have
  bool has_pid = false, has_prev = false, has_state = false;
  for (;;) {
    const std::string_view k(key, static_cast<size_t>(eq - key));
    size_t j = next;
    while (j < ev.keys.size() && !same_word(ev.keys[j].name, k)) ++j;
    if (j == ev.keys.size()) return false;
    next = j + 1;
    const Slot slot = ev.keys[j].slot;
    // The value runs to the blank before the next key: the word that holds the next '='.
    const char* from = eq + 1;
    scan = from;
    const char* arrow_end = nullptr;
    const char* next_key = nullptr;
    const char* next_eq = nullptr;
    const char* until = end;
    for (;;) {
      const char* q =
          static_cast<const char*>(std::memchr(scan, '=', static_cast<size_t>(end - scan)));
      if (q == nullptr) break;
      if (slot == Slot::PrevState && arrow_end == nullptr && q > scan && q[-1] == ' ' &&
          end - q >= 3 && q[1] == '=' && q[2] == '>') {
        arrow_end = q + 3;
        scan = arrow_end;
        continue;
      }
      const char* b = q;
      while (b > scan && b[-1] != ' ') --b;
      if (b == scan || b == q) return false;  // a '=' inside a value, or a word "=…"
      until = b - 1;
      next_key = b;
      next_eq = q;
      break;
    }
    if (arrow_end != nullptr && until != arrow_end) return false;  // words after the arrow
    const std::string_view v =
        field_value(std::string_view(from, static_cast<size_t>(until - from)));
    if (v.empty()) return false;
    switch (slot) {
      case Slot::Comm:
        e.comm.assign(v);
        break;
      case Slot::Pid:
        if (!plain_int(v, 0, kPidMax, e.pid)) return false;
        has_pid = true;
        break;
      case Slot::Prio:
        if (!plain_int(v, -1, 139, e.prio)) return false;
        break;
      case Slot::PrevComm:
        e.prev_comm.assign(v);
        break;
      case Slot::PrevPid:
        if (!plain_int(v, 0, kPidMax, e.prev_pid)) return false;
        has_prev = true;
        break;
      case Slot::PrevPrio:
        if (!plain_int(v, -1, 139, e.prev_prio)) return false;
        break;
      case Slot::PrevState: {
        const auto state = state_letters(v);
        if (!state || all_digits(v)) return false;
        e.prev_leave = *state;
        e.prev_state.assign(v);
        has_state = true;
        break;
      }
      case Slot::TargetCpu:
        if (!plain_int(v, 0, kCpuMax, e.target_cpu)) return false;
        break;
      case Slot::OrigCpu:
        if (!plain_int(v, 0, kCpuMax, e.orig_cpu)) return false;
        break;
      case Slot::DestCpu:
        if (!plain_int(v, 0, kCpuMax, e.dest_cpu)) return false;
        break;
      case Slot::ChildComm:
        e.child_comm.assign(v);
        break;
      case Slot::ChildPid:
        if (!plain_int(v, 0, kPidMax, e.child_pid)) return false;
        break;
      case Slot::Runtime:
        if (!plain_int(v, 0, INT64_MAX, e.runtime_ns)) return false;
        break;
      case Slot::Vruntime: {
        int64_t unused = 0;
        if (!plain_int(v, 0, INT64_MAX, unused)) return false;
        break;
      }
      case Slot::Success: {
        int64_t unused = 0;
        if (!plain_int(v, 0, 1, unused)) return false;
        break;
      }
      case Slot::GroupDead:
        if (!is(v, "true") && !is(v, "false") && !is(v, "0") && !is(v, "1")) return false;
        break;
    }
    if (next_key == nullptr) break;
    key = next_key;
    eq = next_eq;
  }
  const bool is_switch = e.kind == KernelEventKind::Switch;
  if (!has_pid || (is_switch && (!has_prev || !has_state))) return false;
  return e.kind != KernelEventKind::Fork || e.child_pid != 0;
}

// The event as the line's head gave it (before its trace part), every other field unset.
KernelEvent head_only(const KernelEvent& e) {
  KernelEvent h;
  h.line = e.line;
  h.time_ns = e.time_ns;
  h.cpu = e.cpu;
  h.current_pid = e.current_pid;
  h.kind = e.kind;
  return h;
}

// "comm:pid [prio]" of the trace-cmd plugins; comm may hold blanks and colons.
void plugin_task(std::string_view s, std::string& comm, int64_t& pid, std::optional<int>& prio,
                 const std::string& file, int line, const char* pid_key, const char* prio_key) {
  s = trim_blanks(s);
  const size_t open = s.rfind(" [");
  if (open == std::string_view::npos || s.back() != ']')
    bad_field(file, line, prio_key, "no [prio] after the task");
  prio = prio_value(s.substr(open + 2, s.size() - open - 3), file, line, prio_key);
  const std::string_view task = trim_blanks(s.substr(0, open));
  const size_t colon = task.rfind(':');
  if (colon == std::string_view::npos) bad_field(file, line, pid_key, "no comm:pid");
  comm = task.substr(0, colon);
  pid = pid_value(task.substr(colon + 1), file, line, pid_key);
}

// The sched_switch plugin: "prev:pid [prio] STATE ==> next:pid [prio]".
void parse_plugin_switch(KernelEvent& e, std::string_view rest, const std::string& file, int line) {
  const size_t arrow = rest.find(" ==> ");
  if (arrow == std::string_view::npos) bad_field(file, line, "prev_pid", "missing");
  std::string_view prev = trim_blanks(rest.substr(0, arrow));
  const size_t sp = prev.rfind(' ');
  if (sp == std::string_view::npos) bad_field(file, line, "prev_state", "missing");
  e.prev_state = prev.substr(sp + 1);
  e.prev_leave = parse_prev_state(e.prev_state, file, line);
  plugin_task(prev.substr(0, sp), e.prev_comm, e.prev_pid, e.prev_prio, file, line, "prev_pid",
              "prev_prio");
  plugin_task(rest.substr(arrow + 5), e.comm, e.pid, e.prio, file, line, "next_pid", "next_prio");
}

// The sched_wakeup plugin: "comm:pid [prio] [success=1] CPU:NNN".
void parse_plugin_wakeup(KernelEvent& e, std::string_view rest, const std::string& file, int line) {
  std::string_view s = trim_blanks(rest);
  const size_t cpu = s.rfind(" CPU:");
  if (cpu != std::string_view::npos) {
    e.target_cpu = cpu_value(s.substr(cpu + 5), file, line, "target_cpu");
    s = trim_blanks(s.substr(0, cpu));
  }
  const size_t success = s.rfind(" success=");
  if (success != std::string_view::npos) {
    in_range(s.substr(success + 9), 0, 1, "success", file, line, "success");
    s = trim_blanks(s.substr(0, success));
  }
  plugin_task(s, e.comm, e.pid, e.prio, file, line, "pid", "prio");
}

// trace-cmd report's "CPU:1 [123 EVENTS DROPPED]" (or "CPU:1 [EVENTS DROPPED]") before the first
// event after a loss: an error of its own, saying so.
void refuse_dropped_events_line(std::string_view s, const std::string& file, int line) {
  constexpr std::string_view kTail = "EVENTS DROPPED]";
  if (s.substr(0, 4) != "CPU:") return;  // before the search: no event line starts so
  const size_t open = s.find(" [");
  if (open == std::string_view::npos || !ends_with(s, kTail)) return;
  const int cpu = cpu_value(s.substr(4, open - 4), file, line, "cpu");
  const std::string_view count =
      trim_blanks(s.substr(open + 2, s.size() - (open + 2) - kTail.size()));
  if (!count.empty()) in_range(count, 1, INT64_MAX, "count", file, line, "count");
  fail(file, line,
       "cpu " + std::to_string(cpu) + ": the ring buffer dropped " +
           (count.empty() ? std::string("an unknown number of") : std::string(count)) +
           " events here (record with larger buffers: trace-cmd record -b, perf record -m)");
}

KernelEvent parse_line(std::string_view view, const std::string& file, int line) {
  KernelEvent e;
  e.line = line;
  if (const size_t nul = view.find('\0'); nul != std::string_view::npos)
    bad_field(file, line, "line", "NUL byte at column " + std::to_string(nul + 1));
  // "<comm> <pid>[/<tid>] [<cpu>] <time>: …" (perf) or "<comm>-<pid> [<cpu>] [<flags>] <time>:
  // …" (trace-cmd). The CPU bracket is the anchor; the task name before it may contain anything.
  // " [" found by its '[' (the task name is padded with blanks: a search for the blank stops at
  // each of them).
  const auto bracket_after = [&](size_t from) {
    for (size_t b = view.find('[', from + 1); b != std::string_view::npos;
         b = view.find('[', b + 1))
      if (view[b - 1] == ' ') return b - 1;
    return std::string_view::npos;
  };
  size_t open = bracket_after(0);
  while (open != std::string_view::npos) {
    const size_t close = view.find(']', open);
    if (close != std::string_view::npos && all_digits(view.substr(open + 2, close - open - 2)))
      break;
    open = bracket_after(open + 1);
  }
  if (open == std::string_view::npos) bad_field(file, line, "cpu", "no [CPU] column");
  const size_t close = view.find(']', open);
  e.cpu = cpu_value(view.substr(open + 2, close - open - 2), file, line, "cpu");
  const std::string_view head = trim_blanks(view.substr(0, open));
  if (head.empty()) bad_field(file, line, "comm", "no task before [CPU]");
  const size_t sp = head.find_last_of(' ');
  const std::string_view last = sp == std::string_view::npos ? head : head.substr(sp + 1);
  if (last == "-1" || (last.size() > 3 && last.substr(last.size() - 3) == "/-1")) {
    // perf's header for a thread that had exited by the time perf resolved it: none known
  } else if (const size_t slash = last.find('/');
             slash != std::string_view::npos && all_digits(last.substr(0, slash)) &&
             all_digits(last.substr(slash + 1))) {  // perf's pid/tid
    pid_value(last.substr(0, slash), file, line, "pid");
    e.current_pid = pid_value(last.substr(slash + 1), file, line, "tid");
  } else if (!all_digits(last)) {  // trace-cmd's comm-pid
    const size_t dash = last.rfind('-');
    if (dash != std::string_view::npos && all_digits(last.substr(dash + 1)))
      e.current_pid = pid_value(last.substr(dash + 1), file, line, "pid");
  }

  // After the CPU: optional trace-cmd flags, "<seconds>:", an optional period (perf) or
  // "(+delta)" (trace-cmd --ts-diff), "<event>:".
  size_t pos = close + 1;
  const auto next_token = [&]() -> std::string_view {
    size_t b = pos;  // by hand: find_first_not_of is a memchr a character
    while (b < view.size() && view[b] == ' ') ++b;
    if (b == view.size()) return {};
    pos = b;  // and the token's end: tokens are short, a call to memchr costs more
    while (pos < view.size() && view[pos] != ' ') ++pos;
    return view.substr(b, pos - b);
  };
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string_view tok = next_token();
  while (!tok.empty() && !(tok.back() == ':' && is_digit(tok.front()))) tok = next_token();
  if (tok.empty()) bad_field(file, line, "time", "no '<seconds>:' after [CPU]");
  e.time_ns = seconds_to_ns(tok.substr(0, tok.size() - 1), file, line);
  tok = next_token();
  if (all_digits(tok) || (tok.size() > 3 && tok.substr(0, 2) == "(+" && tok.back() == ')'))
    tok = next_token();
  if (tok.empty() || tok.back() != ':') bad_field(file, line, "event", "missing");
  std::string_view name = tok.substr(0, tok.size() - 1);
  if (name.substr(0, 6) == "sched:") name = name.substr(6);
  const EventKeys* ev = nullptr;
  for (const auto& candidate : event_table())
    if (same_word(name, candidate.name)) {
      ev = &candidate;
      break;
    }
  if (!ev) bad_field(file, line, "event", "unknown event '" + std::string(name) + "'");
  e.kind = ev->kind;

  const std::string_view rest = pos < view.size() ? view.substr(pos) : std::string_view();
  if (fill_plain(e, rest, *ev)) return e;
  e = head_only(e);  // what fill_plain read before it stopped is read again below

  const KeyWords words(rest);
  const bool is_switch = e.kind == KernelEventKind::Switch;
  const bool wakeup_like = e.kind == KernelEventKind::Wakeup ||
                           e.kind == KernelEventKind::WakeupNew ||
                           e.kind == KernelEventKind::Waking;
  if (is_switch && words.locate("prev_pid", 0) == std::string_view::npos &&
      rest.find(" ==> ") != std::string_view::npos) {
    parse_plugin_switch(e, rest, file, line);
    return e;
  }
  if (wakeup_like && words.locate("pid", 0) == std::string_view::npos &&
      rest.find(" [") != std::string_view::npos) {
    parse_plugin_wakeup(e, rest, file, line);
    return e;
  }

  std::array<Field, 8> fields;
  const size_t n = split_fields(words, *ev, fields, file, line);
  bool has_pid = false, has_prev = false, has_state = false;
  for (size_t i = 0; i < n; ++i) {
    if (fields[i].value.empty()) bad_field(file, line, fields[i].key, "empty");
    fill(e, fields[i].key, fields[i].value, file, line);
    has_pid = has_pid || fields[i].key == (is_switch ? "next_pid" : "pid") ||
              is(fields[i].key, "parent_pid");
    has_prev = has_prev || is(fields[i].key, "prev_pid");
    has_state = has_state || is(fields[i].key, "prev_state");
  }
  if (!has_pid) bad_field(file, line, is_switch ? "next_pid" : "pid", "missing");
  if (is_switch && !has_prev) bad_field(file, line, "prev_pid", "missing");
  if (is_switch && !has_state) bad_field(file, line, "prev_state", "missing");
  if (e.kind == KernelEventKind::Fork && e.child_pid == 0)
    bad_field(file, line, "child_pid", "missing");
  return e;
}

// The lines of a stream as std::getline gives them ('\n' ends one; a last line without it counts,
// nothing after a final '\n' does), read a block at a time and handed out as views into the
// block, so a line is not copied first: only one split between two reads is put together in
// carry_. An exception from the stream's buffer ends the lines with badbit set, as std::getline
// does; at the end the stream is at eof, as after std::getline's last failed call.
class LineReader {
 public:
  explicit LineReader(std::istream& in) : in_(in), done_(!in.good() || in.rdbuf() == nullptr) {}

  bool next(std::string_view& line) {
    carry_.clear();
    for (;;) {
      if (at_ < end_) {
        const char* from = block_.data() + at_;
        const size_t left = end_ - at_;
        const auto* nl = static_cast<const char*>(std::memchr(from, '\n', left));
        if (nl != nullptr) {
          const auto length = static_cast<size_t>(nl - from);
          at_ += length + 1;
          if (carry_.empty()) {
            line = std::string_view(from, length);
          } else {
            carry_.append(from, length);
            line = carry_;
          }
          return true;
        }
        carry_.append(from, left);
        at_ = end_;
      }
      if (!refill()) {
        if (carry_.empty()) return false;
        line = carry_;
        return true;
      }
    }
  }

 private:
  bool refill() {
    if (done_) return false;
    std::streamsize n = 0;
    try {
      n = in_.rdbuf()->sgetn(block_.data(), static_cast<std::streamsize>(block_.size()));
    } catch (...) {
      in_.setstate(std::ios::badbit);
      done_ = true;
      return false;
    }
    if (n <= 0) {
      in_.setstate(std::ios::eofbit | std::ios::failbit);
      done_ = true;
      return false;
    }
    at_ = 0;
    end_ = static_cast<size_t>(n);
    return true;
  }

  std::istream& in_;
  bool done_;
  std::vector<char> block_ = std::vector<char>(size_t{1} << 16);
  size_t at_ = 0, end_ = 0;
  std::string carry_;
};

}  // namespace

KernelEvent parse_perf_line(const std::string& text, const std::string& file, int line) {
  return parse_line(text, file, line);
}

PerfParseStats parse_perf_script(std::istream& in, const std::string& file,
                                 const std::function<void(KernelEvent&)>& sink,
                                 const PerfParseOptions& options) {
  PerfParseStats stats;
  LineReader lines(in);
  std::string_view raw;
  bool first = true;
  for (int line = 1; lines.next(raw); ++line) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const std::string_view s = trim_blanks(raw);
    if (s.empty() || (s[0] == '#' && s.find('\0') == std::string_view::npos)) continue;
    if (first && s.substr(0, 5) == "cpus=") {  // trace-cmd report's first line
      first = false;
      stats.cpus =
          static_cast<int>(in_range(s.substr(5), 1, kCpuMax + 1, "CPU count", file, line, "cpus"));
      continue;
    }
    first = false;
    KernelEvent e;
    try {
      refuse_dropped_events_line(s, file, line);
      e = parse_line(raw, file, line);
    } catch (const Error& err) {
      if (!options.keep_going) throw;
      if (stats.skipped++ == 0) stats.first_error = err.what();
      continue;
    }
    ++stats.events;
    sink(e);
  }
  if (stats.events == 0)
    throw Error(file + ": no sched events" +
                (stats.skipped ? " (" + std::to_string(stats.skipped) +
                                     " malformed lines skipped; first: " + stats.first_error + ")"
                               : std::string(" (empty, or not perf script / trace-cmd text)")));
  return stats;
}

}  // namespace vlag::kernel
