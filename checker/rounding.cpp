#include "checker/rounding.h"

#include <algorithm>

#include "spec/weights.h"

namespace vlag::checker {
namespace {

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

// §7.3's lemma: vdelta of up to R ns is off the exact δ·N/w by less than 1 + R/2^20.
Exact vdelta_error(int64_t R) {
  Exact e = 1 + Exact(static_cast<long>(R), 1L << 20);
  e.canonicalize();
  return e;
}

}  // namespace

// Runs reach vdelta only through these checks' deadlines and lags, whose amounts are slices.
Exact Rounding::vruntime_bound(const View& view) const {
  if (!linux64()) return 0;
  const int64_t R =
      std::max({params_.tick_ns(), 2 * params_.base_slice_ns(), 2 * view.max_slice()});
  return 2 * vdelta_error(R);
}

Exact Rounding::place_tolerance(const View& view) const {
  return linux64() ? Exact(1 + 2 * vruntime_bound(view)) : Exact(0);
}

// d − v is off by less than (1 + 2B_v) + (2 + 3B_v) virtual ns per vdelta it sums.
Exact Rounding::deadline_slack(const View& view, const ViewEntity& v) const {
  Exact slack = (linux64() ? (3 + 5 * vruntime_bound(view)) * v.deadline_roundings : Exact(0)) *
                static_cast<long>(v.weight) / ex(kNice0Weight);
  slack.canonicalize();
  return slack;
}

Rounding::ReweightBounds Rounding::reweight(const View& view, const ViewEntity& before,
                                            const ViewEntity& after) const {
  ReweightBounds b;
  if (!linux64()) return b;
  const int64_t W_o = view.W() - after.weight;
  const Exact rho = ex(before.weight) / ex(after.weight);
  const Exact phi = 1 + ex(2 * after.weight) / ex(std::max<int64_t>(W_o, 1));
  const Exact B_v = 3 + phi * (1 + rho) * (vruntime_bound(view) / 2);
  b.V = 1 + B_v;
  b.wlag = (1 + 2 * B_v) * static_cast<long>(after.weight);
  b.compare_V = W_o != 0;
  return b;
}

}  // namespace vlag::checker
