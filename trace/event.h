// The trace format of spec/TRACE.md as data: one header, then one TraceEvent per line. Numbers of
// virtual time are exact rationals (the reference's vruntimes are rational; integer producers
// give integers), everything in real time is an integer number of nanoseconds.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/arith.h"
#include "spec/features.h"
#include "spec/observer.h"
#include "spec/ops.h"

namespace vlag::trace {

using Exact = mpq_class;

inline constexpr std::string_view kFormatName = "vlag-trace";
inline constexpr int kFormatVersion = 1;

struct Header {
  std::string producer;
  Params params = make_params(preset_by_name(kDefaultPreset));
  /// The trace starts mid-run: it opens with `entity` lines giving the state at its start
  /// (a replayable window), so tasks without a `new` event are not a trace fault.
  bool window = false;
  /// One CPU's stream of a multi-CPU run (`cpus` > 1): the events of CPU `cpu`'s runqueue only.
  /// The machine's CPU count still sets the base slice (SPEC.md §1), so it stays in `cpus`.
  std::optional<int> cpu;
  /// The arithmetic the producer computed virtual times in (spec/arith.h), Linux's written as
  /// their s64 readings. Traces without the field are exact: the reference's, and every older
  /// trace's.
  Arith arith = Arith::Exact;
};

enum class EventKind : uint8_t {
  New,       // task created: weight, slice
  Exit,      // task gone
  Wakeup,    // enqueue after sleep (or first enqueue of a new task)
  Sleep,     // dequeue because the task blocks (may become delayed)
  Dequeue,   // dequeue without sleeping: migration or attribute change
  Pick,      // pick_next_entity: task, or none (idle)
  Run,       // the running task ran for delta ns
  Tick,      // timer tick
  Reweight,  // nice change: weight
  Slice,     // sched_runtime change: slice (0: base slice)
  Yield,     // sched_yield of the running task
  Preempt,   // wakeup-preemption decision for task: preempt
  Migrate,   // task moved from cpu to `to`
  Detach,    // §4.13: task left this runqueue for another CPU's, taking its saved lag (vlag)
  Attach,    // §4.13: task joined from another CPU's runqueue: weight, slice, its saved lag
  Entity,    // the full state of one entity at the start of a window
};

std::string_view event_name(EventKind kind);
std::optional<EventKind> event_kind(std::string_view name);

/// What a producer knows about one entity after the event (all optional).
struct EntityFields {
  std::optional<int64_t> weight;  // "w"
  std::optional<int64_t> slice;   // "r"
  std::optional<Exact> vruntime;  // "v"
  std::optional<Exact> deadline;  // "d"
  std::optional<Exact> vlag;      // "vlag": V − v while queued, the saved lag while sleeping
  std::optional<bool> eligible;   // "elig"
  std::optional<Status> status;   // "status"
  std::optional<bool> running;    // "running"
  std::optional<Exact> request;   // "req": ρ, the size of the current request in ns (SPEC.md §2)

  bool empty() const {
    return !weight && !slice && !vruntime && !deadline && !vlag && !eligible && !status &&
           !running && !request;
  }
};

struct Event {
  EventKind kind = EventKind::Tick;
  int64_t t = 0;               // ns, after the event
  int cpu = 0;                 // "cpu"
  std::optional<TaskId> task;  // the task the event is about; Pick: the picked task (none: idle)
  int64_t delta = 0;           // Run
  int64_t weight = 0;          // New, Attach, Reweight; New: 0 when unknown ("weight":null)
  int64_t slice = 0;           // New, Attach, Slice
  bool preempt = false;        // Preempt
  int to_cpu = 0;              // Migrate
  EntityFields state;          // the named (or running) entity after the event
  std::optional<Exact> V;      // runqueue state after the event
  std::optional<int64_t> W;
  std::optional<int64_t> nr_queued;
};

std::string_view status_name(Status s);
std::optional<Status> status_by_name(std::string_view name);

/// The spec operation an event stands for (SPEC.md §4); nullopt for Migrate and Entity, which
/// are not operations of one runqueue.
std::optional<Op> to_op(const Event& e);

/// Exact numbers as text: "12", "-7", "15/4" (lowest terms, positive denominator).
std::string exact_text(const Exact& x);
/// Parses exact_text's form; nullopt when text is not such a number.
std::optional<Exact> parse_exact(std::string_view text);

}  // namespace vlag::trace
