// The per-CPU runqueue as the machine sees it: a small virtual interface, so that one machine
// runs EEVDF (optimized::Runqueue) or any other scheduling class with the same duck-typed API
// (vlag::cfs::Runqueue plugs in through the same adapter). The machine never looks at
// virtual times: it applies SPEC.md operations, reads who runs, and moves tasks between CPUs as
// Migrants whose saved lag is an integer count of virtual ns (Linux's s64 se->vlag). The exact
// reference runqueue plugs in too; its lags are rationals with no exact s64 form, so it refuses
// to migrate (a one-CPU machine never migrates).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spec/error.h"
#include "spec/migrant.h"
#include "spec/observer.h"
#include "spec/ops.h"
#include "trace/observer.h"

namespace vlag::sim {

class CpuRunqueue {
 public:
  virtual ~CpuRunqueue() = default;
  virtual void apply(const Op& op) = 0;
  virtual int64_t now() const = 0;
  virtual std::optional<EntityId> curr() const = 0;
  virtual int64_t nr_queued() const = 0;
  virtual bool need_resched() const = 0;
  /// The decision of the last WakeupPreempt applied.
  virtual bool last_preempt() const = 0;
  virtual Status status(EntityId id) const = 0;
  /// Virtual-time ns the task still needs to finish its current request (the paper presets'
  /// quantum allocation asks it); throws vlag::Error on a runqueue without requests.
  virtual int64_t remaining_request(EntityId id) const = 0;
  virtual std::optional<Migrant<int64_t>> detach(EntityId id) = 0;
  virtual bool attach(const Migrant<int64_t>& m) = 0;
  /// Sets a task's latency_nice on a runqueue that keeps one (cfs-latency-nice); throws
  /// vlag::Error on one that does not (EEVDF turns latency_nice into a slice at creation).
  virtual void set_latency_nice(EntityId id, int latency_nice) = 0;
  /// SPEC.md §10.6: the CPU's load as load balancing by load reads it (the root runqueue's W)
  /// and a task's part of it (task_h_load). Only a hierarchy of task groups answers: the flat
  /// machine balances by counts of tasks.
  virtual int64_t load() const { throw Error("this runqueue keeps no hierarchical load"); }
  virtual int64_t task_h_load(EntityId id) const {
    throw Error("this runqueue keeps no hierarchical load (task " + std::to_string(id) + ")");
  }
  /// Writes every operation from now on to out as a trace (spec/TRACE.md) under header h, the
  /// tasks named by `names` on their `new` and `attach` lines.
  virtual void trace_to(std::ostream& out, const trace::Header& h, trace::TaskNames names) = 0;
  /// Hands every operation from now on to sink as its trace event, numbered as CPU `cpu`.
  virtual void report_to(trace::EventSink& sink, int cpu) = 0;
};

/// The virtual-time type of a runqueue class: that of the saved lag its migrants carry.
template <class Rq>
using RunqueueNum = std::remove_cvref_t<decltype(std::declval<Rq&>().detach(EntityId{})->vlag)>;

/// Integer lags (Linux's s64, or plain int64_t) convert exactly to a machine's migrant; rational
/// ones do not.
template <class Num>
inline constexpr bool kExactS64Lag = std::is_integral_v<Num> || requires(Num x) {
  x.value();
};

template <class Num>
int64_t lag_as_s64(const Num& x) {
  if constexpr (std::is_integral_v<Num>)
    return x;
  else
    return x.value();  // LinuxTime: the s64 reading of a lag
}

/// Any runqueue class with apply/now/curr/nr_queued/need_resched/last_outcome().preempt/
/// entity(id).status/detach/attach/set_observer and a Params constructor. Every operation is
/// reported to the observers added (the trace writer among them), in the order they were added.
template <class Rq>
class CpuRunqueueAdapter final : public CpuRunqueue {
 public:
  using Num = RunqueueNum<Rq>;
  template <class... Options>
  explicit CpuRunqueueAdapter(const Params& params, Options&&... options)
      : rq_(params, std::forward<Options>(options)...) {}

  void apply(const Op& op) override { rq_.apply(op); }
  int64_t now() const override { return rq_.now(); }
  std::optional<EntityId> curr() const override { return rq_.curr(); }
  int64_t nr_queued() const override { return rq_.nr_queued(); }
  bool need_resched() const override { return rq_.need_resched(); }
  bool last_preempt() const override { return rq_.last_outcome().preempt; }
  Status status(EntityId id) const override { return rq_.entity(id).status; }
  int64_t remaining_request(EntityId id) const override {
    if constexpr (requires { rq_.remaining_request(rq_.entity(id)); })
      return rq_.remaining_request(rq_.entity(id));
    else
      throw Error("this runqueue keeps no requests (task " + std::to_string(id) + ")");
  }
  std::optional<Migrant<int64_t>> detach(EntityId id) override {
    if constexpr (kMigrates) {
      const auto m = rq_.detach(id);
      if (!m) return std::nullopt;
      return Migrant<int64_t>{m->se, m->weight, m->slice, m->custom_slice, lag_as_s64(m->vlag)};
    } else {
      throw no_migration(id);
    }
  }
  bool attach(const Migrant<int64_t>& m) override {
    if constexpr (kMigrates)
      return rq_.attach(Migrant<Num>{m.se, m.weight, m.slice, m.custom_slice, Num(m.vlag)});
    else
      throw no_migration(m.se);
  }
  void set_latency_nice(EntityId id, int latency_nice) override {
    if constexpr (requires { rq_.set_latency_nice(id, latency_nice); })
      rq_.set_latency_nice(id, latency_nice);
    else
      throw Error("this runqueue keeps no latency_nice (task " + std::to_string(id) + ")");
  }
  void trace_to(std::ostream& out, const trace::Header& h, trace::TaskNames names) override {
    tracer_ = std::make_unique<trace::TraceObserver<Num>>(out, h, std::move(names));
    add_observer(tracer_.get());
  }
  void report_to(trace::EventSink& sink, int cpu) override {
    sinks_.push_back(std::make_unique<trace::SinkObserver<Num>>(sink, cpu));
    add_observer(sinks_.back().get());
  }

  /// Reports every operation from now on to o as well (o must outlive the runqueue's use). A
  /// runqueue nobody observes builds no events.
  void add_observer(Observer<Num>* o) {
    fan_out_.observers.push_back(o);
    rq_.set_observer(&fan_out_);
  }
  const Rq& runqueue() const { return rq_; }

 private:
  static constexpr bool kMigrates = kExactS64Lag<Num>;

  struct FanOut final : Observer<Num> {
    std::vector<Observer<Num>*> observers;
    void on_step(const StepReport<Num>& e) override {
      for (Observer<Num>* o : observers) o->on_step(e);
    }
  };

  static Error no_migration(EntityId id) {
    return Error("task " + std::to_string(id) +
                 " cannot migrate: the exact runqueue's lag is a rational with no exact s64 "
                 "form; run the exact runqueue on one CPU");
  }

  Rq rq_;
  FanOut fan_out_;
  std::unique_ptr<trace::TraceObserver<Num>> tracer_;
  std::vector<std::unique_ptr<trace::SinkObserver<Num>>> sinks_;
};

}  // namespace vlag::sim
