// INV-KERNEL-SUMS' rules (rules/invariants.h, SPEC.md §6) on a hand-built queue: which entities
// the kernel's tree sums hold, relative to v0, and avg_vruntime's rounding toward −∞.
#include <gtest/gtest.h>

#include <vector>

#include "rules/invariants.h"

namespace vlag::rules {
namespace {

// An entity of rules/state.h; the rules of INV-KERNEL-SUMS read its weight, vruntime and status.
struct Entity {
  EntityId id = 0;
  int64_t weight = 1024, slice = 700000;
  Exact vruntime{}, deadline{}, vlag{};
  Status status = Status::Queued;
};

// The smallest QueueState: a list of entities, curr and V as given.
struct Queue {
  using Entity = rules::Entity;
  Params p = make_params(preset_by_name(kDefaultPreset));
  std::vector<Entity> entities;
  std::optional<EntityId> running;
  Exact v = 0;

  const Params& params() const { return p; }
  const Exact& V() const { return v; }
  int64_t W() const {
    int64_t w = 0;
    for (const Entity& e : entities) w += e.status == Status::Sleeping ? 0 : e.weight;
    return w;
  }
  std::optional<EntityId> curr() const { return running; }
  bool eligible(const Entity& e) const { return e.vruntime <= v; }
  template <class Visit>
  bool for_each_queued(Visit&& visit) const {
    for (const Entity& e : entities)
      if (e.status != Status::Sleeping && !visit(e)) return false;
    return true;
  }
};
static_assert(QueueState<Queue>);

TEST(KernelSums, TheTreeHoldsTheQueuedButCurrAndTheDelayed) {
  Queue q;
  q.entities = {{.id = 1, .weight = 1024, .vruntime = 110},
                {.id = 2, .weight = 335, .vruntime = 90, .status = Status::Delayed},
                {.id = 3, .weight = 2048, .vruntime = 130},
                {.id = 4, .weight = 15, .vruntime = 5, .status = Status::Sleeping}};
  q.running = 3;
  const KernelSums k = kernel_sums(q, 100);
  EXPECT_EQ(k.sum_w, 1024 + 335);
  EXPECT_EQ(k.sum_wv, Exact(1024 * 10 + 335 * -10));
  EXPECT_EQ(k.curr_w, 2048);
  EXPECT_EQ(k.curr_wv, Exact(2048 * 30));
}

TEST(KernelSums, AreRelativeToTheReferencePoint) {
  Queue q;
  q.entities = {{.id = 1, .weight = 1024, .vruntime = Exact(7, 2)}};
  EXPECT_EQ(kernel_sums(q, 0).sum_wv, Exact(3584));
  EXPECT_EQ(kernel_sums(q, 4).sum_wv, Exact(-512));
  EXPECT_EQ(kernel_sums(q, 4).curr_w, 0);  // nothing runs
}

TEST(KernelAvgVruntime, RoundsTowardMinusInfinityAndIsV0WhenEmpty) {
  EXPECT_EQ(kernel_avg_vruntime(0, 1024, 1024, 1024, 0), Exact(0));    // 1/2 → 0
  EXPECT_EQ(kernel_avg_vruntime(0, 1024, -1024, 1024, 0), Exact(-1));  // −1/2 → −1, not 0
  EXPECT_EQ(kernel_avg_vruntime(0, 1024, -2048, 1024, 0), Exact(-1));  // exact −1
  EXPECT_EQ(kernel_avg_vruntime(10, 1024, 0, 1024, 3072), Exact(11));  // curr's term counts
  EXPECT_EQ(kernel_avg_vruntime(-5, 0, 0, 0, 0), Exact(-5));           // nothing queued
  EXPECT_EQ(kernel_avg_vruntime(0, 0, 0, 1024, 5 * 1024), Exact(5));   // curr alone
}

}  // namespace
}  // namespace vlag::rules
