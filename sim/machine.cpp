#include "sim/machine.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "spec/cfs_policy.h"
#include "spec/directory.h"
#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::sim {

Machine::Machine(MachineConfig config) : config_(std::move(config)), rng_(config_.seed) {
  if (config_.switch_cost_ns < 0) throw Error("context-switch cost must be >= 0");
  if (config_.wake_timer_cost_ns < 0 || config_.wake_task_cost_ns < 0 ||
      config_.wake_idle_cost_ns < 0 || config_.tick_cost_ns < 0)
    throw Error("wakeup and tick costs must be >= 0");
  if (!(config_.jitter >= 0 && config_.jitter <= 0.5)) throw Error("jitter must be in 0..0.5");
  if (config_.balance_interval_ticks < 1)
    throw Error("the balance interval must be at least one tick");
  if (!config_.trace_dir.empty()) make_directory(config_.trace_dir, "--trace-dir");
  if (!config_.cgroups.empty() || config_.autogroup) {
    groups_ = std::make_unique<reference::TaskGroups>(config_.params.ncpus);
    cgroup_placement_ = std::make_unique<CgroupPlacement>(config_.cgroups, config_.autogroup);
  }
  for (int c = 0; c < config_.params.ncpus; ++c) {
    auto cpu = std::make_unique<Cpu>(
        groups_ ? make_group_cpu_runqueue(
                      config_.policy, config_.arith, config_.params, *groups_, c,
                      [this](TaskId id) { return task_group_.at(static_cast<size_t>(id - 1)); },
                      [this](reference::GroupId g) {
                        return cgroup_placement_->latency_nice(g, *groups_);
                      })
                : make_cpu_runqueue(config_.policy, config_.arith, config_.params));
    if (!config_.trace_dir.empty()) {
      const std::string path = config_.trace_dir + "/cpu" + std::to_string(c) + ".jsonl";
      cpu->trace_out = std::make_unique<std::ofstream>(path);
      if (!*cpu->trace_out) throw Error("cannot write " + path);
      trace::Header h;
      h.producer = "vlag sim (" + std::string(policy_name(config_.policy)) + ")";
      h.params = config_.params;
      if (is_cfs(config_.policy)) h.params.preset = cfs_preset(policy_name(config_.policy));
      h.cpu = c;
      cpu->rq->trace_to(*cpu->trace_out, h, [this](TaskId id) { return task(id).attrs.name; });
    }
    cpus_.push_back(std::move(cpu));
  }
  pending_.assign(cpus_.size(), false);
  balance_failed_.assign(cpus_.size(), 0);
  quanta_ = config_.params.preset.rejoin_strategy != 0 && !is_cfs(config_.policy);
  quantum_gen_.assign(cpus_.size(), 0);
}

Machine::~Machine() = default;

void Machine::report_to(trace::EventSink& sink) {
  for (int c = 0; c < ncpus(); ++c) rq(c).report_to(sink, c);
}

Task& Machine::add_task(const TaskAttrs& attrs, int c) {
  auto t = std::make_unique<Task>();
  t->attrs = attrs;
  if (attrs.timer_slack_ns < 0) throw Error("task " + attrs.name + ": timer slack must be >= 0");
  t->id = static_cast<int64_t>(tasks_.size() + 1);
  t->cpu = c % ncpus();
  if (groups_) {
    const int64_t g = cgroup_placement_->place(attrs.workload, *groups_);
    task_group_.push_back(g);
    if (const auto ln = cgroup_placement_->latency_nice(g, *groups_); ln && attrs.latency_nice == 0)
      t->attrs.latency_nice = *ln;
  }
  tasks_.push_back(std::move(t));  // known before its creation is traced, with its name
  Task& added = *tasks_.back();
  const TaskAttrs& a = added.attrs;
  try {
    apply(cpu(added.cpu), {OpKind::Create, added.id, nice_to_weight(a.nice),
                           creation_slice(config_.policy, a, config_.params)});
  } catch (...) {
    tasks_.pop_back();
    if (groups_) task_group_.pop_back();
    throw;
  }
  if (runqueue_takes_latency_nice(config_.policy, a))
    cpu(added.cpu).rq->set_latency_nice(added.id, a.latency_nice);
  return added;
}

