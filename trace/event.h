// The trace format of spec/TRACE.md (version 2) as data: one header, then one Event per line, each
// on a runqueue (rq) and about an entity (se, a task's by default). Numbers of virtual time are
// exact rationals (the reference's vruntimes are rational; integer producers give integers),
// everything in real time is an integer number of nanoseconds. EventKind is the line vocabulary;
// its operations are OpKind's (spec/ops.h), mapped in one table (trace/event.cpp).
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
#include "trace/retained_optional.h"

namespace vlag::trace {

using Exact = mpq_class;

inline constexpr std::string_view kFormatName = "vlag-trace";
/// The version the writer writes; the reader takes 1 and 2 (spec/TRACE.md §8).
inline constexpr int kFormatVersion = 2;

struct Header {
  int version = kFormatVersion;  // the version read (the writer writes kFormatVersion)
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
  /// The trace was rebuilt from a real kernel's tracepoints (`vlag kernel import`): who ran when
  /// is the kernel's, every vruntime, deadline and lag the checker derives is its own rebuild
  /// (spec/TRACE.md §2), so the decision and state checks on it are inconclusive when they fail.
  bool kernel_reconstruction = false;
  /// `"source":"linux"`: the trace's numbers are a real kernel's own, from a capture of its state
  /// (`vlag kernel export --state`, SPEC.md §6.4) — true values at each record, with what no
  /// record shows in between (spec/TRACE.md §2), so the decision and state checks on it are
  /// inconclusive when they fail.
  bool linux_source = false;
  /// `"runqueue"`: which of the kernel's runqueues it is ("cpu1 cfs_rq 0x…"); empty: not said.
  std::string runqueue;
};

enum class EventKind : uint8_t {
  New,       // an entity created: weight, slice; a task's (task, name) or a group's (se, group)
  Exit,      // entity gone
  Wakeup,    // enqueue after sleep (or first enqueue of a new entity)
  Sleep,     // dequeue because the entity blocks (may become delayed)
  Dequeue,   // dequeue without sleeping: migration or attribute change
  Pick,      // pick_next_entity: the entity, or none (idle)
  Run,       // the running entity ran for delta ns
  Tick,      // timer tick
  Reweight,  // nice change: weight
  Slice,     // sched_runtime change: slice (0: base slice)
  Yield,     // sched_yield of the running entity
  Preempt,   // wakeup-preemption decision for the entity: preempt
  Migrate,   // task moved from cpu to `to`
  Detach,    // §4.13: entity left this runqueue for another CPU's, taking its saved lag (vlag)
  Attach,    // §4.13: entity joined from another CPU's runqueue: weight, slice, its saved lag
  Entity,    // the full state of one entity at the start of a window
  Runqueue,  // v2: a runqueue declared: its cpu, task group, and owning group entity (se, parent)
  Put,       // v2: put_prev_entity: the running entity returns to the tree, nothing runs here
};

std::string_view event_name(EventKind kind);
std::optional<EventKind> event_kind(std::string_view name);

/// An exact number an event may carry: an optional that keeps its limbs across a reset, so that
/// a reader reusing one Event does not allocate per line.
using OptionalExact = RetainedOptional<Exact>;

/// What a producer knows about one entity after the event (all optional).
struct EntityFields {
  std::optional<int64_t> weight;  // "w"
  std::optional<int64_t> slice;   // "r"
  OptionalExact vruntime;         // "v"
  OptionalExact deadline;         // "d"
  OptionalExact vlag;             // "vlag": V − v while queued, the saved lag while sleeping
  std::optional<bool> eligible;   // "elig"
  std::optional<Status> status;   // "status"
  std::optional<bool> running;    // "running"
  OptionalExact request;          // "req": ρ, the size of the current request in ns (SPEC.md §2)
  OptionalExact vprot;            // v2 "vprot": the kernel's protection end, where it is known

  bool empty() const {
    return !weight && !slice && !vruntime && !deadline && !vlag && !eligible && !status &&
           !running && !request && !vprot;
  }
};

/// v2: the real kernel's own bookkeeping of the runqueue after the event (SPEC.md §6,
/// INV-KERNEL-SUMS): the reference point of its sums and the sums over the entities in its tree
/// (curr is outside the tree).
struct KernelSums {
  OptionalExact v0;              // "v0": zero_vruntime (min_vruntime before 6.19)
  std::optional<int64_t> sum_w;  // "sum_w": Σ w_i over the tree
  OptionalExact sum_wv;          // "sum_wv": Σ w_i·(v_i − v0) over the tree

  bool empty() const { return !v0 && !sum_w && !sum_wv; }
};

struct Event {
  EventKind kind = EventKind::Tick;
  int64_t t = 0;               // ns, after the event
  int cpu = 0;                 // "cpu"
  RunqueueId rq = 0;           // v2 "rq": the runqueue the event happened on
  std::optional<TaskId> task;  // the task the event is about; Pick: the picked task (none: idle)
  /// v2 "se": the entity, where it is not the task's own id (a group entity, or a task entity
  /// with an id of its own); Runqueue: the group entity that owns the runqueue.
  std::optional<EntityId> se;
  int64_t delta = 0;     // Run
  int64_t weight = 0;    // New, Attach, Reweight; New: 0 when unknown ("weight":null)
  int64_t slice = 0;     // New, Attach, Slice
  bool preempt = false;  // Preempt
  int to_cpu = 0;        // Migrate
  std::string name;      // v2 "name": New, Attach: the task's name (comm); empty: none
  std::string group;     // v2 "group": New: a group entity's task group; Runqueue: its own
  std::optional<RunqueueId> parent;  // v2 "parent": Runqueue: the runqueue `se` is queued on
  EntityFields state;                // the named (or running) entity after the event
  OptionalExact V;                   // runqueue state after the event
  std::optional<int64_t> W;
  std::optional<int64_t> nr_queued;
  KernelSums kernel;

  /// The entity the event names: `se`, else the task's own entity.
  std::optional<EntityId> entity() const { return se ? se : task; }
  /// Back to a default Event, keeping the storage of its numbers and strings for the next line.
  void clear();
};

std::string_view status_name(Status s);
std::optional<Status> status_by_name(std::string_view name);

/// The spec operation an event stands for (SPEC.md §4), on the event's runqueue; nullopt for
/// Migrate, Entity and Runqueue, which are not operations of one runqueue.
std::optional<Op> to_op(const Event& e);
/// The event kind of an operation (a dequeue with kDequeueSleep is a Sleep).
EventKind event_kind_of(const Op& op);
/// The event fields an operation's arguments go to (to_op's inverse): weight, slice, delta.
void set_op_arguments(Event& e, const Op& op);

/// Exact numbers as text: "12", "-7", "15/4" (lowest terms, positive denominator).
std::string exact_text(const Exact& x);
/// Parses exact_text's form; nullopt when text is not such a number.
std::optional<Exact> parse_exact(std::string_view text);
/// The whole of `text` as an s64 written in decimal with an optional '-': false when it is not
/// one, or does not fit.
bool parse_s64(std::string_view text, int64_t& into);
/// parse_exact into `into`'s storage; false (into unspecified) when text is not such a number.
bool parse_exact_into(std::string_view text, Exact& into);

}  // namespace vlag::trace
