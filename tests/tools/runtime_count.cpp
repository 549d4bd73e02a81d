// An independent count of CPU time per task from perf script text, for checking the shares
// `vlag kernel check` reports against a count that shares none of its code:
// `runtime_count FILE` (or - for standard input) reads the text `perf script` prints for the sched
// tracepoints (default layout or -F comm,pid[,tid],cpu,time,event,trace), uses only its
// sched_switch lines (every line's time counts for the span) and prints, one record per line,
// fields separated by single spaces, all times in ns:
//
//   span FIRST LAST                  the first and last event time in the file, any CPU
//   cpu CPU SWITCHES UNKNOWN         per CPU (ascending): sched_switch lines seen, and the time
//                                    given to nobody because a switch's prev_pid was not the task
//                                    the previous switch on that CPU put on (events were lost)
//   run PID CPU RUN EDGE IN COMM     per task and CPU (by pid, then CPU): RUN is the time from a
//                                    switch in (next_pid) to the next switch on that CPU (which
//                                    switches it out); EDGE is the time at the span's edges, from
//                                    FIRST to the CPU's first switch (for its prev_pid) and from
//                                    the CPU's last switch to LAST (for its next_pid); IN is how
//                                    often it was switched in; COMM its last name (may hold
//                                    spaces). pid 0 is each CPU's idle task.
//
// So RUN + EDGE summed over a CPU's tasks, plus UNKNOWN, is LAST - FIRST for each CPU that
// switched at all. A line that is not a sched event (no "[CPU] SECONDS: EVENT:" columns) or a
// sched_switch without prev_pid/next_pid is an error: "FILE:LINE: field F: …", exit 2.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Failure {
  std::string message;
};

bool digits(const std::string& s, size_t from, size_t to) {
  if (from >= to) return false;
  for (size_t i = from; i < to; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

int64_t to_int(const std::string& s, size_t from, size_t to) {
  int64_t v = 0;
  for (size_t i = from; i < to; ++i) {
    if (v > (INT64_MAX - 9) / 10) throw Failure{"number too large"};
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// "12.345678:" -> ns, or nullopt when the token is not seconds with a colon.
std::optional<int64_t> seconds_token(const std::string& t) {
  const size_t dot = t.find('.');
  if (t.size() < 2 || t.back() != ':' || dot == std::string::npos) return std::nullopt;
  const size_t end = t.size() - 1;
  if (!digits(t, 0, dot) || !digits(t, dot + 1, end) || end - dot - 1 > 9) return std::nullopt;
  int64_t frac = to_int(t, dot + 1, end);
  for (size_t i = end - dot - 1; i < 9; ++i) frac *= 10;
  return to_int(t, 0, dot) * 1'000'000'000 + frac;
}

struct Line {
  int cpu = -1;
  std::optional<int64_t> time;
  std::string event;
};

// Finds "[CPU]", then "SECONDS:", then "EVENT:" among the blank-separated tokens.
Line header(const std::string& text) {
  std::istringstream in(text);
  std::string tok;
  Line l;
  while (in >> tok) {
    if (l.cpu < 0) {
      if (tok.size() > 2 && tok.front() == '[' && tok.back() == ']' &&
          digits(tok, 1, tok.size() - 1))
        l.cpu = static_cast<int>(to_int(tok, 1, tok.size() - 1));
    } else if (!l.time) {
      l.time = seconds_token(tok);
    } else if (tok.back() == ':') {
      l.event = tok.substr(0, tok.size() - 1);
      return l;
    }
  }
  throw Failure{l.cpu < 0 ? "cpu: no [CPU] column"
                : !l.time ? "time: no SECONDS: column"
                          : "event: missing"};
}

int64_t pid_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(" " + key + "=");
  if (at == std::string::npos) throw Failure{key + ": missing"};
  const size_t from = at + key.size() + 2;
  size_t to = from;
  while (to < text.size() && text[to] >= '0' && text[to] <= '9') ++to;
  if (to == from) throw Failure{key + ": not a number"};
  return to_int(text, from, to);
}

// The value between " KEY_comm=" and " KEY_pid=": task names may hold blanks.
std::optional<std::string> comm_of(const std::string& text, const std::string& key) {
  const std::string open = " " + key + "_comm=";
  const size_t at = text.find(open), end = text.find(" " + key + "_pid=");
  if (at == std::string::npos || end == std::string::npos || end < at) return std::nullopt;
  return text.substr(at + open.size(), end - at - open.size());
}

struct Cpu {
  bool seen = false;
  int64_t first_time = 0, first_prev = 0;  // the first switch: its prev ran from the span start
  int64_t last_time = 0;
  int64_t current = 0;  // the task the last switch put on
  int64_t switches = 0, unknown = 0;
};

struct Run {
  int64_t run = 0, edge = 0, in = 0;
};

int count(std::istream& in, const std::string& file) {
  std::map<int, Cpu> cpus;
  std::map<std::pair<int64_t, int>, Run> runs;  // (pid, cpu)
  std::map<int64_t, std::string> comms;
  std::optional<int64_t> first, last;
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    const size_t b = text.find_first_not_of(" \t\r");
    if (b == std::string::npos || text[b] == '#') continue;
    try {
      const Line l = header(text);
      const int64_t time = *l.time;
      if (!first || time < *first) first = time;
      if (!last || time > *last) last = time;
      if (l.event != "sched:sched_switch" && l.event != "sched_switch") continue;
      const int64_t prev = pid_after(text, "prev_pid"), next = pid_after(text, "next_pid");
      Cpu& c = cpus[l.cpu];
      if (!c.seen) {
        c.seen = true;
        c.first_time = time;
        c.first_prev = prev;
        runs[{prev, l.cpu}];
      } else if (prev == c.current) {
        runs[{prev, l.cpu}].run += time - c.last_time;
      } else {
        c.unknown += time - c.last_time;
      }
      ++c.switches;
      c.current = next;
      c.last_time = time;
      ++runs[{next, l.cpu}].in;
      if (const auto name = comm_of(text, "prev")) comms[prev] = *name;
      if (const auto name = comm_of(text, "next")) comms[next] = *name;
    } catch (const Failure& f) {
      std::fprintf(stderr, "%s:%d: field %s\n", file.c_str(), n, f.message.c_str());
      return 2;
    }
  }
  if (!first) {
    std::fprintf(stderr, "%s: no events\n", file.c_str());
    return 2;
  }
  for (const auto& [cpu, c] : cpus) {
    runs[{c.first_prev, cpu}].edge += c.first_time - *first;
    runs[{c.current, cpu}].edge += *last - c.last_time;
  }
  std::printf("span %lld %lld\n", static_cast<long long>(*first), static_cast<long long>(*last));
  for (const auto& [cpu, c] : cpus)
    std::printf("cpu %d %lld %lld\n", cpu, static_cast<long long>(c.switches),
                static_cast<long long>(c.unknown));
  for (const auto& [key, r] : runs) {
    const auto comm = comms.find(key.first);
    std::printf("run %lld %d %lld %lld %lld %s\n", static_cast<long long>(key.first), key.second,
                static_cast<long long>(r.run), static_cast<long long>(r.edge),
                static_cast<long long>(r.in), comm == comms.end() ? "?" : comm->second.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: runtime_count FILE|-\n");
    return 2;
  }
  const std::string file = argv[1];
  if (file == "-") return count(std::cin, "-");
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "%s: cannot open\n", file.c_str());
    return 2;
  }
  return count(in, file);
}