std::string Machine::group_path(const Task& t) const {
  if (!groups_) return "/";
  return groups_->group(task_group_.at(static_cast<size_t>(t.id - 1))).path;
}

void Machine::apply(Cpu& c, const Op& op) {
  c.rq->apply(op);
  ++stats_.operations;
}

// Brings CPU c's runqueue to the machine's time, charging the elapsed time to its running task.
void Machine::sync(int c) {
  Cpu& k = cpu(c);
  const int64_t delta = now_ - k.rq->now();
  if (delta <= 0) return;
  if (const auto curr = k.rq->curr()) {
    Task& t = task(*curr);
    t.runtime_ns += delta;
    t.remaining -= delta;
    k.busy_ns += delta;
  }
  apply(k, {OpKind::Run, 0, delta});
}

std::vector<int64_t> Machine::nr_running() const {
  std::vector<int64_t> n(cpus_.size());
  for (const auto& t : tasks_)
    if (t->runnable) ++n[static_cast<size_t>(t->cpu)];
  return n;
}

bool Machine::is_short(const Task& t) const {
  return is_short_task(t.dur_avg_ns, config_.params.base_slice_ns());
}

std::vector<CpuLoad> Machine::loads() const {
  const std::vector<int64_t> n = nr_running();
  std::vector<CpuLoad> l(cpus_.size());
  for (size_t c = 0; c < cpus_.size(); ++c) {
    const CpuRunqueue& q = *cpus_[c]->rq;
    l[c].idle = !q.curr() && q.nr_queued() == 0;
    l[c].short_alone =
        q.curr() && n[c] == 1 && is_short(*tasks_[static_cast<size_t>(*q.curr() - 1)]);
  }
  return l;
}

// SPEC.md §4.13: the sleeping task leaves its runqueue with its saved lag and joins `to` as a
// known entity; its next enqueue there places it with that lag (Linux keeps se->vlag across
// set_task_cpu()).
void Machine::migrate(Task& t, int to) {
  sync(t.cpu);
  const auto m = rq(t.cpu).detach(t.id);
  if (!m)
    throw Error("migrate: task " + std::to_string(t.id) + " cannot leave CPU " +
                std::to_string(t.cpu) + " (it is not a sleeping entity there)");
  sync(to);
  if (!rq(to).attach(*m))
    throw Error("migrate: task " + std::to_string(t.id) + " is on CPU " + std::to_string(to) +
                " already");
  // A task's latency_nice is a task attribute, not runqueue state: it travels with the task.
  if (runqueue_takes_latency_nice(config_.policy, t.attrs))
    rq(to).set_latency_nice(t.id, t.attrs.latency_nice);
  stats_.operations += 2;
  t.cpu = to;
  ++t.migrations;
  ++stats_.migrations;
}

// Real CPU work of the same request varies from run to run (caches, frequency); the model's bursts
// are exact unless jitter > 0, when each is scaled by a factor drawn uniformly from
// [1 - jitter, 1 + jitter] with the seeded generator. Endless bursts (hogs) stay endless.
int64_t Machine::jittered(int64_t burst_ns) {
  if (config_.jitter <= 0 || burst_ns >= kForever) return burst_ns;
  std::uniform_real_distribution<double> factor(1 - config_.jitter, 1 + config_.jitter);
  return std::max<int64_t>(1, std::llround(static_cast<double>(burst_ns) * factor(rng_)));
}

bool Machine::wake(Task& t, int64_t burst_ns) { return wake_task(t, burst_ns, false); }

bool Machine::fork(Task& t, int64_t burst_ns) { return wake_task(t, burst_ns, true); }

