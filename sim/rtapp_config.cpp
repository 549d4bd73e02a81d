#include "sim/rtapp_config.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>

#include "spec/error.h"

namespace vlag::sim {
namespace {

namespace dom = simdjson::dom;

// Limits that keep one description's simulation bounded; far beyond what rt-app files use.
constexpr int64_t kMaxInstances = 10'000;
constexpr int64_t kMaxMicros = int64_t{3'600} * 1'000'000;  // an hour, in µs
constexpr int64_t kMaxLoops = 1'000'000'000;

// rt-app reads its files with json-c, which accepts /* */ and // comments: blank them out
// (keeping line breaks) outside strings so simdjson sees plain JSON.
std::string strip_comments(std::string_view in) {
  std::string out(in);
  bool in_string = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      const size_t end = out.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? out.size() : end + 2;
      for (; i < stop; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    }
  }
  return out;
}

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw Error(fmt::format("{}: {}: {}", file_, path, what));
  }

  dom::object object(dom::element e, const std::string& path) const {
    dom::object o;
    if (e.get(o)) fail(path, "expected an object");
    return o;
  }

  int64_t integer(dom::element e, const std::string& path, int64_t lo, int64_t hi) const {
    int64_t v = 0;
    if (e.get(v)) fail(path, "expected an integer");
    if (v < lo || v > hi) fail(path, fmt::format("{} is outside {}..{}", v, lo, hi));
    return v;
  }

  std::string string(dom::element e, const std::string& path) const {
    std::string_view v;
    if (e.get(v)) fail(path, "expected a string");
    return std::string(v);
  }

  int64_t micros(dom::element e, const std::string& path) const {
    return integer(e, path, 1, kMaxMicros) * 1000;
  }

  void policy(dom::element e, const std::string& path) const {
    const std::string p = string(e, path);
    if (p != "SCHED_OTHER")
      fail(path, "policy '" + p + "' is not supported (vlag models SCHED_OTHER only)");
  }

  RtAppEvent timer(dom::element e, const std::string& path) const {
    RtAppEvent ev;
    ev.kind = RtAppEvent::Kind::Timer;
    bool has_ref = false;
    bool has_period = false;
    for (auto [key, value] : object(e, path)) {
      const std::string k(key);
      const std::string at = path + "." + k;
      if (k == "ref") {
        ev.timer_ref = string(value, at);
        has_ref = true;
      } else if (k == "period") {
        ev.ns = micros(value, at);
        has_period = true;
      } else if (k == "mode") {
        const std::string mode = string(value, at);
        if (mode != "absolute" && mode != "relative")
          fail(at, "'" + mode + "' is neither \"absolute\" nor \"relative\"");
        ev.relative = mode == "relative";
      } else {
        fail(at, "unknown timer field (ref, period, mode)");
      }
    }
    if (!has_ref) fail(path + ".ref", "missing");
    if (!has_period) fail(path + ".period", "missing");
    return ev;
  }

  // rt-app recognises an event by its key's prefix ("run0", "sleep_a"), checking "runtime"
  // before "run"; returns false for a key that is no event.
  bool event(const std::string& key, dom::element value, const std::string& path,
             std::vector<RtAppEvent>& out) const {
    const auto starts = [&](std::string_view p) { return key.rfind(p, 0) == 0; };
    if (starts("runtime")) {
      out.push_back({RtAppEvent::Kind::Run, micros(value, path), "", false, true});
    } else if (starts("run")) {
      out.push_back({RtAppEvent::Kind::Run, micros(value, path), "", false, false});
    } else if (starts("sleep")) {
      out.push_back({RtAppEvent::Kind::Sleep, micros(value, path), "", false, false});
    } else if (starts("timer")) {
      out.push_back(timer(value, path));
    } else {
      return false;
    }
    return true;
  }

  RtAppPhase phase(dom::element e, const std::string& path) const {
    RtAppPhase ph;
    for (auto [key, value] : object(e, path)) {
      const std::string k(key);
      const std::string at = path + "." + k;
      if (k == "loop") {
        ph.loop = integer(value, at, 1, kMaxLoops);
      } else if (!event(k, value, at, ph.events)) {
        fail(at, "not in vlag's rt-app subset for a phase (loop, run, runtime, sleep, timer)");
      }
    }
    if (ph.events.empty()) fail(path, "a phase needs at least one event (run, sleep or timer)");
    return ph;
  }

