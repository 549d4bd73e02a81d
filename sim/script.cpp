#include "sim/script.h"

#include "spec/error.h"

namespace vlag::sim {

ScriptWorkload::ScriptWorkload(Script script) : script_(std::move(script)) {
  const auto fail = [](size_t i, const std::string& what) {
    throw Error("script task " + std::to_string(i) + ": " + what);
  };
  for (size_t i = 0; i < script_.tasks.size(); ++i) {
    const ScriptTask& st = script_.tasks[i];
    if (st.bursts.empty()) fail(i, "no bursts");
    if (st.start_ns < 0) fail(i, "a negative start time");
    for (const ScriptBurst& b : st.bursts) {
      if (b.ns <= 0) fail(i, "a burst of no time");
      if (b.next == ScriptBurst::Next::Timer && b.wake_at_ns < 0) fail(i, "a negative wakeup time");
      int64_t last = 0;
      for (const ScriptAction& a : b.actions) {
        if (a.at_ns < last || a.at_ns > b.ns)
          fail(i, "an action outside its burst or out of order");
        last = a.at_ns;
        if (a.kind == ScriptAction::Kind::Wake &&
            (a.target >= script_.tasks.size() ||
             a.sleep + 1 >= script_.tasks[a.target].bursts.size()))
          fail(i, "a wakeup of a task or sleep that does not exist");
      }
    }
  }
}

void ScriptWorkload::start(Machine& m) {
  first_id_ = static_cast<int64_t>(m.tasks().size()) + 1;
  state_.resize(script_.tasks.size());
  for (size_t i = 0; i < script_.tasks.size(); ++i) {
    const ScriptTask& st = script_.tasks[i];
    State& s = state_[i];
    s.task = &m.add_task(st.attrs, st.cpu);
    s.woken.assign(st.bursts.size(), false);
  }
  for (size_t i = 0; i < script_.tasks.size(); ++i) {
    State& s = state_[i];
    if (script_.tasks[i].start_ns > m.now())
      m.set_timer(*s.task, script_.tasks[i].start_ns);
    else
      timer(m, *s.task);
  }
}

int64_t ScriptWorkload::next_part(State& s) const {
  const ScriptTask& st = script_.tasks[index(*s.task)];
  const ScriptBurst& b = st.bursts[s.burst];
  const int64_t until = s.action < b.actions.size() ? b.actions[s.action].at_ns : b.ns;
  s.task->wall_work = st.wall;
  s.part = until - s.done;
  return s.part;
}

int64_t ScriptWorkload::begin(Machine& m, State& s, size_t burst) {
  s.burst = burst;
  s.done = 0;
  s.action = 0;
  s.sleeping = false;
  ++s.result.bursts_begun;
  return go_on(m, s);
}

// From the current point of the current burst: runs the actions due there, then returns the
// next part's length; at the burst's end goes on with the next burst if its sleep is over, else
// returns 0 (the task sleeps, or has nothing more to do).
int64_t ScriptWorkload::go_on(Machine& m, State& s) {
  for (;;) {
    const ScriptTask& st = script_.tasks[index(*s.task)];
    const ScriptBurst& b = st.bursts[s.burst];
    while (s.action < b.actions.size() && b.actions[s.action].at_ns <= s.done) {
      const ScriptAction& a = b.actions[s.action++];
      if (a.kind == ScriptAction::Kind::Wake)
        wake(m, a.target, a.sleep);
      else
        m.renice(*s.task, a.nice);
    }
    if (s.done < b.ns) return next_part(s);
    const size_t k = s.burst;
    if (k + 1 == st.bursts.size() || b.next == ScriptBurst::Next::End) {
      s.result.finished = true;
      s.sleeping = true;
      return 0;
    }
    if (!s.woken[k] && !(b.next == ScriptBurst::Next::Timer && b.wake_at_ns <= m.now())) {
      s.sleeping = true;
      if (b.next == ScriptBurst::Next::Timer) m.set_timer(*s.task, b.wake_at_ns);
      return 0;
    }
    s.burst = k + 1;  // the sleep between them is over already: no sleep at all
    s.done = 0;
    s.action = 0;
    ++s.result.bursts_begun;
  }
}

int64_t ScriptWorkload::burst_done(Machine& m, Task& t) {
  State& s = state_[index(t)];
  if (s.measure) {
    s.result.wake_to_run_ns.push_back(t.latency.last_ns);  // the machine's, at the first run
    s.measure = false;
  }
  s.done += s.part;
  return go_on(m, s);
}

void ScriptWorkload::timer(Machine& m, Task& t) {
  State& s = state_[index(t)];
  if (!s.started) {
    s.started = true;
  } else if (!s.sleeping) {
    return;
  }
  const size_t burst = s.result.bursts_begun == 0 ? 0 : s.burst + 1;
  const bool first = s.result.bursts_begun == 0;
  const int64_t part = begin(m, s, burst);
  if (part == 0) return;  // every burst ran to its end at once
  s.measure = true;
  if (first && script_.tasks[index(t)].forked)
    m.fork(t, part);
  else
    m.wake(t, part);
}

void ScriptWorkload::wake(Machine& m, size_t target, size_t sleep) {
  State& o = state_[target];
  if (o.started && o.sleeping && o.burst == sleep && !o.result.finished) {
    const int64_t part = begin(m, o, sleep + 1);
    if (part == 0) return;
    o.measure = true;
    m.wake(*o.task, part);
    return;
  }
  if (!o.started || o.burst < sleep || (o.burst == sleep && !o.sleeping)) o.woken[sleep] = true;
}

}  // namespace vlag::sim