bool Machine::wake_task(Task& t, int64_t burst_ns, bool forked) {
  if (t.runnable) return false;
  t.runnable = true;
  t.remaining = jittered(burst_ns);
  t.wall_end_ns = -1;  // a wall-clock burst starts at its first run
  t.woke_at = now_;
  ++t.wakeups;
  // A delayed task (SPEC.md §4.9) is still queued on its CPU and is requeued there, as Linux's
  // ttwu_runnable() does; only a task that fully sleeps is placed.
  if (config_.placement != Placement::Prev && rq(t.cpu).status(t.id) == Status::Sleeping) {
    WakeupSite site;
    site.prev = t.cpu;
    site.waker_cpu = waker_cpu_;
    const int target = place_wakeup(config_.placement, site, loads());
    if (target != t.cpu) migrate(t, target);
  }
  if (waker_cpu_ >= 0) {
    ++stats_.wakeups;
    if (t.cpu != waker_cpu_) ++stats_.cross_cpu_wakeups;
  }
  enqueue_on(t, t.cpu, !forked);
  return true;
}

void Machine::extend(Task& t, int64_t extra_ns) {
  if (!t.runnable) throw Error("extend: task " + std::to_string(t.id) + " is not runnable");
  const int c = t.cpu;
  sync(c);
  t.remaining += extra_ns;
  if (t.wall_end_ns >= 0) t.wall_end_ns += extra_ns;
  if (rq(c).curr() == t.id) {
    reschedule(c, false, true);  // its burst end moves
    return;
  }
  check_preempt(t, c);
}

void Machine::renice(Task& t, int nice) {
  const int c = t.cpu;
  sync(c);
  const int old = t.attrs.nice;
  t.attrs.nice = nice;
  apply(cpu(c), {OpKind::Reweight, t.id, nice_to_weight(nice)});
  if (rq(c).nr_queued() <= 1 || !t.runnable) return;
  if (rq(c).curr() == t.id) {
    if (nice > old) request_switch(c, config_.wake_task_cost_ns);
  } else if (rq(c).status(t.id) == Status::Queued) {
    check_preempt(t, c);
  }
}

void Machine::enqueue_on(Task& t, int c, bool check) {
  sync(c);
  t.listed = ++list_seq_;
  apply(cpu(c), {OpKind::Enqueue, t.id});
  check_preempt(t, c, check);
  arm(c);
  arm_hrtick(c);  // Linux's hrtick_update() at enqueue: a second task gives curr a slice end
}

// After t became runnable on CPU c: the wakeup-preemption check, if another task runs, the
// policy allows it and the wakeup is no fork's (SPEC.md §9.7). CPU c re-picks, after the wakeup's
// cost (SPEC.md §9.3), if it idles, if the check says preempt, or if the runqueue asks anyway (the
// time just charged to curr may have ended its request, as Linux's update_curr() at enqueue can).
void Machine::check_preempt(Task& t, int c, bool check) {
  Cpu& k = cpu(c);
  bool preempt = false;
  if (check && k.rq->curr() && *k.rq->curr() != t.id &&
      may_wakeup_preempt(config_.policy, t.attrs, task(*k.rq->curr()).attrs)) {
    apply(k, {OpKind::WakeupPreempt, t.id});
    preempt = k.rq->last_preempt();
  }
  if (!k.rq->curr())
    request_switch(c, config_.wake_idle_cost_ns);
  else if (preempt || k.rq->need_resched())
    request_switch(c, waker_cpu_ >= 0 ? config_.wake_task_cost_ns : config_.wake_timer_cost_ns);
}

// A switch CPU c makes once the current event is handled, or cost_ns later; a pick before then
// (a tick, a burst end) makes the delayed one stale, as the kernel's schedule() clears
// need_resched whoever set it.
void Machine::request_switch(int c, int64_t cost_ns) {
  Cpu& k = cpu(c);
  if (cost_ns == 0) {
    pending_[static_cast<size_t>(c)] = true;
    return;
  }
  if (k.resched_armed) return;  // the earlier request switches first
  k.resched_armed = true;
  agenda_.push(
      {.time = now_ + cost_ns, .type = EventType::Resched, .cpu = c, .gen = k.resched_gen});
}

