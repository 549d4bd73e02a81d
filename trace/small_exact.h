// Exact numbers that are integers of one limb — every number of a Linux-arithmetic trace — set,
// compared and read inline, without a call into GMP; any other number goes to GMP as before.
// They touch an mpq_class's limbs through gmp.h's own struct fields only where the storage is
// there already (an allocated limb each for the numerator and the denominator), so that what
// GMP finds afterwards is the canonical number it would have made itself.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <optional>

namespace vlag::trace {

static_assert(sizeof(mp_limb_t) == sizeof(uint64_t) && GMP_NAIL_BITS == 0,
              "one limb holds the magnitude of an s64");

namespace small_exact_detail {

// z = ±magnitude (sign −1, 0 or 1) in z's one allocated limb.
inline void set_limb(__mpz_struct& z, int sign, uint64_t magnitude) {
  z._mp_d[0] = magnitude;
  z._mp_size = sign;
}

inline bool is_one(const __mpz_struct& z) { return z._mp_size == 1 && z._mp_d[0] == 1; }

}  // namespace small_exact_detail

/// x is an integer (denominator 1) whose magnitude fits one limb.
inline bool one_limb_integer(const mpq_class& x) {
  const __mpq_struct& q = *x.get_mpq_t();
  return small_exact_detail::is_one(q._mp_den) && q._mp_num._mp_size >= -1 &&
         q._mp_num._mp_size <= 1;
}

/// x as an s64, when it is an integer of 64 bits.
inline std::optional<int64_t> s64_of(const mpq_class& x) {
  if (one_limb_integer(x)) {
    const __mpz_struct& n = x.get_mpq_t()->_mp_num;
    if (n._mp_size == 0) return 0;
    const uint64_t m = n._mp_d[0];
    if (n._mp_size > 0) {
      if (m <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(m);
    } else if (m <= uint64_t{1} << 63) {
      return static_cast<int64_t>(0 - m);
    }
    return std::nullopt;
  }
  if (x.get_den() != 1 || !x.get_num().fits_slong_p()) return std::nullopt;
  return x.get_num().get_si();
}

/// to = x.
inline void assign_s64(mpq_class& to, int64_t x) {
  __mpq_struct& q = *to.get_mpq_t();
  if (q._mp_num._mp_alloc < 1 || q._mp_den._mp_alloc < 1) {
    to = static_cast<long>(x);
    return;
  }
  const uint64_t m = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  small_exact_detail::set_limb(q._mp_num, x < 0 ? -1 : (x > 0 ? 1 : 0), m);
  small_exact_detail::set_limb(q._mp_den, 1, 1);
}

/// to = from.
inline void assign_exact(mpq_class& to, const mpq_class& from) {
  __mpq_struct& q = *to.get_mpq_t();
  if (!one_limb_integer(from) || q._mp_num._mp_alloc < 1 || q._mp_den._mp_alloc < 1) {
    to = from;
    return;
  }
  const __mpz_struct& n = from.get_mpq_t()->_mp_num;
  small_exact_detail::set_limb(q._mp_num, n._mp_size, n._mp_size == 0 ? 0 : n._mp_d[0]);
  small_exact_detail::set_limb(q._mp_den, 1, 1);
}

/// a == b.
inline bool equal_exact(const mpq_class& a, const mpq_class& b) {
  if (one_limb_integer(a) && one_limb_integer(b)) {
    const __mpz_struct &x = a.get_mpq_t()->_mp_num, &y = b.get_mpq_t()->_mp_num;
    return x._mp_size == y._mp_size && (x._mp_size == 0 || x._mp_d[0] == y._mp_d[0]);
  }
  return a == b;
}

}  // namespace vlag::trace
