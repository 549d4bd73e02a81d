// The multi-CPU discrete-event simulator. Each CPU has its own runqueue (optimized::Runqueue, the
// exact reference::Runqueue or CFS's, sim/policy.h); the machine
// only turns time, ticks, wakeups and bursts into SPEC.md operations on them — every scheduling
// decision within a CPU is the runqueue's. Workloads (sim/hogs.h, sim/cyclictest.h,
// sim/hackbench.h) create tasks, wake them with bursts of work and say what a task does when a
// burst ends. Randomness comes only from the seeded generator, so one seed gives one run.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "reference/task_groups.h"
#include "sim/cgroups.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/load_balance.h"
#include "sim/placement.h"
#include "sim/policy.h"
#include "sim/task.h"
#include "spec/features.h"
#include "trace/observer.h"

namespace vlag::sim {

class Machine;

class Workload {
 public:
  virtual ~Workload() = default;
  /// Creates the tasks and makes the first wakeups or timers, at time 0.
  virtual void start(Machine& m) = 0;
  /// The task finished its burst; returns the next burst's length, or 0 to sleep.
  virtual int64_t burst_done(Machine& m, Task& t) = 0;
  /// A timer the workload set for the task expired.
  virtual void timer(Machine& /*m*/, Task& /*t*/) {}
};

struct MachineConfig {
  Params params;  // ncpus is the number of CPUs
  Placement placement = Placement::Prev;
  Policy policy = Policy::Eevdf;
  Arith arith = Arith::Linux64;  // the EEVDF policies' runqueue arithmetic (sim/policy.h)
  // Load balancing (a flat machine: no domain hierarchy, no cache-hot or affinity checks, no
  // capacity; imbalance counted in runnable tasks): a CPU about to idle pulls one queued task
  // from the busiest CPU (newidle), and every balance_interval_ticks ticks queued tasks move from
  // the busiest to the least-loaded CPU while they differ by more than one task. With task
  // groups the same two passes balance by hierarchical load instead, each CPU pulling for
  // itself (SPEC.md §10.6, sim/load_balance.h).
  bool balance = true;
  int balance_interval_ticks = 4;
  int64_t switch_cost_ns = 0;  // charged to the incoming task at every context switch
  // The time from a wakeup to the switch it causes, when it makes the task run at once (SPEC.md
  // §9.3): the wakee's CPU idles, or the wakeup preempts its running task. The kernel spends it
  // in the interrupt or syscall exit, an IPI and schedule(); the woken task's wake-to-run
  // latency is never below it. By where the wakeup comes from:
  int64_t wake_timer_cost_ns = 0;  // a timer (interrupt) wakes it onto a busy CPU
  int64_t wake_task_cost_ns = 0;   // a running task wakes it onto a busy CPU
  int64_t wake_idle_cost_ns = 0;   // anything wakes it onto an idle CPU
  // The switch a tick calls for comes this much after the tick (the kernel's tick handler, the
  // softirqs it raises and schedule() at the interrupt's exit, SPEC.md §9.3). 0: at the tick.
  int64_t tick_cost_ns = 0;
  double jitter = 0;  // 0..0.5: each burst scaled by U[1 - jitter, 1 + jitter] (seeded)
  uint64_t seed = 1;
  std::string trace_dir;  // non-empty: one trace per CPU, DIR/cpu<N>.jsonl
  // Task groups (SPEC.md §10, sim/cgroups.h): with any, every CPU runs a hierarchy.
  std::vector<CgroupSpec> cgroups;
  bool autogroup = false;
};

struct MachineStats {
  int64_t end_ns = 0;
  int64_t events = 0;              // simulator events handled (ticks, burst ends, timers)
  int64_t operations = 0;          // runqueue operations applied
  int64_t migrations = 0;          // all moves between runqueues: wakeups and balancing
  int64_t balance_migrations = 0;  // of which load balancing (newidle and periodic)
  int64_t wakeups = 0;             // wakeups by a running task (not by timers)
  // Of those, the wakee was placed on a CPU other than its waker's: the cross-CPU wakeups
  // SIS_SHORT sets out to cut (an IPI and a cold cache in Linux).
  int64_t cross_cpu_wakeups = 0;
  int64_t switches = 0;
  std::vector<int64_t> busy_ns;  // per CPU
};

class Machine {
 public:
  explicit Machine(MachineConfig config);
  ~Machine();

  /// Runs the workload until the time limit, or until it calls stop().
  MachineStats run(Workload& w, int64_t limit_ns);

