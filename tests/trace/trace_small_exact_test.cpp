// The inline forms of trace/small_exact.h against GMP's own: for any number, one of one limb or
// not, whatever storage the target had before, they give what GMP gives.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "trace/small_exact.h"

namespace vlag::trace {
namespace {

using Exact = mpq_class;

// Numbers around the edges of one limb and of s64, fractions, and numbers of several limbs.
std::vector<Exact> edge_numbers() {
  std::vector<Exact> xs;
  for (const int64_t x : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{7}, int64_t{-1048576},
                          std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::min() + 1})
    xs.emplace_back(mpz_class(static_cast<long>(x)));
  const mpz_class two64 = mpz_class(1) << 64, two63 = mpz_class(1) << 63;
  for (const mpz_class& z : {two63, mpz_class(-two63 - 1), mpz_class(two64 - 1),
                             mpz_class(1 - two64), two64, mpz_class(-two64), mpz_class(two64 * 3)})
    xs.emplace_back(z);
  xs.emplace_back(7, 2);
  xs.emplace_back(-1, 3);
  xs.emplace_back(two64 + 1, 5);
  for (Exact& x : xs) x.canonicalize();
  return xs;
}

Exact gen_number() {
  const auto pick = *rc::gen::inRange(0, 4);
  if (pick == 0) return *rc::gen::elementOf(edge_numbers());
  if (pick == 1) return Exact(static_cast<long>(*rc::gen::arbitrary<int64_t>()));
  Exact x(mpz_class(static_cast<long>(*rc::gen::arbitrary<int64_t>())) *
              static_cast<long>(*rc::gen::inRange<int64_t>(1, 1 << 30)),
          static_cast<unsigned long>(*rc::gen::inRange<int64_t>(1, pick == 2 ? 2 : 100)));
  x.canonicalize();
  return x;
}

std::optional<int64_t> gmp_s64(const Exact& x) {
  if (x.get_den() != 1 || !x.get_num().fits_slong_p()) return std::nullopt;
  return x.get_num().get_si();
}

TEST(SmallExact, EdgeNumbersAgreeWithGmp) {
  for (const Exact& a : edge_numbers()) {
    EXPECT_EQ(s64_of(a), gmp_s64(a)) << a.get_str();
    for (const Exact& b : edge_numbers()) {
      EXPECT_EQ(equal_exact(a, b), a == b) << a.get_str() << " " << b.get_str();
      Exact to = b;
      assign_exact(to, a);
      EXPECT_EQ(to, a) << a.get_str() << " over " << b.get_str();
      EXPECT_EQ(to.get_str(), a.get_str());
    }
  }
}

RC_GTEST_PROP(SmallExact, AssignCompareAndReadAsGmpDoes, ()) {
  const Exact a = gen_number(), b = gen_number();
  RC_ASSERT(s64_of(a) == gmp_s64(a));
  RC_ASSERT(equal_exact(a, b) == (a == b));
  RC_ASSERT(equal_exact(a, a));
  Exact to = b;  // storage of any size left by an earlier number
  assign_exact(to, a);
  RC_ASSERT(to == a);
  RC_ASSERT(to.get_str() == a.get_str());
  Exact fresh;  // no storage yet
  assign_exact(fresh, a);
  RC_ASSERT(fresh == a);
  const int64_t x = *rc::gen::arbitrary<int64_t>();
  Exact s = b;
  assign_s64(s, x);
  RC_ASSERT(s == Exact(static_cast<long>(x)));
  RC_ASSERT(s64_of(s) == std::optional<int64_t>(x));
  s = a;  // GMP goes on with what the inline forms left
  RC_ASSERT(s == a);
}

}  // namespace
}  // namespace vlag::trace