void Machine::on_resched(int c, uint64_t gen) {
  Cpu& k = cpu(c);
  if (gen != k.resched_gen || !k.resched_armed) return;
  k.resched_armed = false;
  sync(c);
  reschedule(c, true, false);
}

// ---------------------------------------------------------------------------------------------
// Load balancing, reduced from Linux's load_balance(): one flat domain, imbalance in runnable
// tasks, no cache-hot, affinity, capacity or NUMA checks, no migration cost. A task moves only
// while queued and not running (Linux's detach_tasks() skips the running task too).

// A queued, not running task of CPU c that can move: the first in creation order.
Task* Machine::pullable(int c) {
  const auto curr = rq(c).curr();
  for (const auto& t : tasks_)
    if (t->cpu == c && t->runnable && curr != t->id && rq(c).status(t->id) == Status::Queued)
      return t.get();
  return nullptr;
}

// dequeue (not a sleep: the lag is saved, SPEC.md §4.7) → detach → attach → enqueue.
void Machine::move_queued(Task& t, int to) {
  sync(t.cpu);
  apply(cpu(t.cpu), {OpKind::Dequeue, t.id});
  migrate(t, to);
  ++stats_.balance_migrations;
  enqueue_on(t, to);
}

// Linux's newidle balance: a CPU about to idle pulls one queued task from the busiest CPU.
bool Machine::newidle_balance(int c) {
  if (groups_) return balance_by_load(c, BalanceIdle::NewlyIdle);
  const std::vector<int64_t> n = nr_running();
  int busiest = -1;
  int64_t most = 1;  // a CPU running one task has nothing queued to give
  for (int k = 0; k < ncpus(); ++k)
    if (k != c && n[static_cast<size_t>(k)] > most) {
      busiest = k;
      most = n[static_cast<size_t>(k)];
    }
  if (busiest < 0) return false;
  Task* t = pullable(busiest);
  if (!t) return false;
  move_queued(*t, c);
  return true;
}

void Machine::periodic_balance() {
  if (groups_) {
    for (int c = 0; c < ncpus(); ++c)
      balance_by_load(c, cpu(c).idle() ? BalanceIdle::Idle : BalanceIdle::NotIdle);
    return;
  }
  for (;;) {
    int busiest = 0, least = 0;
    const std::vector<int64_t> n = nr_running();
    for (int k = 0; k < ncpus(); ++k) {
      if (n[static_cast<size_t>(k)] > n[static_cast<size_t>(busiest)]) busiest = k;
      if (n[static_cast<size_t>(k)] < n[static_cast<size_t>(least)]) least = k;
    }
    if (n[static_cast<size_t>(busiest)] - n[static_cast<size_t>(least)] <= 1) return;
    Task* t = pullable(busiest);
    if (!t) return;
    move_queued(*t, least);
  }
}

// The queued, not running tasks of CPU c, least recently enqueued or switched in first: the end
// of the kernel's cfs_tasks list, where detach_tasks() starts.
std::vector<Task*> Machine::detach_candidates(int c) {
  std::vector<Task*> out;
  const auto curr = rq(c).curr();
  for (const auto& t : tasks_)
    if (t->cpu == c && t->runnable && curr != t->id && rq(c).status(t->id) == Status::Queued)
      out.push_back(t.get());
  std::sort(out.begin(), out.end(),
            [](const Task* a, const Task* b) { return a->listed < b->listed; });
  return out;
}

