#include "sim/hogs.h"

namespace vlag::sim {

void Hogs::start(Machine& m) {
  for (int i = 0; i < count_; ++i) {
    Task& t = m.add_task(options_.attrs("hog" + std::to_string(i), static_cast<size_t>(i)), i);
    m.wake(t, kForever);
  }
}

int64_t Hogs::burst_done(Machine&, Task&) { return kForever; }

}  // namespace vlag::sim
