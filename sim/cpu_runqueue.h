// The per-CPU runqueue as the machine sees it: a small virtual interface, so that one machine
// runs EEVDF (optimized::Runqueue) or any other scheduling class with the same duck-typed API
// (vlag::sim::cfs::Runqueue plugs in through the same adapter). The machine never looks at
// virtual times: it applies SPEC.md operations, reads who runs, and moves tasks between CPUs as
// Migrants whose saved lag is an integer count of virtual ns (Linux's s64 se->vlag).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

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
  virtual std::optional<TaskId> curr() const = 0;
  virtual int64_t nr_queued() const = 0;
  virtual bool need_resched() const = 0;
  /// The decision of the last WakeupPreempt applied.
  virtual bool last_preempt() const = 0;
  virtual Status status(TaskId id) const = 0;
  virtual std::optional<Migrant<int64_t>> detach(TaskId id) = 0;
  virtual bool attach(const Migrant<int64_t>& m) = 0;
  /// Sets a task's latency_nice on a runqueue that keeps one (cfs-latency-nice); throws
  /// vlag::Error on one that does not (EEVDF turns latency_nice into a slice at creation).
  virtual void set_latency_nice(TaskId id, int latency_nice) = 0;
  /// Writes every operation from now on to out as a trace (spec/TRACE.md) under header h.
  virtual void trace_to(std::ostream& out, const trace::Header& h) = 0;
};

/// The virtual-time type of a runqueue class: that of the saved lag its migrants carry.
template <class Rq>
using RunqueueNum = std::remove_cvref_t<decltype(std::declval<Rq&>().detach(TaskId{})->vlag)>;

/// Any runqueue class with apply/now/curr/nr_queued/need_resched/last_outcome().preempt/
/// entity(id).status/detach/attach/set_observer and a Params constructor.
template <class Rq>
class CpuRunqueueAdapter final : public CpuRunqueue {
 public:
  using Num = RunqueueNum<Rq>;
  template <class... Options>
  explicit CpuRunqueueAdapter(const Params& params, Options&&... options)
      : rq_(params, std::forward<Options>(options)...) {}

  void apply(const Op& op) override { rq_.apply(op); }
  int64_t now() const override { return rq_.now(); }
  std::optional<TaskId> curr() const override { return rq_.curr(); }
  int64_t nr_queued() const override { return rq_.nr_queued(); }
  bool need_resched() const override { return rq_.need_resched(); }
  bool last_preempt() const override { return rq_.last_outcome().preempt; }
  Status status(TaskId id) const override { return rq_.entity(id).status; }
  std::optional<Migrant<int64_t>> detach(TaskId id) override {
    const auto m = rq_.detach(id);
    if (!m) return std::nullopt;
    return Migrant<int64_t>{m->id, m->weight, m->slice, m->custom_slice, to_int(m->vlag)};
  }
  bool attach(const Migrant<int64_t>& m) override {
    return rq_.attach(Migrant<Num>{m.id, m.weight, m.slice, m.custom_slice, Num(m.vlag)});
  }
  void set_latency_nice(TaskId id, int latency_nice) override {
    if constexpr (requires { rq_.set_latency_nice(id, latency_nice); })
      rq_.set_latency_nice(id, latency_nice);
    else
      throw Error("this runqueue keeps no latency_nice (task " + std::to_string(id) + ")");
  }
  void trace_to(std::ostream& out, const trace::Header& h) override {
    tracer_ = std::make_unique<trace::TraceObserver<Num>>(out, h);
    rq_.set_observer(tracer_.get());
  }

  const Rq& runqueue() const { return rq_; }

 private:
  static int64_t to_int(const Num& x) {
    if constexpr (std::is_integral_v<Num>)
      return x;
    else
      return x.value();  // LinuxTime: the s64 reading of a lag
  }

  Rq rq_;
  std::unique_ptr<trace::TraceObserver<Num>> tracer_;
};

}  // namespace vlag::sim
