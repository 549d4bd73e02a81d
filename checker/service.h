// Layer 1 (black box): needs only who ran when, the weights and the runnable intervals. Judges
// the wakeup latency (THM-WAKEUP-LATENCY) and the longest wait (FIG-STARVATION), and whether the
// system is steady (SPEC.md §6: every join and leave at zero lag) for the lag theorems, which
// checker/lag_figures.h judges on EEVDF's own lag. For that it keeps a fluid (GPS) clock over the
// runnable tasks (checker/fluid_clock.h) — it advances by δ·N/W while some task runs, as the
// TR's V(t) does (SPEC.md §3) — and from it each task's fluid lag, the service the fluid system
// gave it since it became runnable minus the service it received: EEVDF's w(V − v)/N while the
// system is steady, so a leave at a non-zero fluid lag is the first unsteady one. O(1) per event.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "checker/fluid_clock.h"
#include "checker/report.h"
#include "trace/event.h"

namespace vlag::checker {

class ServiceLayer {
 public:
  ServiceLayer(const Params& params, Report& report, std::string file);

  /// `task_entity`: the entity is its task's own (messages say "task N", else "entity N").
  void on_new(EntityId id, int64_t weight, int64_t slice, bool task_entity = true);
  void on_exit(EntityId id);
  /// steady: the task joins at zero lag (SPEC.md §6 "steady system"); unknown counts as not.
  void on_wakeup(EntityId id, int64_t now, bool steady, int64_t line);
  void on_sleep(EntityId id, int64_t now);
  void on_pick(std::optional<EntityId> id, int64_t now, int64_t line);
  void on_run(int64_t delta);
  void on_reweight(EntityId id, int64_t weight);
  void on_slice(EntityId id, int64_t slice);
  void finish();

  /// Every join and leave so far at zero lag (SPEC.md §6's steady system), where this layer's
  /// fluid lag equals EEVDF's w(V − v)/N.
  bool steady() const { return steady_; }
  /// No entity has left the runnable set.
  bool cpu_bound() const { return cpu_bound_; }

 private:
  struct Task {
    int64_t weight = 0;
    int64_t slice = 0;
    bool runnable = false;
    FluidClock::Point joined_at;  // fluid clock at the start of the runnable interval
    int64_t received = 0;         // ns of service in the runnable interval
    int64_t waiting_since = -1;
    int64_t woke_at = -1;  // the wakeup whose first run is pending
    int64_t woke_W = 0;    // runnable weight right after that wakeup
    bool woke_steady = false;
    bool task_entity = true;
  };
  static std::string who(EntityId id, const Task& t);

  FluidClock::Lag lag(const Task& t);  // ns
  void stop_running(int64_t now);
  void leave(Task& t);
  /// Counts a figure of `id`; text() describes it, called only when it is the worst so far.
  template <class Text>
  void figure(const char* id, double ratio, Text&& text, bool verdict);

  Params params_;
  Report& report_;
  std::string file_;
  std::map<EntityId, Task> tasks_;
  FluidClock clock_;  // fluid virtual time
  int64_t runnable_weight_ = 0;
  std::optional<EntityId> running_;
  Task* running_task_ = nullptr;  // tasks_'s entry of running_, when it has one
  bool steady_ = true;            // every join and leave so far at zero lag
  bool cpu_bound_ = true;         // no entity has left the runnable set
  bool paper_;                    // THM-LAG-BOUND is promised (SPEC.md §6, spec/properties.h)
  bool latency_promised_;         // THM-WAKEUP-LATENCY is
};

}  // namespace vlag::checker
