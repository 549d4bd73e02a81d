// A CPU's runqueue as a hierarchy of task groups behind the machine's CpuRunqueue interface:
// the machine applies task operations and this adapter turns each into the operations of every
// level. The hierarchy is the EEVDF one (SPEC.md §10, reference::BasicHierarchy<Rq>) or v6.5's
// CFS one (SPEC.md §8.6, cfs::Hierarchy); both keep a runqueue per group and report alike. Its
// traces hold the root runqueue and one runqueue per group (spec/TRACE.md §7): a `runqueue` line
// before a group's first event, its group entity's events naming `se`, and `put` where a level
// stops running.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "reference/hierarchy.h"
#include "sim/cpu_runqueue.h"
#include "spec/arith.h"
#include "trace/hierarchy_writer.h"

namespace vlag::sim {

/// The group of each task, as the machine decided it when the task was created.
using TaskGroupOf = std::function<reference::GroupId(TaskId)>;

/// H: reference::BasicHierarchy<Rq> or cfs::Hierarchy; `options` follow (params, groups, cpu)
/// into its constructor.
template <class H>
class GroupRunqueue final : public CpuRunqueue {
 public:
  using Num = typename H::Num;
  template <class... Options>
  GroupRunqueue(const Params& params, reference::TaskGroups& groups, int cpu, TaskGroupOf group_of,
                Options&&... options)
      : h_(params, groups, cpu, std::forward<Options>(options)...),
        groups_(groups),
        group_of_(std::move(group_of)) {
    h_.set_observer(&fan_out_);
  }

  void apply(const Op& op) override {
    const reference::GroupId g = op.kind == OpKind::Create ? group_of_(op.se) : 0;
    h_.apply(op, g);
  }
  int64_t now() const override { return h_.now(); }
  std::optional<EntityId> curr() const override { return h_.curr(); }
  int64_t nr_queued() const override { return h_.nr_queued(); }
  bool need_resched() const override { return h_.need_resched(); }
  bool last_preempt() const override { return h_.last_outcome().preempt; }
  Status status(EntityId id) const override { return h_.status(id); }
  int64_t remaining_request(EntityId id) const override {
    const auto& rq = h_.runqueue(h_.group_of(id));
    if constexpr (requires { rq.remaining_request(rq.entity(id)); })
      return rq.remaining_request(rq.entity(id));
    else
      throw Error("this runqueue keeps no requests (task " + std::to_string(id) + ")");
  }
  std::optional<Migrant<int64_t>> detach(EntityId id) override {
    if constexpr (kMigrates) {
      const auto m = h_.detach(id);
      if (!m) return std::nullopt;
      return Migrant<int64_t>{m->se, m->weight, m->slice, m->custom_slice, lag_as_s64(m->vlag)};
    } else {
      throw Error("task " + std::to_string(id) +
                  " cannot migrate: the exact runqueue's lag has no exact s64 form");
    }
  }
  bool attach(const Migrant<int64_t>& m) override {
    if constexpr (kMigrates)
      return h_.attach(Migrant<Num>{m.se, m.weight, m.slice, m.custom_slice, Num(m.vlag)},
                       group_of_(m.se));
    else
      throw Error("task " + std::to_string(m.se) + " cannot migrate in the exact arithmetic");
  }
  int64_t load() const override { return weight_of(h_.runqueue(reference::kRootGroup)); }
  // SPEC.md §10.6: the root's h_load is its W; a group runqueue's is its parent's scaled by the
  // group entity's weight over the parent's W + 1, and a task's is its weight scaled likewise
  // over its own runqueue's W + 1 (the kernel's +1 keeps the division defined).
  int64_t task_h_load(EntityId id) const override {
    const reference::GroupId g = h_.group_of(id);
    const std::vector<reference::GroupId> up = groups_.ancestors(g);
    int64_t h = load();
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
      const auto& parent = h_.runqueue(groups_.group(*it).parent);
      h = h * parent.entity(reference::group_entity_id(*it)).weight / (weight_of(parent) + 1);
    }
    const auto& own = h_.runqueue(g);
    return own.entity(id).weight * h / (weight_of(own) + 1);
  }
  void set_latency_nice(EntityId id, int latency_nice) override {
    if constexpr (requires { h_.set_latency_nice(id, latency_nice); })
      h_.set_latency_nice(id, latency_nice);
    else
      throw Error("this runqueue keeps no latency_nice (task " + std::to_string(id) + ")");
  }
  void trace_to(std::ostream& out, const trace::Header& h, trace::TaskNames names) override {
    trace::Header header = h;
    header.arith = kMigrates ? Arith::Linux64 : Arith::Exact;  // integers: Linux's 64 bits
    writers_.push_back(std::make_unique<Writer>(out, header, std::move(names), group_path()));
    fan_out_.to.push_back(writers_.back().get());
  }
  void report_to(trace::EventSink& sink, int cpu) override {
    sinks_.push_back(std::make_unique<Sink>(sink, cpu, group_path()));
    fan_out_.to.push_back(sinks_.back().get());
  }

  const H& hierarchy() const { return h_; }

 private:
  static constexpr bool kMigrates = kExactS64Lag<Num>;

  // W of one level: the EEVDF runqueues' total_weight, the CFS one's load.
  template <class Rq>
  static int64_t weight_of(const Rq& rq) {
    if constexpr (requires { rq.total_weight(); })
      return rq.total_weight();
    else
      return rq.load();
  }

  using Writer = trace::HierarchyWriter<Num, reference::HierarchyObserver<Num>>;

  // A group entity's `new` names its group.
  trace::GroupPath group_path() const {
    return [&groups = groups_](EntityId se) -> std::optional<std::string> {
      if (!reference::is_group_entity(se)) return std::nullopt;
      return groups.group(reference::group_of_entity(se)).path;
    };
  }

  struct Sink final : reference::HierarchyObserver<Num> {
    Sink(trace::EventSink& s, int c, trace::GroupPath p) : sink(s), cpu(c), path(std::move(p)) {}
    void on_runqueue(const reference::RunqueueDeclaration& d) override {
      trace::Event e = trace::declaration_event(d);
      e.cpu = cpu;
      sink.on_event(e);
    }
    void on_step(const StepReport<Num>& r) override {
      trace::Event e = trace::hierarchy_step_event(r, {}, path);
      e.cpu = cpu;
      sink.on_event(e);
    }
    trace::EventSink& sink;
    int cpu;
    trace::GroupPath path;
  };

  struct FanOut final : reference::HierarchyObserver<Num> {
    std::vector<reference::HierarchyObserver<Num>*> to;
    void on_runqueue(const reference::RunqueueDeclaration& d) override {
      for (auto* o : to) o->on_runqueue(d);
    }
    void on_step(const StepReport<Num>& r) override {
      for (auto* o : to) o->on_step(r);
    }
  };

  H h_;
  reference::TaskGroups& groups_;
  TaskGroupOf group_of_;
  FanOut fan_out_;
  std::vector<std::unique_ptr<Writer>> writers_;
  std::vector<std::unique_ptr<Sink>> sinks_;
};

}  // namespace vlag::sim
