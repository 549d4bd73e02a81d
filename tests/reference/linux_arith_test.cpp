// SPEC.md §7: the Linux integer arithmetic, pinned to values computed by hand from the kernel's
// formulas, and its rounding bounds against the exact arithmetic.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>

#include "checker/view.h"
#include "reference/arith.h"
#include "reference/runqueue.h"
#include "spec/error.h"
#include "spec/linux_time.h"
#include "spec/weights.h"

namespace vlag::reference {
namespace {

TEST(LinuxArith, WmultIsTwoToThe32OverWeightWithinOne) {
  for (size_t i = 0; i < kPrioToWeight.size(); ++i) {
    const double exact = 4294967296.0 / static_cast<double>(kPrioToWeight[i]);
    EXPECT_LT(std::abs(exact - static_cast<double>(kPrioToWmult[i])), 1.0) << "index " << i;
  }
}

TEST(LinuxArith, CalcDeltaFairMatchesTheKernelFixedPoint) {
  // nice 0: δ unchanged.
  EXPECT_EQ(LinuxArith::vdelta(1'000'000, 1024).value(), 1'000'000);
  // nice 5 (335, wmult 12820798): fact = 1024·12820798 = 13128497152 = 3·2^32 + …, shifted by
  // 2 bits; 10^6·3282124288 >> 30 = 3056716 (exact: 3056716.4…).
  EXPECT_EQ(LinuxArith::vdelta(1'000'000, 335).value(), 3'056'716);
  // A weight outside the table takes inv = (2^32 − 1)/w: 3 ms at 1000 gives 3071999, one below
  // the exact 3072000.
  EXPECT_EQ(LinuxArith::vdelta(3'000'000, 1000).value(), 3'071'999);
}

TEST(LinuxArith, CalcDeltaFairStaysWithinItsBound) {
  // SPEC.md §7: |δ·N/w − vdelta(δ, w)| < 1 + δ/2^20.
  for (int64_t w : {2, 3, 15, 335, 1000, 1024, 1025, 88761, 262144})
    for (int64_t delta : {0L, 1L, 999L, 700'000L, 4'000'000L, 100'000'000L, 1L << 40}) {
      const mpq_class exact = ExactArith::vdelta(delta, w);
      const mpq_class linux_value(static_cast<long>(LinuxArith::vdelta(delta, w).value()));
      const mpq_class bound = 1 + mpq_class(static_cast<long>(delta), 1L << 20);
      EXPECT_LT(abs(exact - linux_value), bound) << "w=" << w << " delta=" << delta;
    }
}

TEST(LinuxArith, AverageRoundsTowardMinusInfinity) {
  // Σ = −7 over W = 2: −3.5 floors to −4, so V itself is eligible (key −4 ≤ −3.5).
  EXPECT_EQ(LinuxArith::average(0, -7, 2).value(), -4);
  EXPECT_EQ(LinuxArith::average(0, 7, 2).value(), 3);
  EXPECT_EQ(LinuxArith::average(100, -6, 2).value(), 97);
  EXPECT_TRUE(LinuxArith::key_eligible(-7, 2, -4));
  EXPECT_FALSE(LinuxArith::key_eligible(-7, 2, -3));
}

// The floor of Σ / W against GMP's, for sums within 64 bits (the short division) and beyond
// them, of either sign, at the edges of 64 bits too.
RC_GTEST_PROP(LinuxArithProperties, AverageIsTheFloorOfTheMean, ()) {
  const int64_t high = *rc::gen::inRange<int64_t>(-(int64_t{1} << 40), int64_t{1} << 40);
  const auto low = *rc::gen::arbitrary<uint64_t>();
  // high · 2^64 + low, shifted as an unsigned number (a negative one's shift is not for UBSan).
  const auto wide = static_cast<__int128>(
      (static_cast<unsigned __int128>(static_cast<__int128>(high)) << 64) | low);
  const __int128 sum = *rc::gen::element(0, 1, 2) == 0
                           ? wide
                           : static_cast<__int128>(*rc::gen::element<int64_t>(
                                 INT64_MIN, INT64_MAX, *rc::gen::arbitrary<int64_t>()));
  const int64_t load = *rc::gen::oneOf(rc::gen::inRange<int64_t>(1, 1 << 20),
                                       rc::gen::inRange<int64_t>(1, INT64_MAX));
  mpz_class floor;
  mpz_fdiv_q(floor.get_mpz_t(), checker::exact_of(sum).get_num_mpz_t(),
             mpz_class(static_cast<long>(load)).get_mpz_t());
  RC_PRE(floor.fits_slong_p());
  RC_ASSERT(LinuxArith::average(0, sum, load).value() == floor.get_si());
}

TEST(LinuxArith, MulDivTruncatesTowardZeroLikeDivS64) {
  EXPECT_EQ(LinuxArith::mul_div(-7, 1, 2).value(), -3);
  EXPECT_EQ(LinuxArith::mul_div(7, 1, 2).value(), 3);
  EXPECT_EQ(LinuxArith::mul_div(int64_t{1} << 40, 1 << 18, 3).value(),
            static_cast<int64_t>((static_cast<__int128>(1) << 58) / 3));
}

TEST(LinuxTime, ComparesThroughTheSignedDifferenceAcrossTheWrap) {
  const LinuxTime near_max = INT64_MAX;
  const LinuxTime wrapped = near_max + LinuxTime(10);  // bits past 2^63: negative as s64
  EXPECT_LT(wrapped.value(), 0);
  EXPECT_LT(near_max, wrapped);
  EXPECT_EQ(wrapped - near_max, LinuxTime(10));
  const LinuxTime origin = LinuxArith::origin();
  EXPECT_EQ(origin.bits(), ~uint64_t{0} - (uint64_t{1} << 20) + 1);
  EXPECT_LT(origin, origin + LinuxTime(int64_t{1} << 21));  // crosses 0 as u64
}

TEST(LinuxRunqueue, RejectsThePaperPresetsWhichHaveNoLagClamp) {
  EXPECT_THROW(LinuxRunqueue(make_params(preset_by_name("paper-1"))), Error);
  EXPECT_NO_THROW(LinuxRunqueue(make_params(preset_by_name("linux-6.6"))));
}

TEST(LinuxRunqueue, EmptyQueueVIsMinVruntimeAndTimesWrapThroughZero) {
  LinuxRunqueue rq(make_params(preset_by_name("linux-6.18")));
  EXPECT_EQ(rq.avg_vruntime(), LinuxArith::origin());
  rq.create(1, 1024, 0);
  rq.enqueue_entity(1);
  rq.pick_next_entity();
  rq.update_curr(2'000'000);  // 2·10^6 virtual ns at nice 0: past 2^20, so past u64 zero
  EXPECT_GT(rq.entity(1).vruntime.value(), 0);
  EXPECT_EQ(rq.reference_point(), rq.entity(1).vruntime);
  rq.dequeue_entity(1, true);
  // Linux's empty-queue V is min_vruntime (SPEC.md §7.1).
  EXPECT_EQ(rq.avg_vruntime(), rq.reference_point());
}

}  // namespace
}  // namespace vlag::reference