  // For workloads.
  Task& add_task(const TaskAttrs& attrs, int cpu);
  /// Makes a sleeping task runnable with a burst of burst_ns on the CPU placement chooses;
  /// returns false (and does nothing) if the task is runnable already.
  bool wake(Task& t, int64_t burst_ns);
  /// A new task's first wakeup, after fork (Linux's wake_up_new_task): as wake(), but its
  /// wakeup does not run the wakeup-preemption check (SPEC.md §9.7); the running task is
  /// switched out only if the time charged to it ended its protection or request.
  bool fork(Task& t, int64_t burst_ns);
  /// A wakeup that finds the task still runnable: its burst grows by extra_ns and, as Linux's
  /// ttwu_runnable() does, the wakeup-preemption check still runs if another task has the CPU.
  void extend(Task& t, int64_t extra_ns);
  /// Wakes the workload's timer callback for t at at_ns, late by up to t's timer slack: at the
  /// first hrtimer interrupt of t's CPU from at_ns on (a tick, another timer's hard expiry),
  /// and at the latest at at_ns + slack (SPEC.md §9.2).
  void set_timer(Task& t, int64_t at_ns);
  /// setpriority(2) on t: its weight becomes nice's (SPEC.md §4.8); as Linux's
  /// prio_changed_fair(), a running task made lighter is rescheduled and a queued one gets the
  /// wakeup-preemption check.
  void renice(Task& t, int nice);
  void stop() { stopped_ = true; }
  int64_t now() const { return now_; }
  std::mt19937_64& rng() { return rng_; }
  int ncpus() const { return static_cast<int>(cpus_.size()); }
  const std::vector<std::unique_ptr<Task>>& tasks() const { return tasks_; }
  const Params& params() const { return config_.params; }
  /// The task groups of a run with --cgroup or --autogroup (nullptr without), and the path of
  /// task t's group ("/": the root).
  const reference::TaskGroups* task_groups() const { return groups_.get(); }
  std::string group_path(const Task& t) const;
  /// CPU c's runqueue, for observers (sim/demo_probe.h) and reports.
  CpuRunqueue& runqueue(int c) { return rq(c); }
  /// Hands every CPU's events from now on to sink as trace events, each with its CPU: the
  /// stream --trace-dir writes, without the files (the sink must outlive the run).
  void report_to(trace::EventSink& sink);

 private:
  Cpu& cpu(int c) { return *cpus_[static_cast<size_t>(c)]; }
  CpuRunqueue& rq(int c) { return *cpus_[static_cast<size_t>(c)]->rq; }
  Task& task(int64_t id) { return *tasks_[static_cast<size_t>(id - 1)]; }
  void apply(Cpu& c, const Op& op);
  void sync(int c);
  void tick(int c, uint64_t gen);
  void fire_timers(int c);
  void on_timer(const SimEvent& e);
  void request_switch(int c, int64_t cost_ns);
  void on_resched(int c, uint64_t gen);
  int64_t slice_of(const Task& t) const;
  void arm_hrtick(int c);
  void on_hrtick(int c, uint64_t gen);
  void check_progress(int64_t& window_start_ns);  // throws when simulated time stalls
  int64_t quantum(int c) const;
  void arm_quantum(int c);
  void burst_end(int c, uint64_t gen);
  bool wake_task(Task& t, int64_t burst_ns, bool forked);
  void enqueue_on(Task& t, int c, bool check = true);
  void check_preempt(Task& t, int c, bool check = true);
  std::vector<int64_t> nr_running() const;  // runnable tasks per CPU
  bool is_short(const Task& t) const;
  std::vector<CpuLoad> loads() const;
  void migrate(Task& t, int to);
  int64_t jittered(int64_t burst_ns);
  Task* pullable(int c);
  void move_queued(Task& t, int to);
  bool newidle_balance(int c);
  void periodic_balance();
  bool balance_by_load(int c, BalanceIdle idle);
  std::vector<Task*> detach_candidates(int c);
  void reschedule(int c, bool force, bool burst_changed);
  void flush_pending();
  void arm(int c);

  MachineConfig config_;
  std::unique_ptr<reference::TaskGroups> groups_;  // with task groups only
  std::unique_ptr<CgroupPlacement> cgroup_placement_;
  std::vector<int64_t> task_group_;  // per task (id − 1): its group
  std::vector<std::unique_ptr<Cpu>> cpus_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<bool> pending_;  // a CPU to re-pick once the current event is handled
  // The paper presets (SPEC.md §5) allocate the CPU in quanta instead of ticking: a picked task
  // runs min(TICK, its remaining request) before the next decision. The generation per CPU
  // invalidates a quantum end that an earlier pick scheduled.
  bool quanta_ = false;
  std::vector<uint64_t> quantum_gen_;
  EventQueue agenda_;
  std::mt19937_64 rng_;
  Workload* workload_ = nullptr;
  int64_t now_ = 0;
  bool stopped_ = false;
  int waker_cpu_ = -1;               // the CPU whose running task the workload is acting for
  uint64_t timer_seq_ = 0;           // ids of the workload timers set
  int64_t last_balance_ns_ = -1;     // the periodic balance runs once per balance instant
  int64_t list_seq_ = 0;             // enqueues and switches in, for Task::listed
  std::vector<int> balance_failed_;  // per CPU: balances by load in a row that moved nothing
  MachineStats stats_;
};

}  // namespace vlag::sim
