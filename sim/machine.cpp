#include "sim/machine.h"

#include <filesystem>
#include <fstream>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::sim {

Machine::Machine(MachineConfig config) : config_(std::move(config)), rng_(config_.seed) {
  if (config_.switch_cost_ns < 0) throw Error("context-switch cost must be >= 0");
  if (!config_.trace_dir.empty()) std::filesystem::create_directories(config_.trace_dir);
  for (int c = 0; c < config_.params.ncpus; ++c) {
    auto cpu = std::make_unique<Cpu>(config_.params);
    if (!config_.trace_dir.empty()) {
      const std::string path = config_.trace_dir + "/cpu" + std::to_string(c) + ".jsonl";
      cpu->trace_out = std::make_unique<std::ofstream>(path);
      if (!*cpu->trace_out) throw Error("cannot write " + path);
      trace::Header h;
      h.producer = "vlag sim (optimized runqueue)";
      h.params = config_.params;
      h.cpu = c;
      cpu->tracer =
          std::make_unique<trace::TraceObserver<optimized::Runqueue::Num>>(*cpu->trace_out, h);
      cpu->rq.set_observer(cpu->tracer.get());
    }
    cpus_.push_back(std::move(cpu));
  }
  pending_.assign(cpus_.size(), false);
}

Machine::~Machine() = default;

Task& Machine::add_task(const TaskAttrs& attrs, int c) {
  auto t = std::make_unique<Task>();
  t->attrs = attrs;
  t->id = static_cast<int64_t>(tasks_.size() + 1);
  t->cpu = c % ncpus();
  apply(cpu(t->cpu), {OpKind::Create, t->id, nice_to_weight(attrs.nice), attrs.slice_ns});
  tasks_.push_back(std::move(t));
  return *tasks_.back();
}

void Machine::apply(Cpu& c, const Op& op) {
  c.rq.apply(op);
  ++stats_.operations;
}

// Brings CPU c's runqueue to the machine's time, charging the elapsed time to its running task.
void Machine::sync(int c) {
  Cpu& k = cpu(c);
  const int64_t delta = now_ - k.rq.now();
  if (delta <= 0) return;
  if (const auto curr = k.rq.curr()) {
    Task& t = task(*curr);
    t.runtime_ns += delta;
    t.remaining -= delta;
    k.busy_ns += delta;
  }
  apply(k, {OpKind::Run, 0, delta});
}

bool Machine::wake(Task& t, int64_t burst_ns) {
  if (t.runnable) return false;
  t.runnable = true;
  t.remaining = burst_ns;
  t.woke_at = now_;
  ++t.wakeups;
  // A delayed task (SPEC.md §4.9) is still queued on its CPU and is requeued there, as Linux's
  // ttwu_runnable() does; only a task that fully sleeps is placed.
  if (cpu(t.cpu).rq.entity(t.id).status == Status::Sleeping) {
    std::vector<bool> idle(cpus_.size());
    for (size_t c = 0; c < cpus_.size(); ++c) idle[c] = cpus_[c]->idle();
    const int target = place_wakeup(config_.placement, t.cpu, idle);
    if (target != t.cpu) {
      // The runqueue has no operation that imports an entity, so a migrating task leaves one
      // runqueue (exit) and joins the other as a new entity (create): it arrives with zero lag.
      sync(t.cpu);
      apply(cpu(t.cpu), {OpKind::Exit, t.id});
      sync(target);
      apply(cpu(target), {OpKind::Create, t.id, nice_to_weight(t.attrs.nice), t.attrs.slice_ns});
      t.cpu = target;
      ++t.migrations;
      ++stats_.migrations;
    }
  }
  enqueue_on(t, t.cpu);
  return true;
}

void Machine::enqueue_on(Task& t, int c) {
  sync(c);
  Cpu& k = cpu(c);
  apply(k, {OpKind::Enqueue, t.id});
  if (!k.rq.curr()) {
    pending_[static_cast<size_t>(c)] = true;
  } else if (*k.rq.curr() != t.id) {
    apply(k, {OpKind::WakeupPreempt, t.id});
    if (k.rq.last_outcome().preempt) pending_[static_cast<size_t>(c)] = true;
  }
  arm(c);
}

