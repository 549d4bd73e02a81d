#include "sim/hogs.h"

#include <fmt/format.h>

namespace vlag::sim {

void Hogs::start(Machine& m) {
  for (int i = 0; i < count_; ++i) {
    Task& t = m.add_task(options_.attrs(prefix_ + std::to_string(i), static_cast<size_t>(i)), i);
    hogs_.push_back(&t);
    if (m.task_groups()) groups_.push_back(m.group_path(t));
    m.wake(t, kForever);
  }
}

int64_t Hogs::burst_done(Machine&, Task&) { return kForever; }

std::string Hogs::report(const MachineStats& st) const {
  // With task groups (SPEC.md §10) each hog's group is a last column.
  const bool grouped = !groups_.empty();
  std::string s = fmt::format("{:<8} {:>3} {:>4} {:>10} {:>8}{}\n", "task", "cpu", "nice",
                              "runtime", "share", grouped ? "  group" : "");
  for (size_t i = 0; i < hogs_.size(); ++i) {
    const Task* t = hogs_[i];
    s += fmt::format("{:<8} {:>3} {:>4} {:>8.3f} s {:>7.2f}%{}\n", t->attrs.name, t->cpu,
                     t->attrs.nice, static_cast<double>(t->runtime_ns) / 1e9,
                     100.0 * static_cast<double>(t->runtime_ns) / static_cast<double>(st.end_ns),
                     grouped ? "  " + groups_[i] : "");
  }
  return s;
}

}  // namespace vlag::sim
