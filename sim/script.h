// A scripted workload: tasks that do what a recording says they did (`vlag kernel replay`,
// replay/replay.h), so that the model and the real kernel can be compared on the same behaviour.
// Each task starts at a time, then runs bursts one after the other; between two bursts it
// sleeps until either a time (a timer, or any wakeup the recording could not tie to a task) or
// the moment another task's burst reaches the point where, in the recording, that task woke it.
// Inside a burst the task may wake others and change its own nice value, at offsets into the
// burst. A burst is CPU time, or wall-clock time for tasks that work on the clock (a loop until
// a time, SPEC.md §9.5); a wall task's offsets are wall-clock too.
//
// The order of events in the model may differ from the recording's: a wakeup that reaches a
// task before it went to the sleep it ends is kept, and that sleep is then skipped, as a pipe
// that already holds data does not block its reader; a timer whose time has passed when the task
// goes to sleep does not put it to sleep, as clock_nanosleep on a past time returns at once.
// Because every wakeup in the recording came after what caused it, the model never deadlocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine.h"

namespace vlag::sim {

struct ScriptAction {
  enum class Kind : uint8_t { Wake, Renice };
  Kind kind = Kind::Wake;
  int64_t at_ns = 0;  // into the burst: CPU time, or wall-clock time for a wall task
  size_t target = 0;  // Wake: the task (index into Script::tasks) ...
  size_t sleep = 0;   // ... and which of its sleeps (the one after its burst `sleep`) it ends
  int nice = 0;       // Renice: the new nice value
};

struct ScriptBurst {
  int64_t ns = 0;
  std::vector<ScriptAction> actions;  // by at_ns, each at most ns
  // What ends the sleep after this burst: a wakeup at a time, another task's Wake, or nothing
  // (the task exits, or the recording ended while it slept or ran).
  enum class Next : uint8_t { Timer, Task, End };
  Next next = Next::End;
  int64_t wake_at_ns = 0;  // Timer: the time of the wakeup
};

struct ScriptTask {
  TaskAttrs attrs;
  int cpu = 0;
  bool wall = false;    // the bursts are wall-clock time
  bool forked = false;  // its start is a fork's first wakeup (Machine::fork)
  int64_t start_ns = 0;
  std::vector<ScriptBurst> bursts;  // at least one
};

struct Script {
  std::vector<ScriptTask> tasks;
};

/// What a scripted task went through in the model.
struct ScriptTaskResult {
  std::vector<int64_t> wake_to_run_ns;  // each wakeup's, to the task's first run after it
  size_t bursts_begun = 0;
  bool finished = false;  // ran its last burst to its end
};

class ScriptWorkload : public Workload {
 public:
  /// Throws vlag::Error on a script that cannot run: no bursts, a Wake of a task or sleep that
  /// does not exist, an action beyond its burst, a negative time.
  explicit ScriptWorkload(Script script);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  void timer(Machine& m, Task& t) override;

  const Script& script() const { return script_; }
  /// The machine's task of script task i (valid after start).
  const Task& task(size_t i) const { return *state_[i].task; }
  const ScriptTaskResult& result(size_t i) const { return state_[i].result; }

 private:
  struct State {
    Task* task = nullptr;
    size_t burst = 0;      // the burst running, or the one whose sleep the task is in
    int64_t done = 0;      // of that burst, up to the start of the part being run
    int64_t part = 0;      // the length of the part being run
    size_t action = 0;     // the next action of that burst
    bool sleeping = true;  // not started, or in the sleep after `burst`
    bool started = false;
    bool measure = false;     // the part running follows a wakeup: record its wake-to-run latency
    std::vector<bool> woken;  // per sleep: a Wake or the timer came before the task got there
    ScriptTaskResult result;
  };

  size_t index(const Task& t) const { return static_cast<size_t>(t.id - first_id_); }
  /// The length of the next part of the current burst: up to its next action or its end.
  int64_t next_part(State& s) const;
  int64_t begin(Machine& m, State& s, size_t burst);
  int64_t go_on(Machine& m, State& s);
  void wake(Machine& m, size_t target, size_t sleep);

  Script script_;
  std::vector<State> state_;
  int64_t first_id_ = 0;
};

}  // namespace vlag::sim