void Machine::set_timer(Task& t, int64_t at_ns) {
  agenda_.push({.time = at_ns, .type = EventType::Timer, .task = t.id});
}

// Ticks run only while the CPU has work (NOHZ idle), on the multiples of the tick period.
void Machine::arm(int c) {
  Cpu& k = cpu(c);
  if (k.tick_armed || k.idle()) return;
  const int64_t period = config_.params.tick_ns();
  k.tick_armed = true;
  agenda_.push({.time = (now_ / period + 1) * period, .type = EventType::Tick, .cpu = c});
}

void Machine::tick(int c) {
  Cpu& k = cpu(c);
  k.tick_armed = false;
  sync(c);
  if (k.idle()) return;
  apply(k, {OpKind::Tick});
  reschedule(c, false, false);
  arm(c);
}

void Machine::burst_end(int c, uint64_t gen) {
  Cpu& k = cpu(c);
  if (gen != k.burst_gen || !k.rq.curr()) return;  // superseded by a switch or a new burst
  sync(c);
  Task& t = task(*k.rq.curr());
  const int64_t next = workload_->burst_done(*this, t);
  if (next > 0) {
    t.remaining = next;
    reschedule(c, false, true);
    return;
  }
  t.runnable = false;
  apply(k, {OpKind::Dequeue, t.id, 0, 0, kDequeueSleep});
  reschedule(c, true, true);
}

// Picks when the runqueue asks for it (or force), then makes sure the running task's burst end
// is on the agenda. burst_changed: the running task's remaining work was just reset.
void Machine::reschedule(int c, bool force, bool burst_changed) {
  Cpu& k = cpu(c);
  const auto prev = k.rq.curr();
  if ((force || k.rq.need_resched() || !prev) && (prev || k.rq.nr_queued() > 0))
    apply(k, {OpKind::Pick});
  const auto curr = k.rq.curr();
  if (curr != prev && curr) {
    ++k.switches;
    ++stats_.switches;
    Task& t = task(*curr);
    t.remaining += config_.switch_cost_ns;
    if (t.woke_at >= 0) {
      t.latency.add(now_ - t.woke_at);
      t.woke_at = -1;
    }
  }
  if (!curr || (curr == prev && !burst_changed)) return;
  ++k.burst_gen;
  agenda_.push({.time = now_ + task(*curr).remaining,
                .type = EventType::BurstEnd,
                .cpu = c,
                .gen = k.burst_gen});
}

void Machine::flush_pending() {
  for (size_t c = 0; c < pending_.size(); ++c) {
    if (!pending_[c]) continue;
    pending_[c] = false;
    reschedule(static_cast<int>(c), true, false);
  }
}

MachineStats Machine::run(Workload& w, int64_t limit_ns) {
  if (limit_ns <= 0) throw Error("the simulated time must be positive");
  workload_ = &w;
  w.start(*this);
  flush_pending();
  while (!stopped_ && !agenda_.empty() && agenda_.top().time < limit_ns) {
    const SimEvent e = agenda_.pop();
    now_ = e.time;
    ++stats_.events;
    switch (e.type) {
      case EventType::Tick:
        tick(e.cpu);
        break;
      case EventType::BurstEnd:
        burst_end(e.cpu, e.gen);
        break;
      case EventType::Timer:
        w.timer(*this, task(e.task));
        break;
    }
    flush_pending();
  }
  if (!stopped_) now_ = limit_ns;
  for (int c = 0; c < ncpus(); ++c) sync(c);
  stats_.end_ns = now_;
  stats_.busy_ns.clear();
  for (const auto& k : cpus_) {
    stats_.busy_ns.push_back(k->busy_ns);
    if (k->trace_out) k->trace_out->flush();
  }
  return stats_;
}

}  // namespace vlag::sim
