#include "sim/hackbench.h"

#include <fmt/format.h>

#include "spec/error.h"

namespace vlag::sim {

Hackbench::Hackbench(HackbenchConfig c) : config_(std::move(c)) {
  if (config_.groups < 1 || config_.fds < 1 || config_.loops < 1)
    throw Error("hackbench: groups, fds and loops must be >= 1");
  if (config_.send_ns <= 0 || config_.recv_ns <= 0)
    throw Error("hackbench: the CPU time of a write and of a read must be > 0");
  capacity_ = config_.capacity_bytes / kHackbenchMessageBytes;
  if (capacity_ < 1)
    throw Error(fmt::format("hackbench: a pipe of {} bytes cannot hold one {}-byte message",
                            config_.capacity_bytes, kHackbenchMessageBytes));
  per_task_ = static_cast<int64_t>(config_.loops) * config_.fds;
}

Hackbench::Pipe& Hackbench::pipe_of(int group, int index) {
  return pipes_[static_cast<size_t>(group * config_.fds + index)];
}

Hackbench::Role& Hackbench::role(const Task& t) {
  return roles_[static_cast<size_t>(t.id - first_id_)];
}

void Hackbench::start(Machine& m) {
  first_id_ = static_cast<int64_t>(m.tasks().size()) + 1;
  pipes_.assign(static_cast<size_t>(config_.groups * config_.fds), Pipe{});
  std::vector<Task*> members;
  size_t index = 0;
  for (int g = 0; g < config_.groups; ++g) {
    for (int sender = 0; sender < 2; ++sender) {  // perf forks a group's receivers first
      for (int k = 0; k < config_.fds; ++k) {
        const std::string name = fmt::format("{}-{}-{}", sender ? "sender" : "receiver", g, k);
        Task& t = m.add_task(config_.options.attrs(name, index),
                             static_cast<int>(index % static_cast<size_t>(m.ncpus())));
        ++index;
        roles_.push_back({sender == 1, g, k, 0});
        if (!sender) pipe_of(g, k).reader = &t;
        members.push_back(&t);
      }
    }
  }
  receivers_left_ = config_.groups * config_.fds;
  // "GO": every task returns from its poll at once. A receiver's first read finds its pipe empty
  // unless a sender got there first; a sender reserves room for its first message.
  for (Task* t : members) {
    Role& r = role(*t);
    if (!r.sender) {
      m.wake(*t, config_.recv_ns);
      continue;
    }
    Pipe& p = pipe_of(r.group, 0);
    if (room(p)) {
      ++p.reserved;
      m.wake(*t, config_.send_ns);
    } else {
      ++counters_.sender_blocks;
      p.blocked.push_back(t);
    }
  }
}

int64_t Hackbench::burst_done(Machine& m, Task& t) {
  Role& r = role(t);
  return r.sender ? sender_burst_done(m, t, r) : receiver_burst_done(m, r);
}

int64_t Hackbench::sender_burst_done(Machine& m, Task& t, Role& r) {
  Pipe& into = pipe_of(r.group, static_cast<int>(r.done % config_.fds));
  --into.reserved;
  ++into.queued;
  counters_.max_queued = std::max(counters_.max_queued, into.queued);
  m.wake(*into.reader, config_.recv_ns);  // no-op while the reader is already runnable
  if (++r.done == per_task_) return 0;    // the sender exits
  Pipe& next = pipe_of(r.group, static_cast<int>(r.done % config_.fds));
  if (room(next)) {
    ++next.reserved;
    return config_.send_ns;
  }
  ++counters_.sender_blocks;
  next.blocked.push_back(&t);
  return 0;
}

int64_t Hackbench::receiver_burst_done(Machine& m, Role& r) {
  Pipe& p = pipe_of(r.group, r.index);
  if (p.queued == 0) return 0;  // read() found nothing: block until a write
  --p.queued;
  ++counters_.messages_read;
  if (!p.blocked.empty()) {
    Task* writer = p.blocked.front();
    p.blocked.pop_front();
    ++p.reserved;
    m.wake(*writer, config_.send_ns);
  }
  if (++r.done == per_task_) {
    if (--receivers_left_ == 0) finish(m);
    return 0;
  }
  return p.queued > 0 ? config_.recv_ns : 0;
}

std::string Hackbench::report(const MachineStats& st) const {
  return hackbench_summary(*this, finished() ? finished_at_ns() : st.end_ns);
}

Metrics Hackbench::metrics(const MachineStats& st) const {
  const int64_t end = finished() ? finished_at_ns() : st.end_ns;
  return {{"hackbench.time", "s", static_cast<double>(end) / 1e9, Better::Lower}};
}

std::string hackbench_summary(const Hackbench& w, int64_t end_ns) {
  const HackbenchConfig& c = w.config();
  const char* what = c.threads ? "threads" : "processes";
  std::string s = fmt::format(
      "# Running 'sched/messaging' benchmark:\n# {} sender and receiver {} per group\n"
      "# {} groups == {} {} run\n\n",
      c.fds, what, c.groups, 2 * c.fds * c.groups, what);
  // perf prints whole milliseconds, truncated (tv_usec / USEC_PER_MSEC).
  const int64_t ms = end_ns / 1'000'000;
  if (w.finished())
    return s + fmt::format(" {:>14}: {}.{:03} [sec]\n", "Total time", ms / 1000, ms % 1000);
  return s + fmt::format("     Not finished after {}.{:03} [sec] of simulated time\n", ms / 1000,
                         ms % 1000);
}

}  // namespace vlag::sim