// SPEC.md §10.6, with task groups: CPU c pulls towards itself by hierarchical load, as Linux's
// sched_balance_rq() on one domain of single-CPU groups. The loads are read before the first
// move (the kernel's h_load is cached for the pass). A pass that finds an imbalance and moves
// nothing counts as failed; after kCacheNiceTries + 3 in a row, one queued task moves whatever
// its load (the kernel's active balance stops the busiest CPU's running task for it).
bool Machine::balance_by_load(int c, BalanceIdle idle) {
  const std::vector<int64_t> n = nr_running();
  std::vector<BalanceCpu> view(cpus_.size());
  for (int k = 0; k < ncpus(); ++k)
    view[static_cast<size_t>(k)] = {n[static_cast<size_t>(k)], rq(k).load()};
  const Imbalance imb = find_imbalance(c, view, idle);
  int& failed = balance_failed_[static_cast<size_t>(c)];
  if (imb.busiest < 0) {
    failed = 0;  // out_balanced
    return false;
  }
  const std::vector<Task*> candidates = detach_candidates(imb.busiest);
  std::vector<int64_t> h_load;
  for (const Task* t : candidates) h_load.push_back(rq(imb.busiest).task_h_load(t->id));
  DetachChoice choice(imb, failed, idle, n[static_cast<size_t>(imb.busiest)]);
  int moved = 0;
  for (size_t i = 0; i < candidates.size() && !choice.done(); ++i)
    if (choice.takes(h_load[i])) {
      move_queued(*candidates[i], c);
      ++moved;
    }
  if (moved > 0) {
    failed = 0;
    return true;
  }
  if (idle == BalanceIdle::NewlyIdle) return false;
  // The count goes on: 6.6 to 6.18 do not reset it when they kick an active balance, whose
  // move is not the failed balance's.
  if (needs_forced_move(++failed) && !candidates.empty()) {
    move_queued(*candidates.front(), c);
    return true;
  }
  return false;
}

// SPEC.md §9.2: a workload timer is an hrtimer with a soft expiry (asked) and a hard one (plus
// the slack). The interrupt of the hard expiry runs every timer of the CPU whose soft expiry has
// passed, and so does every other hrtimer interrupt there (ticks, HRTICK), as Linux's
// __hrtimer_run_queues() does.
void Machine::set_timer(Task& t, int64_t at_ns) {
  Cpu& k = cpu(t.cpu);
  const uint64_t id = ++timer_seq_;
  k.timers.push_back({at_ns, t.id, id});
  agenda_.push({.time = at_ns + t.attrs.timer_slack_ns,
                .type = EventType::Timer,
                .cpu = t.cpu,
                .task = t.id,
                .gen = id});
}

void Machine::on_timer(const SimEvent& e) {
  const auto& timers = cpu(e.cpu).timers;
  if (std::none_of(timers.begin(), timers.end(),
                   [&](const PendingTimer& p) { return p.id == e.gen; }))
    return;  // an earlier interrupt ran it
  fire_timers(e.cpu);
}

// Runs every timer of CPU c whose soft expiry has passed, in the order of their hard expiries.
void Machine::fire_timers(int c) {
  std::vector<PendingTimer> due;
  auto& timers = cpu(c).timers;
  for (auto it = timers.begin(); it != timers.end();) {
    if (it->soft_ns <= now_) {
      due.push_back(*it);
      it = timers.erase(it);
    } else {
      ++it;
    }
  }
  const auto hard = [&](const PendingTimer& p) {
    return p.soft_ns + task(p.task).attrs.timer_slack_ns;
  };
  std::sort(due.begin(), due.end(), [&](const PendingTimer& a, const PendingTimer& b) {
    return hard(a) != hard(b) ? hard(a) < hard(b) : a.id < b.id;
  });
  for (const PendingTimer& p : due) {
    Task& t = task(p.task);
    t.timer_late_ns = now_ - p.soft_ns;
    workload_->timer(*this, t);
  }
}

// SPEC.md §9.4, HRTICK (Linux's hrtick_start_fair()): with more than one task queued, a timer
// ends the running task's slice when it has run `slice` since it was switched in, instead of the
// next tick. A task picked again after its slice has run is left to the tick.
int64_t Machine::slice_of(const Task& t) const {
  const int64_t s = creation_slice(config_.policy, t.attrs, config_.params);
  return s != 0 ? s : config_.params.base_slice_ns();
}

