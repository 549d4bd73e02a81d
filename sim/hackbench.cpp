#include "sim/hackbench.h"

#include <fmt/format.h>

namespace vlag::sim {

void Hackbench::start(Machine& m) {
  roles_.assign(1, Role{});  // task ids start at 1
  int spread = 0;
  size_t index = 0;
  for (int g = 0; g < config_.groups; ++g) {
    for (int role = 0; role < 2; ++role) {
      for (int k = 0; k < config_.fds; ++k) {
        const std::string name = fmt::format("{}-{}-{}", role == 0 ? "sender" : "receiver", g, k);
        Task& t = m.add_task(config_.options.attrs(name, index++), spread++);
        roles_.push_back({role == 0, g, 0, 0});
        members_.push_back(&t);
      }
    }
  }
  receivers_left_ = config_.groups * config_.fds;
  for (Task* t : members_)
    if (roles_[static_cast<size_t>(t->id)].sender) m.wake(*t, config_.send_ns);
}

Task& Hackbench::receiver(int group, int k) {
  return *members_[static_cast<size_t>((2 * group + 1) * config_.fds + k)];
}

int64_t Hackbench::burst_done(Machine& m, Task& t) {
  Role& r = roles_[static_cast<size_t>(t.id)];
  const int64_t total = static_cast<int64_t>(config_.loops) * config_.fds;
  if (r.sender) {
    Task& to = receiver(r.group, static_cast<int>(r.done % config_.fds));
    ++roles_[static_cast<size_t>(to.id)].pending;
    m.wake(to, config_.recv_ns);
    return ++r.done < total ? config_.send_ns : 0;
  }
  --r.pending;
  if (++r.done == total && --receivers_left_ == 0) m.stop();
  return r.pending > 0 ? config_.recv_ns : 0;
}

std::string hackbench_summary(const Hackbench& w, int64_t end_ns) {
  const HackbenchConfig& c = w.config();
  std::string s = fmt::format(
      "# Running 'sched/messaging' benchmark:\n# {} sender and receiver processes per group\n"
      "# {} groups == {} processes run\n\n",
      c.fds, c.groups, 2 * c.fds * c.groups);
  if (w.finished())
    return s + fmt::format("     Total time: {:.3f} [sec]\n", static_cast<double>(end_ns) / 1e9);
  return s + fmt::format("     Not finished after {:.3f} [sec] of simulated time\n",
                         static_cast<double>(end_ns) / 1e9);
}

}  // namespace vlag::sim
