#include "smt/arbiter.h"

#include <z3++.h>

namespace vlag::smt {

Arbitration arbitrate(const std::string& script) {
  Arbitration v;
  try {
    z3::context ctx;
    z3::solver solver(ctx);
    solver.from_string(script.c_str());
    const z3::check_result r = solver.check();
    v.sat = r == z3::sat;
    if (v.sat) v.model = solver.get_model().to_string();
    if (r == z3::unknown) v.error = "z3: unknown (" + solver.reason_unknown() + ")";
  } catch (const z3::exception& e) {
    v.error = std::string("z3: ") + e.msg();
  }
  return v;
}

}  // namespace vlag::smt

namespace vlag::smt {

Answer solve(const std::string& script, const std::vector<std::string>& assumptions,
             const std::vector<std::string>& read) {
  Answer a;
  try {
    z3::context ctx;
    z3::solver solver(ctx);
    z3::params p(ctx);
    p.set("core.minimize", true);
    solver.set(p);
    solver.from_string(script.c_str());
    z3::expr_vector assume(ctx);
    for (const auto& name : assumptions) assume.push_back(ctx.bool_const(name.c_str()));
    const z3::check_result r = solver.check(assume);
    if (r == z3::unknown) {
      a.error = "z3: unknown (" + solver.reason_unknown() + ")";
      return a;
    }
    a.sat = r == z3::sat;
    if (a.sat) {
      const z3::model m = solver.get_model();
      for (const auto& name : read)
        a.values[name] = m.eval(ctx.int_const(name.c_str()), true).to_string();
    } else {
      const z3::expr_vector core = solver.unsat_core();
      for (unsigned i = 0; i < core.size(); ++i) a.core.push_back(core[i].to_string());
    }
  } catch (const z3::exception& e) {
    a.error = std::string("z3: ") + e.msg();
  }
  return a;
}

}  // namespace vlag::smt
