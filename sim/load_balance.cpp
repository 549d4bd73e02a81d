#include "sim/load_balance.h"

#include <algorithm>

namespace vlag::sim {
namespace {

// group_classify() on one CPU, by its runnable tasks alone.
enum class GroupType : uint8_t { HasSpare, FullyBusy, Overloaded };

GroupType group_type(const BalanceCpu& c) {
  if (c.nr_running == 0) return GroupType::HasSpare;
  return c.nr_running == 1 ? GroupType::FullyBusy : GroupType::Overloaded;
}

// update_sd_pick_busiest(): a CPU with a task to pull, of the highest type, the heaviest among
// overloaded (and among fully busy) ones; the first of equals.
int pick_busiest(int local, std::span<const BalanceCpu> cpus) {
  int busiest = -1;
  for (int k = 0; k < static_cast<int>(cpus.size()); ++k) {
    const BalanceCpu& c = cpus[static_cast<size_t>(k)];
    if (k == local || c.nr_running == 0) continue;
    if (busiest < 0) {
      busiest = k;
      continue;
    }
    const BalanceCpu& b = cpus[static_cast<size_t>(busiest)];
    if (group_type(c) > group_type(b) || (group_type(c) == group_type(b) && c.load > b.load))
      busiest = k;
  }
  return busiest;
}

}  // namespace

Imbalance find_imbalance(int local, std::span<const BalanceCpu> cpus, BalanceIdle idle) {
  const int busiest = pick_busiest(local, cpus);
  if (busiest < 0) return {};
  const BalanceCpu& l = cpus[static_cast<size_t>(local)];
  const BalanceCpu& b = cpus[static_cast<size_t>(busiest)];
  const GroupType lt = group_type(l);
  const GroupType bt = group_type(b);
  // Capacities are equal, so avg_load is the load itself and the domain's is the mean.
  int64_t total = 0;
  for (const BalanceCpu& c : cpus) total += c.load;
  const int64_t avg = total / static_cast<int64_t>(cpus.size());

  // find_busiest_group(): the cases that are balanced before any imbalance is computed.
  if (lt > bt) return {};
  if (lt == GroupType::Overloaded &&
      (l.load >= b.load || l.load >= avg || 100 * b.load <= kImbalancePct * l.load))
    return {};
  if (bt != GroupType::Overloaded && (idle == BalanceIdle::NotIdle || b.nr_running == 1)) return {};

  // calculate_imbalance(). An idle CPU takes half the difference in runnable tasks (a group of
  // one CPU: sibling_imbalance's equal-cores case, halved).
  if (lt == GroupType::HasSpare) {
    const int64_t n = std::max<int64_t>(0, b.nr_running - l.nr_running) >> 1;
    return n > 0 ? Imbalance{busiest, false, n} : Imbalance{};
  }
  // A fully busy CPU will become overloaded: it pulls only below the busiest and the mean.
  if (lt == GroupType::FullyBusy && (l.load >= b.load || l.load >= avg)) return {};
  // Both overloaded: bring both towards the mean, pushing neither past it.
  const int64_t amount = std::min(b.load - avg, avg - l.load);
  return amount > 0 ? Imbalance{busiest, true, amount} : Imbalance{};
}

DetachChoice::DetachChoice(const Imbalance& imbalance, int failed, BalanceIdle idle,
                           int64_t source_running)
    : left_(imbalance), failed_(failed), idle_(idle), source_running_(source_running) {}

bool DetachChoice::takes(int64_t h_load) {
  ++looked_;
  if (left_.by_load) {
    // detach_tasks(): a task counts at least 1; its load is relaxed by each failed balance.
    const int64_t load = std::max<int64_t>(h_load, 1);
    const int64_t relaxed = load >> std::min(failed_, 62);
    if (relaxed > left_.amount) return false;
    left_.amount -= load;
  } else {
    --left_.amount;
  }
  ++moved_;
  --source_running_;
  return true;
}

bool DetachChoice::done() const {
  // "We don't want to steal all": an idle CPU leaves the source its last task.
  if (idle_ != BalanceIdle::NotIdle && source_running_ <= 1) return true;
  if (idle_ == BalanceIdle::NewlyIdle && moved_ > 0) return true;
  return left_.amount <= 0 || looked_ >= kNrMigrate;
}

}  // namespace vlag::sim
