#include "checker/witness.h"

namespace vlag::checker {

std::string smt_literal(Sort sort, const trace::Exact& x) {
  if (sort == Sort::BitVec64) {
    // Two's complement of a value that the caller guarantees fits in 64 bits.
    mpz_class u = x.get_num();
    if (u < 0) u += mpz_class(1) << 64;
    return "(_ bv" + u.get_str() + " 64)";
  }
  const auto integer = [&](const mpz_class& z) {
    const std::string digits = mpz_class(abs(z)).get_str();
    const std::string lit = sort == Sort::Real ? digits + ".0" : digits;
    return z < 0 ? "(- " + lit + ")" : lit;
  };
  if (x.get_den() == 1) return integer(x.get_num());
  return "(/ " + integer(x.get_num()) + " " + integer(x.get_den()) + ")";
}

}  // namespace vlag::checker

namespace vlag::checker {
namespace {

const char* sort_name(Sort s) {
  switch (s) {
    case Sort::Int:
      return "Int";
    case Sort::Real:
      return "Real";
    case Sort::BitVec64:
      return "(_ BitVec 64)";
  }
  return "Real";
}

}  // namespace

std::string smt_script(const Witness& w, const std::string& origin, bool commands) {
  std::string s = "; " + origin + "\n; " + w.statement +
                  "\n; sat: the values below, taken from the trace, violate it.\n";
  for (const auto& c : w.consts) s += "(declare-const " + c.name + " " + sort_name(c.sort) + ")\n";
  for (const auto& [name, sort] : w.derived)
    s += "(declare-const " + name + " " + sort_name(sort) + ")\n";
  s += "; values from the trace\n";
  for (const auto& c : w.consts)
    s += "(assert (= " + c.name + " " + smt_literal(c.sort, c.value) + "))\n";
  if (!w.definitions.empty()) s += "; definitions (SPEC.md section 2)\n";
  for (const auto& d : w.definitions) s += "(assert " + d + ")\n";
  s += "; the violation\n(assert " + w.claim + ")\n";
  if (commands) s += "(check-sat)\n(get-model)\n";
  return s;
}

}  // namespace vlag::checker