void Machine::arm_hrtick(int c) {
  if (!config_.params.preset.has(Feature::HRTICK) || quanta_ || is_cfs(config_.policy)) return;
  Cpu& k = cpu(c);
  const uint64_t gen = ++k.hrtick_gen;
  const auto curr = k.rq->curr();
  if (!curr || k.rq->nr_queued() <= 1) return;
  const Task& t = task(*curr);
  const int64_t left = slice_of(t) - (t.runtime_ns - k.curr_since_ns);
  if (left <= 0) return;
  agenda_.push({.time = now_ + left, .type = EventType::HrTick, .cpu = c, .gen = gen});
}

// The HRTICK timer: entity_tick with queued = 1, which reschedules whatever update_curr() says.
void Machine::on_hrtick(int c, uint64_t gen) {
  Cpu& k = cpu(c);
  if (gen != k.hrtick_gen) return;
  sync(c);
  if (k.idle()) return;
  apply(k, {OpKind::Tick});
  fire_timers(c);
  reschedule(c, true, false);
}

// Ticks run only while the CPU has work (NOHZ idle), on the multiples of the tick period. Under
// quanta the decisions come at quantum ends instead (arm_quantum).
void Machine::arm(int c) {
  Cpu& k = cpu(c);
  if (quanta_ || k.tick_armed || k.idle()) return;
  const int64_t period = config_.params.tick_ns();
  k.tick_armed = true;
  agenda_.push({.time = (now_ / period + 1) * period, .type = EventType::Tick, .cpu = c});
}

// The paper's quantum: the running client keeps the CPU for min(TICK, its remaining request),
// at least 1 ns, decided when it is picked.
int64_t Machine::quantum(int c) const {
  const CpuRunqueue& q = *cpus_[static_cast<size_t>(c)]->rq;
  return std::clamp<int64_t>(q.remaining_request(*q.curr()), 1, config_.params.tick_ns());
}

void Machine::arm_quantum(int c) {
  const uint64_t gen = ++quantum_gen_[static_cast<size_t>(c)];
  if (!rq(c).curr()) return;  // an idle CPU waits for a wakeup
  agenda_.push({.time = now_ + quantum(c), .type = EventType::Tick, .cpu = c, .gen = gen});
}

void Machine::tick(int c, uint64_t gen) {
  Cpu& k = cpu(c);
  if (quanta_) {  // a quantum end: tick, then decide again whatever the runqueue says
    if (gen != quantum_gen_[static_cast<size_t>(c)]) return;
    sync(c);
    apply(k, {OpKind::Tick});
    reschedule(c, true, false);
    return;
  }
  k.tick_armed = false;
  sync(c);
  if (k.idle()) return;
  apply(k, {OpKind::Tick});
  fire_timers(c);  // the tick is an hrtimer interrupt: due timers run in it, before schedule()
  if (config_.tick_cost_ns == 0)
    reschedule(c, false, false);
  else if (k.rq->need_resched())
    request_switch(c, config_.tick_cost_ns);
  arm(c);
  // The periodic balance runs at every balance_interval_ticks-th tick instant that some CPU
  // ticks at (an all-idle machine has nothing to balance).
  const int64_t period = config_.params.tick_ns();
  if (config_.balance && last_balance_ns_ != now_ &&
      (now_ / period) % config_.balance_interval_ticks == 0) {
    last_balance_ns_ = now_;
    periodic_balance();
  }
}

void Machine::burst_end(int c, uint64_t gen) {
  Cpu& k = cpu(c);
  if (gen != k.burst_gen || !k.rq->curr()) return;  // superseded by a switch or a new burst
  sync(c);
  Task& t = task(*k.rq->curr());
  waker_cpu_ = c;  // the wakeups the workload makes now are this task's
  const int64_t next = workload_->burst_done(*this, t);
  waker_cpu_ = -1;
  if (next > 0) {
    t.remaining = jittered(next);
    t.wall_end_ns = t.wall_work ? now_ + t.remaining : -1;
    reschedule(c, false, true);
    return;
  }
  t.runnable = false;
  t.wall_end_ns = -1;
  t.dur_avg_ns += (t.runtime_ns - t.runtime_at_sleep_ns - t.dur_avg_ns) / 8;
  t.runtime_at_sleep_ns = t.runtime_ns;
  apply(k, {OpKind::Dequeue, t.id, 0, 0, kDequeueSleep});
  reschedule(c, true, true);
}

