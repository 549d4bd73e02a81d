// The arbiter of `vlag check` (smt/arbiter.h) on scripts small enough to decide by hand: a
// satisfiable claim with its model, an unsatisfiable one, a script Z3 cannot parse, and the
// unsat core and model values that `vlag check --infer` reads.
#include "smt/arbiter.h"

#include <gtest/gtest.h>

namespace vlag::smt {
namespace {

TEST(Arbiter, SatisfiableScriptGivesItsModel) {
  const Arbitration a = arbitrate("(declare-const x Int) (assert (= (* 2 x) 6))");
  EXPECT_TRUE(a.sat);
  EXPECT_TRUE(a.error.empty()) << a.error;
  EXPECT_NE(a.model.find("3"), std::string::npos) << a.model;
}

TEST(Arbiter, UnsatisfiableScriptIsNotConfirmed) {
  const Arbitration a = arbitrate("(declare-const v Real) (assert (< v 0)) (assert (> v 0))");
  EXPECT_FALSE(a.sat);
  EXPECT_TRUE(a.error.empty()) << a.error;
}

TEST(Arbiter, ScriptThatDoesNotParseIsAnError) {
  const Arbitration a = arbitrate("(assert (< y 0))");  // y undeclared
  EXPECT_FALSE(a.sat);
  EXPECT_NE(a.error.find("z3: "), std::string::npos) << a.error;
}

TEST(Arbiter, SolveReadsValuesOrTheUnsatCore) {
  const std::string script =
      "(declare-const w Int) (declare-const p1 Bool) (declare-const p2 Bool) (declare-const p3 "
      "Bool)"
      " (assert (=> p1 (> w 10))) (assert (=> p2 (< w 5))) (assert (=> p3 (> w 0)))";
  const Answer one = solve(script, {"p1", "p3"}, {"w"});
  ASSERT_TRUE(one.sat) << one.error;
  EXPECT_GT(std::stoll(one.values.at("w")), 10);
  const Answer both = solve(script, {"p1", "p2", "p3"}, {"w"});
  ASSERT_TRUE(both.error.empty()) << both.error;
  EXPECT_FALSE(both.sat);
  EXPECT_EQ(both.core.size(), 2u);  // p1 and p2; p3 is not needed (core.minimize)
  for (const auto& name : both.core) EXPECT_NE(name, "p3");
}

}  // namespace
}  // namespace vlag::smt
