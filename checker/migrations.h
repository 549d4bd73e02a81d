// The rules across the runqueues of one run (SPEC.md §6, §4.13): the events that put a task on a
// runqueue or take it off (`new`, `entity`, `attach`, `detach`, `exit`), of every runqueue of
// every trace of the run, merged by time (checker/machine.h), with
//   INV-MIGRATE-LAG: a migrant arrives as it left — the saved lag and weight its `attach` brings
//     are those its `detach` took from the other runqueue (SPEC.md §4.13);
//   INV-ONE-RUNQUEUE: a task is on at most one runqueue at a time.
// Traces of different CPUs cannot order two events of one instant, so a detach and the arrival
// it pairs with may come in either order at the same timestamp: an arrival of a task still on
// another runqueue waits for its departure until time moves on. Memory is proportional to the
// live tasks, not to the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "checker/report.h"
#include "trace/event.h"

namespace vlag::checker {

/// What the rules read of one event: where it is (its trace, runqueue and line) and what it says
/// of its task.
struct PlaceEvent {
  size_t file = 0;  // the trace's position among the run's traces
  int64_t line = 0;
  int64_t index = 0;  // its position among that trace's events
  trace::EventKind kind = trace::EventKind::New;
  int64_t t = 0;
  RunqueueId rq = 0;
  TaskId task = 0;
  std::optional<int64_t> weight;     // attach: the migrant's; detach: "w", if reported
  std::optional<trace::Exact> vlag;  // detach, attach: the saved lag the line reports

  /// The events the rules read: those of a task that put it on a runqueue or take it off.
  static bool wanted(const trace::Event& e);
  static PlaceEvent of(const trace::Event& e, size_t file, int64_t line, int64_t index);
};

class MigrationRules {
 public:
  /// `files`: the run's traces, by position; `lag`: judge INV-MIGRATE-LAG (EEVDF, not the CFS
  /// policies, which migrate no lag).
  MigrationRules(std::vector<std::string> files, bool lag, Report& report);

  /// The run's next such event, in time order.
  void consume(const PlaceEvent& e);
  /// Settles the arrivals still waiting, and notes what could not be judged.
  void finish();

 private:
  struct Place {
    size_t file = 0;
    RunqueueId rq = 0;
    bool operator==(const Place&) const = default;
  };
  struct Stay {  // a task on a runqueue since a line of its trace
    Place place;
    int64_t line = 0;
  };
  struct Departure {
    Place from;
    int64_t line = 0;
    std::optional<int64_t> weight;
    std::optional<trace::Exact> vlag;
  };

  std::string name(const Place& p) const;
  void arrive(const PlaceEvent& e, const Place& here);
  void place(const PlaceEvent& e, const Place& here);
  void depart(const PlaceEvent& e, const Place& here);
  void judge_lag(const PlaceEvent& arrival, const Departure& d);
  void settle(int64_t before);  // arrivals earlier than `before` whose departure never came
  void count_place(const Place& p);

  std::vector<std::string> files_;
  bool lag_;
  Report& report_;
  std::vector<Place> places_;  // the runqueues seen so far
  std::unordered_map<TaskId, Stay> where_;
  std::unordered_map<TaskId, Departure> in_transit_;
  struct Waiting {
    PlaceEvent arrival;
    bool left = false;  // it left the runqueue it arrived on again, at the same instant
  };
  std::vector<Waiting> waiting_;   // arrivals of tasks still elsewhere, all at one time
  int64_t arrivals_unpaired_ = 0;  // attaches with no departure in the run's traces
  int64_t lags_unreported_ = 0;    // migrations whose detach reports no lag
};

}  // namespace vlag::checker
