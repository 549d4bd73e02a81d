// BasicRunqueue::seed (reference/basic_runqueue.h): a state taken from elsewhere — as the replay
// of SPEC.md §6.4 takes the kernel's — is the state the operations then run from, and a state
// the model cannot hold is refused.
#include <gtest/gtest.h>

#include "reference/runqueue.h"
#include "spec/error.h"

namespace vlag::reference {
namespace {

using Seed = LinuxRunqueue::Seed;

LinuxRunqueue::Entity entity(EntityId id, int64_t v, int64_t d, Status status) {
  LinuxRunqueue::Entity e;
  e.id = id;
  e.weight = 1024;
  e.slice = 1'400'000;
  e.vruntime = v;
  e.deadline = d;
  e.status = status;
  e.is_new = false;
  return e;
}

Seed three_queued() {
  Seed s;
  s.entities = {entity(1, 1'000, 2'401'000, Status::Queued),
                entity(2, 500, 1'900'500, Status::Queued),
                entity(3, 2'000, 3'000'000, Status::Sleeping)};
  s.curr = 1;
  s.protection = LinuxTime(1'000);  // at curr's v: not protected
  s.v0 = 0;
  return s;
}

TEST(Seed, IsTheStateTheOperationsRunFrom) {
  LinuxRunqueue rq(make_params(linux_6_18(), 250, 2));
  rq.seed(three_queued());
  EXPECT_EQ(rq.nr_queued(), 2);
  EXPECT_EQ(rq.curr(), std::optional<EntityId>(1));
  EXPECT_EQ(rq.total_weight(), 2048);
  EXPECT_EQ(rq.avg_vruntime(), LinuxTime(750));
  EXPECT_FALSE(rq.protect_slice());
  // Entity 2 is eligible (v 500 < V 750) with the earlier deadline: the pick.
  EXPECT_EQ(rq.pick_next_entity(), std::optional<EntityId>(2));
  rq.enqueue_entity(3);  // a sleeper seeded with its saved lag (0): placed at V
  EXPECT_EQ(rq.entity(3).status, Status::Queued);
}

TEST(Seed, RefusesAStateTheModelCannotHold) {
  Seed s = three_queued();
  s.curr = 3;  // asleep
  LinuxRunqueue a(make_params(linux_6_18(), 250, 2));
  EXPECT_THROW(a.seed(s), Error);
  s = three_queued();
  s.entities.push_back(entity(2, 0, 1, Status::Queued));  // twice
  LinuxRunqueue b(make_params(linux_6_18(), 250, 2));
  EXPECT_THROW(b.seed(s), Error);
  LinuxRunqueue c(make_params(linux_6_18(), 250, 2));
  c.create(9, 1024, 0);
  c.enqueue_entity(9);
  EXPECT_THROW(c.seed(three_queued()), Error);  // not new
}

}  // namespace
}  // namespace vlag::reference
