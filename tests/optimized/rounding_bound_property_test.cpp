// SPEC.md §7.4: from a common state, one operation in Linux integer arithmetic and the same
// operation in exact arithmetic make the same decisions and write values that differ by less than
// the stated rounding bounds. The Linux runqueue walks the random sequence; before each operation
// an exact copy of its state is taken, both apply the operation, and the results are compared.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "reference/runqueue.h"
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

// E = 1 + R/2^20 with R the largest ns amount the operation can hand to vdelta (SPEC.md §7.4).
Num vdelta_bound(const LinuxRunqueue& rq, const Op& op) {
  int64_t r = std::max(rq.params().tick_ns(), 2 * rq.params().base_slice_ns());
  for (const auto& e : rq.entities()) r = std::max(r, 2 * e.slice);
  if (op.kind == OpKind::Run) r = std::max(r, op.a);
  if (op.kind == OpKind::SetSlice) r = std::max(r, 2 * op.a);
  return 1 + Num(static_cast<long>(r), 1L << 20);
}

// B_v: how far one written vruntime may be off (SPEC.md §7.4).
Num vruntime_bound(const LinuxRunqueue& rq, const Op& op) {
  const Num E = vdelta_bound(rq, op);
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
  LinuxRunqueue lin(make_params(preset_by_name(setup.preset)));
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
        RC_FAIL(setup.preset + ": V " + str(exact.avg_vruntime()) + " read as " +
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
    const std::string where = setup.preset + " " + to_string(op) + ": ";
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
        RC_ASSERT(lag > 0 && lag < 1);
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

// One property per Linux preset of the table (tests/support/preset_properties.h).
[[maybe_unused]] const bool kRegistered = testing::register_preset_properties(
    "RoundingBoundProperties", "OneOperationStaysWithinTheRoundingBounds", PresetFamily::Linux,
    one_operation_stays_within_the_rounding_bounds);

}  // namespace
}  // namespace vlag::reference
