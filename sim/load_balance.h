// Load balancing by hierarchical load (SPEC.md §10.6): Linux's sched_balance_rq() (load_balance)
// reduced to one domain whose groups are single CPUs of capacity 1024 (2 CPUs sharing a cache:
// imbalance_pct 117), the machine's runs with task groups. A CPU is has-spare when it runs
// nothing, fully busy with one runnable task, overloaded with more (the kernel also asks PELT's
// utilization, which the model keeps none of); its load is its root runqueue's W, and a task's
// part of it is task_h_load. Pure decisions: the machine (sim/machine.cpp) gathers the figures
// and moves the tasks.
#pragma once

#include <cstdint>
#include <span>

namespace vlag::sim {

/// What the balance sees of one CPU.
struct BalanceCpu {
  int64_t nr_running = 0;  // runnable tasks, the running one included
  int64_t load = 0;        // the root runqueue's W (the kernel's cfs_rq_load_avg of rq->cfs)
};

/// The local CPU's state (the kernel's cpu_idle_type).
enum class BalanceIdle : uint8_t { NotIdle, Idle, NewlyIdle };

/// What calculate_imbalance() decides: nothing (busiest < 0), a count of tasks (an idle CPU
/// spreading the runnable tasks), or an amount of hierarchical load.
struct Imbalance {
  int busiest = -1;
  bool by_load = false;
  int64_t amount = 0;
};

inline constexpr int64_t kImbalancePct = 117;  // sd->imbalance_pct of a cache-sharing domain
inline constexpr int kNrMigrate = 32;          // sysctl_sched_nr_migrate: tasks looked at per pass
inline constexpr int kCacheNiceTries = 1;      // sd->cache_nice_tries of a cache-sharing domain

/// find_busiest_group() and calculate_imbalance() for CPU `local`.
Imbalance find_imbalance(int local, std::span<const BalanceCpu> cpus, BalanceIdle idle);

/// detach_tasks()'s choice, one candidate at a time in the order the busiest CPU lists them
/// (least recently run first). `failed` is the domain's nr_balance_failed: each failed balance
/// halves the load a task is counted with, so a stuck imbalance eventually moves a larger task.
class DetachChoice {
 public:
  DetachChoice(const Imbalance& imbalance, int failed, BalanceIdle idle, int64_t source_running);
  /// Whether the next candidate, of hierarchical load h_load, moves.
  bool takes(int64_t h_load);
  /// Nothing more moves: the imbalance is met, the source is down to its last task, a newly
  /// idle pass moved one (a preemptible kernel stops there), or kNrMigrate were looked at.
  bool done() const;

 private:
  Imbalance left_;
  int failed_;
  BalanceIdle idle_;
  int64_t source_running_;
  int looked_ = 0;
  int moved_ = 0;
};

/// need_active_balance()'s threshold: after this many failed balances in a row the kernel stops
/// the busiest CPU's running task to move it; the simulator moves its least recent queued task.
inline bool needs_forced_move(int failed) { return failed > kCacheNiceTries + 2; }

}  // namespace vlag::sim
