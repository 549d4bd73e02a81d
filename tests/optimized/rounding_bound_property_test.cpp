// SPEC.md §7.3: from a common state, one operation in Linux integer arithmetic and the same
// operation in exact arithmetic make the same decisions and write values that differ by less than
// the stated rounding bounds. The Linux runqueue walks the random sequence; before each operation
// an exact copy of its state is taken, both apply the operation, and the results are compared.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "reference/runqueue.h"
#include "rules/saved_lag.h"
#include "spec/error.h"
#include "tests/support/op_gen.h"
#include "tests/support/preset_properties.h"

namespace vlag::reference {
namespace {

Num time_of(const LinuxTime& t) {
  return Num(static_cast<long>((t - LinuxArith::origin()).value()));
}
Num diff_of(const LinuxTime& t) { return Num(static_cast<long>(t.value())); }
std::string str(const Num& x) { return x.get_str(); }

// E = 1 + R/2^20 with R the largest ns amount the operation can hand to vdelta (SPEC.md §7.3).
Num vdelta_bound(const LinuxRunqueue& rq, const Op& op) {
  int64_t r = std::max(rq.params().tick_ns(), 2 * rq.params().base_slice_ns());
  for (const auto& e : rq.entities()) r = std::max(r, 2 * e.slice);
  if (op.kind == OpKind::Run) r = std::max(r, op.a);
  if (op.kind == OpKind::SetSlice) r = std::max(r, 2 * op.a);
  return 1 + Num(static_cast<long>(r), 1L << 20);
}

// Mainline's wakeup of a delayed entity may place it again (§4.9, NoDecrease).
bool requeues_delayed_under_no_decrease(const LinuxRunqueue& rq, const Op& op) {
  return op.kind == OpKind::Enqueue && rq.params().preset.delayed_lag == DelayedLag::NoDecrease &&
         rq.has(op.se) && rq.entity(op.se).status == Status::Delayed;
}

// B_v: how far one written vruntime may be off (SPEC.md §7.3).
Num vruntime_bound(const LinuxRunqueue& rq, const Op& op) {
  const Num E = vdelta_bound(rq, op);
  if (requeues_delayed_under_no_decrease(rq, op)) {
    // The lag, taken and clamped within the operation, is off by < 1 + E, and the placement
    // inflates it by φ = (W_o + w)/W_o, W_o the weight of Q without i.
    const auto& e = rq.entity(op.se);
    const int64_t others = std::max<int64_t>(rq.total_weight() - e.weight, 1);
    const Num phi = 1 + Num(static_cast<long>(e.weight), static_cast<long>(others));
    return 2 + phi * (1 + E);
  }
  if (op.kind != OpKind::Reweight || !rq.has(op.se)) return 2 * E;
  const auto& e = rq.entity(op.se);
  const Num rho(static_cast<long>(e.weight), static_cast<long>(std::max<int64_t>(op.a, 1)));
  const int64_t others =
      std::max<int64_t>(rq.total_weight() - (e.status != Status::Sleeping ? e.weight : 0), 1);
  const Num phi = 1 + Num(2 * static_cast<long>(op.a), static_cast<long>(others));
  return 3 + phi * (1 + rho) * E;
}

void one_operation_stays_within_the_rounding_bounds(const std::string& preset) {
  const auto setup = *testing::gen_setup({preset}, 8);
  LinuxRunqueue lin(setup.params());
  testing::create_tasks(lin, setup);
  const auto ops = *testing::gen_busy_ops(static_cast<int>(setup.tasks.size()));
  int diverged = 0;  // operations whose rounded comparison went the other way, inside the bound
  for (const Op& op : ops) {
    Runqueue exact = Runqueue::exact_copy_of(lin);
    const LinuxRunqueue before = lin;
    const Num Bv = vruntime_bound(lin, op);
    if (lin.nr_queued() > 0) {  // SPEC.md §7.1: the floor, exactly: 0 ≤ V − V_linux < 1
      const Num floor_error = exact.avg_vruntime() - time_of(lin.avg_vruntime());
      if (!(floor_error >= 0 && floor_error < 1))
        RC_FAIL(setup.name() + ": V " + str(exact.avg_vruntime()) + " read as " +
                lin.avg_vruntime().get_str() + " before " + to_string(op));
    }
    bool lin_ok = true, exact_ok = true;
    try {
      lin.apply(op);
    } catch (const Error&) {
      lin_ok = false;
    }
    try {
      exact.apply(op);
    } catch (const Error&) {
      exact_ok = false;
    }
    RC_ASSERT(lin_ok == exact_ok);
    if (!lin_ok) continue;
    const std::string where = setup.name() + " " + to_string(op) + ": ";
    // A common state makes common decisions: eligibility compares integers with V exactly.
    RC_ASSERT(lin.last_outcome().picked == exact.last_outcome().picked);
    RC_ASSERT(lin.last_outcome().preempt == exact.last_outcome().preempt);

    // Decisions that compare a freshly rounded value may go either way inside the bound.
    if ((op.kind == OpKind::Run || op.kind == OpKind::Tick) && before.curr()) {
      const auto& c0 = before.entity(*before.curr());
      const bool lin_refreshed = lin.entity(c0.id).deadline != c0.deadline;
      const bool exact_refreshed = exact.entity(c0.id).deadline != time_of(c0.deadline);
      if (lin_refreshed != exact_refreshed) {
        RC_ASSERT(abs(exact.entity(c0.id).vruntime - time_of(c0.deadline)) < Bv);
        ++diverged;
        continue;
      }
    }
    if (op.kind == OpKind::Enqueue && before.entity(op.se).status == Status::Delayed) {
      const auto& e0 = before.entity(op.se);
      const bool lin_placed = lin.entity(op.se).vruntime != e0.vruntime;
      const bool exact_placed = exact.entity(op.se).vruntime != time_of(e0.vruntime);
      if (lin_placed != exact_placed) {
        const Num lag = Runqueue::exact_copy_of(before).avg_vruntime() - time_of(e0.vruntime);
        if (requeues_delayed_under_no_decrease(before, op)) {
          // The re-placement test went the other way: the lag lies next to one of its
          // boundaries, the clamp limit ±L, the lag at the delay, or 0 under DELAY_ZERO.
          const Num L = ExactArith::vdelta(
              rules::lag_clamp_ns(before.params(), e0.slice, before.max_slice()), e0.weight);
          const Num at_delay = diff_of(e0.vlag);
          const bool near_clamp = abs(abs(lag) - L) < 1 + vdelta_bound(before, op);
          const bool near_floor = lag >= at_delay && lag < at_delay + 1;
          const bool near_zero =
              before.params().preset.has(Feature::DELAY_ZERO) && lag > 0 && lag < 1;
          RC_ASSERT(near_clamp || near_floor || near_zero);
          // Not placing it is placing it with its own V − v: v stays within the bound.
          RC_ASSERT(abs(exact.entity(op.se).vruntime - time_of(lin.entity(op.se).vruntime)) < Bv);
        } else {
          RC_ASSERT(lag > 0 && lag < 1);
        }
        ++diverged;
        continue;
      }
    }

    // An operation through an empty queue re-anchors V: Linux at min_vruntime (SPEC.md §7.1).
    const bool through_empty =
        lin.nr_queued() == 0 || (before.nr_queued() == 1 && before.has(op.se) &&
                                 before.entity(op.se).status != Status::Sleeping &&
                                 (op.kind == OpKind::Reweight || op.kind == OpKind::Enqueue));
    const Num V_lin = time_of(lin.avg_vruntime()), V_exact = exact.avg_vruntime();
    if (!through_empty && !(abs(V_exact - V_lin) < 1 + Bv))
      RC_FAIL(where + "V " + str(V_exact) + " vs " + str(V_lin) + ", bound 1 + " + str(Bv));
    for (const auto& li : lin.entities()) {
      const Entity& ex = exact.entity(li.id);
      const std::string who = where + "task " + std::to_string(li.id) + " ";
      if (li.status == Status::Sleeping) {
        if (!(abs(ex.vlag - diff_of(li.vlag)) < Bv))
          RC_FAIL(who + "saved lag " + str(ex.vlag) + " vs " + li.vlag.get_str());
        if (li.rel_deadline && !(abs(ex.deadline - diff_of(li.deadline)) < Bv))
          RC_FAIL(who + "relative deadline " + str(ex.deadline) + " vs " + li.deadline.get_str());
        continue;
      }
      const Num lag_exact = V_exact - ex.vruntime, lag_lin = V_lin - time_of(li.vruntime);
      if (!(abs(lag_exact - lag_lin) < 1 + 2 * Bv))
        RC_FAIL(who + "lag " + str(lag_exact) + " vs " + str(lag_lin) + ", B_v " + str(Bv));
      const Num d_exact = ex.deadline - V_exact, d_lin = time_of(li.deadline) - V_lin;
      if (!(abs(d_exact - d_lin) < 2 + 3 * Bv))
        RC_FAIL(who + "deadline - V " + str(d_exact) + " vs " + str(d_lin) + ", B_v " + str(Bv));
    }
  }
  RC_CLASSIFY(diverged > 0, "a rounded comparison went the other way, inside the bound");
  RC_CLASSIFY(lin.nr_queued() >= 4, "4+ queued at the end");
}

// The case the random walk found: on mainline a heavy delayed entity (w = 88761) woken beside a
// light one (w = 15) is placed again with its clamped lag, since the lag it was delayed with (under
// a 10 ms slice since gone) is lower. The clamp limit vdelta(4.7 ms, 88761) = 54222.01 is 54222 in
// Linux arithmetic, and the placement inflates the difference by (15 + 88761)/15: V moves by 71
// virtual ns, beyond 1 + 2E (E ≈ 20 here), inside the bound of the re-placement.
TEST(RoundingBound, MainlineReplacementOfADelayedEntityInflatesTheRoundedClamp) {
  LinuxRunqueue lin(make_params(preset_by_name("linux-mainline")));
  lin.create(1, 15, 0);
  lin.create(2, 88761, 0);
  lin.create(3, 1024, 10'000'000);
  for (TaskId id : {1, 2, 3}) lin.enqueue_entity(id);
  ASSERT_EQ(lin.pick_next_entity(), TaskId{2});  // the shortest virtual request
  lin.update_curr(30'000'000'000);               // v2 ≈ 346·10^6 virtual ns
  lin.dequeue_entity(2, true);  // lag ≈ −3.7·10^6: delayed, clamped over 14 ms
  ASSERT_EQ(lin.entity(2).status, Status::Delayed);
  lin.dequeue_entity(3, true);  // eligible: leaves, and the largest slice is 0.7 ms again
  ASSERT_EQ(lin.entity(3).status, Status::Sleeping);
  const Op op{OpKind::Enqueue, 2};
  const LinuxRunqueue before = lin;
  Runqueue exact = Runqueue::exact_copy_of(lin);
  const Num L = ExactArith::vdelta(4'700'000, 88761);
  const Num lag = exact.avg_vruntime() - exact.entity(2).vruntime;
  ASSERT_LT(lag, -L);                          // the clamp bites at the wakeup,
  ASSERT_LT(diff_of(lin.entity(2).vlag), -L);  // and the lag at the delay is lower still
  lin.apply(op);
  exact.apply(op);
  ASSERT_NE(lin.entity(2).vruntime, before.entity(2).vruntime);  // both placed it again
  ASSERT_NE(exact.entity(2).vruntime, time_of(before.entity(2).vruntime));
  const Num dV = abs(exact.avg_vruntime() - time_of(lin.avg_vruntime()));
  EXPECT_GT(dV, 1 + 2 * vdelta_bound(before, op)) << str(dV);
  EXPECT_LT(dV, 1 + vruntime_bound(before, op)) << str(dV);
}

// One property per Linux preset of the table (tests/support/preset_properties.h).
[[maybe_unused]] const bool kRegistered = testing::register_preset_properties(
    "RoundingBoundProperties", "OneOperationStaysWithinTheRoundingBounds", PresetFamily::Linux,
    one_operation_stays_within_the_rounding_bounds);

}  // namespace
}  // namespace vlag::reference