  RtAppTask task(const std::string& name, dom::element e, const std::string& path) const {
    RtAppTask t;
    t.name = name;
    RtAppPhase flat;
    bool has_phases = false;
    for (auto [key, value] : object(e, path)) {
      const std::string k(key);
      const std::string at = path + "." + k;
      if (k == "instance") {
        t.instances = static_cast<int>(integer(value, at, 1, kMaxInstances));
      } else if (k == "loop") {
        t.loop = integer(value, at, -1, kMaxLoops);
        if (t.loop == 0) fail(at, "0 is not a loop count (-1: forever, or >= 1)");
      } else if (k == "priority") {
        t.nice = static_cast<int>(integer(value, at, -20, 19));
      } else if (k == "policy") {
        policy(value, at);
      } else if (k == "dl-runtime") {
        t.slice_ns = micros(value, at);
      } else if (k == "vlag_latency_nice") {
        t.latency_nice = static_cast<int>(integer(value, at, -20, 19));
      } else if (k == "delay") {
        t.delay_ns = integer(value, at, 0, kMaxMicros) * 1000;
      } else if (k == "phases") {
        has_phases = true;
        for (auto [pkey, pvalue] : object(value, at))
          t.phases.push_back(phase(pvalue, at + "." + std::string(pkey)));
        if (t.phases.empty()) fail(at, "no phases");
      } else if (!event(k, value, at, flat.events)) {
        fail(at,
             "not in vlag's rt-app subset for a task (instance, loop, priority, policy, "
             "dl-runtime, vlag_latency_nice, delay, phases, run, runtime, sleep, timer)");
      }
    }
    if (has_phases && !flat.events.empty())
      fail(path, "events both in \"phases\" and directly in the task");
    if (!has_phases) {
      if (flat.events.empty()) fail(path, "a task needs events (run, sleep, timer) or phases");
      t.phases.push_back(std::move(flat));
    }
    return t;
  }

  // Global keys that only steer rt-app's own logging and calibration, none of which changes
  // what the tasks ask of the scheduler.
  static bool harmless_global(const std::string& k) {
    for (const char* h :
         {"calibration", "pi_enabled", "lock_pages", "logdir", "log_basename", "log_size", "ftrace",
          "gnuplot", "io_device", "mem_buffer_size", "cumulative_slack"})
      if (k == h) return true;
    return false;
  }

  void global(dom::element e, RtAppConfig& c) const {
    for (auto [key, value] : object(e, "global")) {
      const std::string k(key);
      const std::string at = "global." + k;
      if (k == "duration") {
        const int64_t s = integer(value, at, -1, 365LL * 24 * 3600);
        if (s == 0) fail(at, "0 is not a duration (-1: until every task ends, or >= 1 s)");
        c.duration_ns = s < 0 ? -1 : s * 1'000'000'000;
      } else if (k == "default_policy") {
        policy(value, at);
      } else if (!harmless_global(k)) {
        fail(at,
             "not in vlag's rt-app subset (duration, default_policy, and rt-app's logging "
             "and calibration keys, which are ignored)");
      }
    }
  }

  RtAppConfig parse(std::string_view json) const {
    const std::string plain = strip_comments(json);
    dom::parser parser;
    dom::element root;
    if (const auto err = parser.parse(plain).get(root))
      throw Error(fmt::format("{}: invalid JSON: {}", file_, simdjson::error_message(err)));
    RtAppConfig c;
    bool has_tasks = false;
    for (auto [key, value] : object(root, "(top level)")) {
      const std::string k(key);
      if (k == "tasks") {
        has_tasks = true;
        for (auto [name, task_value] : object(value, "tasks"))
          c.tasks.push_back(task(std::string(name), task_value, "tasks." + std::string(name)));
      } else if (k == "global") {
        global(value, c);
      } else if (k == "resources") {
        if (object(value, "resources").size() != 0)
          fail("resources", "resources (mutexes, barriers, ...) are not in vlag's subset");
      } else {
        fail(k, "unknown top-level key (tasks, global)");
      }
    }
    if (!has_tasks) fail("tasks", "missing");
    if (c.tasks.empty()) fail("tasks", "no task");
    return c;
  }

 private:
  std::string file_;
};

}  // namespace

RtAppConfig parse_rtapp(std::string_view json, const std::string& file) {
  return Parser(file).parse(json);
}

RtAppConfig load_rtapp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_rtapp(text.str(), path);
}

}  // namespace vlag::sim
