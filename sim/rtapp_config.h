// The subset of rt-app's JSON grammar (scheduler-tools/rt-app, doc/tutorial.txt) that vlag
// runs, parsed into plain data. docs/rt-app.md lists what is accepted; anything else (another
// policy, an event or property outside the subset) is rejected with a vlag::Error naming the
// file and the JSON path, never silently ignored, so a description runs as written or not at all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vlag::sim {

struct RtAppEvent {
  enum class Kind { Run, Sleep, Timer };
  Kind kind = Kind::Run;
  int64_t ns = 0;         // run: CPU time; sleep: duration; timer: period
  std::string timer_ref;  // timer: its name ("unique..." names are per thread instance)
  bool relative = false;  // timer "mode": "relative" (default "absolute")
  bool wall = false;      // run: "runtime", wall-clock time (a loop on the clock), not CPU time
};

struct RtAppPhase {
  int64_t loop = 1;
  std::vector<RtAppEvent> events;
};

struct RtAppTask {
  std::string name;
  int instances = 1;
  int64_t loop = -1;     // passes over the phases; -1: until the run ends
  int nice = 0;          // "priority" of a SCHED_OTHER task
  int64_t slice_ns = 0;  // "dl-runtime" of a SCHED_OTHER task: its custom slice
  int latency_nice = 0;  // "vlag_latency_nice" (a vlag extension)
  int64_t delay_ns = 0;  // "delay": before the first event
  std::vector<RtAppPhase> phases;
};

struct RtAppConfig {
  std::vector<RtAppTask> tasks;
  int64_t duration_ns = -1;  // "global": {"duration"} in seconds; -1: until every task ends
};

/// Parses rt-app JSON (C-style comments allowed, as rt-app's parser allows them); `file` names
/// the source in errors.
RtAppConfig parse_rtapp(std::string_view json, const std::string& file);
/// Reads and parses the file at path.
RtAppConfig load_rtapp(const std::string& path);

}  // namespace vlag::sim
