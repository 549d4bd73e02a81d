#include "rules/invariants.h"

#include "rules/saved_lag.h"

namespace vlag::rules {

// δ·N fits in 64 bits for every δ the model takes (at most 2^50 ns a step): one division.
Exact exact_vdelta(int64_t delta_ns, int64_t weight) {
  Exact x(static_cast<long>(delta_ns * kNice0Weight), static_cast<long>(weight));
  x.canonicalize();
  return x;
}

Exact lag_limit(const Params& p, int64_t slice, int64_t queue_max_slice, int64_t weight) {
  return exact_vdelta(lag_clamp_ns(p, slice, queue_max_slice), weight);
}

bool clamp_cuts(const Params& p, int64_t slice, int64_t queue_max_slice, int64_t weight,
                const Exact& lag) {
  return p.preset.clamp != LagClamp::None &&
         abs(lag) > lag_limit(p, slice, queue_max_slice, weight);
}

bool within(const Exact& got, const Exact& want, const Exact& tolerance) {
  return tolerance == 0 ? got == want : abs(got - want) < tolerance;
}

bool deadline_holds(const Exact& rest, const Exact& request, const Exact& slack) {
  return slack == 0 ? rest > 0 && rest <= request : rest > -slack && rest < request + slack;
}

Exact kernel_avg_vruntime(const Exact& v0, int64_t sum_w, const Exact& sum_wv, int64_t curr_w,
                          const Exact& curr_wv) {
  const int64_t load = sum_w + curr_w;
  if (load == 0) return v0;
  const Exact avg = (sum_wv + curr_wv) / Exact(static_cast<long>(load));
  mpz_class floor;
  mpz_fdiv_q(floor.get_mpz_t(), avg.get_num_mpz_t(), avg.get_den_mpz_t());
  return v0 + Exact(floor);
}

bool pick_exempt(const Preset& p, EntityId picked, std::optional<EntityId> curr_before,
                 bool curr_protected, std::optional<EntityId> next_before) {
  return (curr_before == picked && curr_protected) ||
         (next_before == picked && p.has(Feature::PICK_BUDDY));
}

Exact expected_place_lag(const Preset& p, const Exact& saved, int64_t W_before, int64_t weight) {
  Exact expect = 0;
  if (p.has(Feature::PLACE_LAG) && W_before != 0) {
    expect = saved;
    if (p.join == JoinRule::Paper)
      expect = expect * static_cast<long>(W_before) / static_cast<long>(W_before + weight);
  }
  expect.canonicalize();
  return expect;
}

ReweightCheck check_reweight(bool compare_V, const Exact& V_before, const Exact& V_after,
                             const Exact& wlag_before, const Exact& wlag_after,
                             const Exact& V_tolerance, const Exact& wlag_tolerance) {
  return {compare_V && !within(V_after, V_before, V_tolerance),
          !within(wlag_after, wlag_before, wlag_tolerance)};
}

SavedLagCheck check_saved_lag(const Params& p, int64_t slice, int64_t queue_max_slice,
                              int64_t weight, const Exact& vlag, bool from_delayed,
                              const Exact& tolerance) {
  SavedLagCheck c;
  c.limit = lag_limit(p, slice, queue_max_slice, weight);
  c.within_limit = tolerance == 0 ? abs(vlag) <= c.limit : abs(vlag) < c.limit + tolerance;
  c.positive_after_delay = from_delayed && p.preset.has(Feature::DELAY_ZERO) && vlag > 0;
  return c;
}

}  // namespace vlag::rules
