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