// Picks when the runqueue asks for it (or force), then makes sure the running task's burst end
// is on the agenda. burst_changed: the running task's remaining work was just reset.
void Machine::reschedule(int c, bool force, bool burst_changed) {
  Cpu& k = cpu(c);
  const auto prev = k.rq->curr();
  bool picked = false;
  if ((force || k.rq->need_resched() || !prev) && (prev || k.rq->nr_queued() > 0)) {
    apply(k, {OpKind::Pick});
    picked = true;
  }
  if (!k.rq->curr() && config_.balance && newidle_balance(c)) {
    pending_[static_cast<size_t>(c)] = false;
    apply(k, {OpKind::Pick});
    picked = true;
  }
  if (picked) {  // whatever asked for this switch has it
    ++k.resched_gen;
    k.resched_armed = false;
  }
  if (quanta_ && (picked || !k.rq->curr())) arm_quantum(c);
  const auto curr = k.rq->curr();
  if (curr != prev && curr) {
    ++k.switches;
    ++stats_.switches;
    Task& t = task(*curr);
    ++t.switches;
    t.listed = ++list_seq_;
    k.curr_since_ns = t.runtime_ns;
    if (t.wall_work) {  // a wall-clock burst ends when its time is up, run or not
      if (t.wall_end_ns < 0) t.wall_end_ns = now_ + t.remaining;
      t.remaining = std::max<int64_t>(0, t.wall_end_ns - now_);
    } else {
      t.remaining += config_.switch_cost_ns;
    }
    if (t.woke_at >= 0) {
      t.latency.add(now_ - t.woke_at);
      t.woke_at = -1;
    }
  }
  if (picked) arm_hrtick(c);
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

// The progress guard of the event loop: every kProgressWindow events, simulated time must have
// moved on by at least kMinNsPerEvent per event and CPU on average. No workload comes near it
// (the busiest, hackbench's 2 µs messages, averages a few hundred ns per event), and a window
// takes well under a second of wall time even on the exact runqueue with the demo's checks; a
// runqueue that never consumes its requests, so that the paper's quanta shrink to 1 ns, or a loop
// of events at one instant, stops with an error instead of running for hours.
constexpr int64_t kProgressWindow = int64_t{1} << 16;
constexpr int64_t kMinNsPerEvent = 10;

void Machine::check_progress(int64_t& window_start_ns) {
  if (stats_.events % kProgressWindow != 0) return;
  const int64_t advanced = now_ - window_start_ns;
  if (advanced * ncpus() < kProgressWindow * kMinNsPerEvent)
    throw Error("simulator: no progress: " + std::to_string(kProgressWindow) +
                " events moved simulated time by only " + std::to_string(advanced) +
                " ns (to t = " + std::to_string(now_) + " ns on " + std::to_string(ncpus()) +
                " CPU(s)): the runqueue keeps asking for decisions without consuming its "
                "requests");
  window_start_ns = now_;
}

MachineStats Machine::run(Workload& w, int64_t limit_ns) {
  if (limit_ns <= 0) throw Error("the simulated time must be positive");
  workload_ = &w;
  w.start(*this);
  if (cgroup_placement_) cgroup_placement_->check_used();
  flush_pending();
  int64_t window_start_ns = now_;
  while (!stopped_ && !agenda_.empty() && agenda_.top().time < limit_ns) {
    const SimEvent e = agenda_.pop();
    now_ = e.time;
    ++stats_.events;
    check_progress(window_start_ns);
    switch (e.type) {
      case EventType::Tick:
        tick(e.cpu, e.gen);
        break;
      case EventType::BurstEnd:
        burst_end(e.cpu, e.gen);
        break;
      case EventType::Timer:
        on_timer(e);
        break;
      case EventType::Resched:
        on_resched(e.cpu, e.gen);
        break;
      case EventType::HrTick:
        on_hrtick(e.cpu, e.gen);
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
