#include "checker/deadline_range.h"

#include "spec/weights.h"
#include "trace/small_exact.h"

namespace vlag::checker {
namespace {

std::optional<__int128> as_int(const mpz_class& z) {
  if (!z.fits_slong_p()) return std::nullopt;
  return z.get_si();
}

mpz_class floor_of(const Exact& x) {
  mpz_class f;
  mpz_fdiv_q(f.get_mpz_t(), x.get_num_mpz_t(), x.get_den_mpz_t());
  return f;
}

mpz_class ceil_of(const Exact& x) {
  mpz_class c;
  mpz_cdiv_q(c.get_mpz_t(), x.get_num_mpz_t(), x.get_den_mpz_t());
  return c;
}

}  // namespace

// rules::deadline_holds, multiplied through by N: with s = 0, 0 < rest ≤ ρ is 1 ≤ x ≤ ⌊Nρ⌋;
// otherwise −s < rest < ρ + s is ⌊−Ns⌋ + 1 ≤ x ≤ ⌈N(ρ + s)⌉ − 1.
auto DeadlineRanges::range(const ViewEntity& v, const View& view) -> const Range& {
  const int64_t longest = view.max_slice();
  const auto fits = [&](const Range& r) {
    return r.max_slice == longest && r.weight == v.weight && r.roundings == v.deadline_roundings &&
           trace::equal_exact(r.request, *v.request);
  };
  // The range of the entity before is the most likely: an entity runs for many events.
  if (fits(ranges_[last_])) return ranges_[last_];
  for (size_t i = 0; i < ranges_.size(); ++i)
    if (fits(ranges_[i])) return ranges_[last_ = i];
  last_ = next_++ % ranges_.size();
  Range& r = ranges_[last_];
  r.request = *v.request;
  r.roundings = v.deadline_roundings;
  r.weight = v.weight;
  r.max_slice = longest;
  const Exact N(static_cast<long>(kNice0Weight));
  const Exact slack = rounding_.deadline_slack(view, v);
  if (slack == 0) {
    r.lo = 1;
    r.hi = as_int(floor_of(N * *v.request));
  } else {
    const auto lo = as_int(floor_of(-N * slack));
    r.lo = lo ? std::optional<__int128>(*lo + 1) : std::nullopt;
    const auto hi = as_int(ceil_of(N * (*v.request + slack)));
    r.hi = hi ? std::optional<__int128>(*hi - 1) : std::nullopt;
  }
  return r;
}

bool DeadlineRanges::holds(const ViewEntity& v, const View& view) {
  const std::optional<int64_t>&d = v.d64, &vr = v.v64;
  if (!d || !vr) return false;
  const Range& r = range(v, view);
  if (!r.lo || !r.hi) return false;
  const __int128 x = (static_cast<__int128>(*d) - *vr) * v.weight;
  return *r.lo <= x && x <= *r.hi;
}

}  // namespace vlag::checker
