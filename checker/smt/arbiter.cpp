#include "checker/smt/arbiter.h"

#include <z3++.h>

namespace vlag::checker::smt {

Verdict arbitrate(const Witness& w) {
  Verdict v;
  try {
    z3::context ctx;
    z3::solver solver(ctx);
    solver.from_string(smt_script(w, "arbiter", false).c_str());
    const z3::check_result r = solver.check();
    v.sat = r == z3::sat;
    if (v.sat) v.model = solver.get_model().to_string();
    if (r == z3::unknown) v.error = "z3: unknown (" + solver.reason_unknown() + ")";
  } catch (const z3::exception& e) {
    v.error = std::string("z3: ") + e.msg();
  }
  return v;
}

}  // namespace vlag::checker::smt
