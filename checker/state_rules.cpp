#include "checker/state_rules.h"

#include <fmt/format.h>

#include "checker/checker_bug.h"
#include "rules/invariants.h"
#include "spec/properties.h"
#include "spec/weights.h"
#include "trace/small_exact.h"

namespace vlag::checker {
namespace {

using trace::EventKind;

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

std::string str(const Exact& x) { return x.get_str(); }

bool about_running(EventKind k) {
  return k == EventKind::Run || k == EventKind::Tick || k == EventKind::Yield;
}

const int64_t kS64Max = INT64_MAX;

// rules::kernel_sums from the view's sums in O(1): the tree is Q without curr, and
// Σ w·(v − v0) = Σ w·v − v0·Σ w.
rules::KernelSums queue_kernel_sums(const View& view, const Exact& v0) {
  rules::KernelSums k;
  const ViewEntity* c = view.curr ? view.find(*view.curr) : nullptr;
  Exact tree_wv = view.weighted_vruntimes();
  k.sum_w = view.W();
  if (c && in_queue(*c)) {
    k.curr_w = c->weight;
    k.curr_wv = (c->vruntime - v0) * static_cast<long>(c->weight);
    tree_wv -= c->vruntime * static_cast<long>(c->weight);
    k.sum_w -= c->weight;
  }
  k.sum_wv = tree_wv - v0 * static_cast<long>(k.sum_w);
  return k;
}

}  // namespace

void StateRules::audit(const View& view) const {
  const Exact V = view.V();
  const ViewState s(view, params_, V);
  const Exact sum = V * static_cast<long>(view.W()) - view.weighted_vruntimes();
  if (sum != rules::lag_sum(s, V))
    throw CheckerBug(fmt::format("INV-LAG-SUM's sum from the view's sums is {} where {} gives {}",
                                 str(sum), "rules::lag_sum", str(rules::lag_sum(s, V))));
  const rules::KernelSums fast = queue_kernel_sums(view, V), full = rules::kernel_sums(s, V);
  if (fast.sum_w != full.sum_w || fast.sum_wv != full.sum_wv || fast.curr_w != full.curr_w ||
      fast.curr_wv != full.curr_wv)
    throw CheckerBug(fmt::format(
        "the kernel's sums from the view's sums are sum_w {} sum_wv {} where rules::kernel_sums "
        "gives {} and {}",
        fast.sum_w, str(fast.sum_wv), full.sum_w, str(full.sum_wv)));
}

std::optional<std::string> StateRules::step(const trace::Event& e, const Shadow& shadow) {
  out_.checked(ids::kInvStep);
  const auto mismatch = [&](const char* field, const Exact& got, const Exact& want) {
    out_.violate(
        ids::kInvStep,
        fmt::format("field '{}' is {} where the spec's step gives {}", field, str(got), str(want)),
        step_field_witness(field, got, want));
    return std::optional<std::string>(fmt::format("field '{}'", field));
  };
  const EntityId id = e.entity().value_or(0);
  const bool about =
      e.entity() && shadow.has(id) && (!about_running(e.kind) || shadow.curr() == e.entity());
  const trace::EntityFields& s = e.state;
  if (about) {
    const ShadowEntity& r = shadow.entity(id);
    if (s.weight && *s.weight != r.weight) return mismatch("w", ex(*s.weight), ex(r.weight));
    if (s.slice && *s.slice != r.slice) return mismatch("r", ex(*s.slice), ex(r.slice));
    if (s.vruntime && !trace::equal_exact(*s.vruntime, r.vruntime))
      return mismatch("v", *s.vruntime, r.vruntime);
    if (s.deadline && !trace::equal_exact(*s.deadline, r.deadline))
      return mismatch("d", *s.deadline, r.deadline);
    if (s.vlag && !trace::equal_exact(*s.vlag, r.vlag)) return mismatch("vlag", *s.vlag, r.vlag);
    if (s.status && *s.status != r.status)
      return mismatch("status", ex(static_cast<int>(*s.status)), ex(static_cast<int>(r.status)));
  }
  if (e.V && !trace::equal_exact(*e.V, shadow.V())) return mismatch("V", *e.V, shadow.V());
  if (e.W && *e.W != shadow.W()) return mismatch("W", ex(*e.W), ex(shadow.W()));
  return std::nullopt;
}

// Σ w_i·(V − v_i) = V·W − Σ w_i·v_i = 0 with the reported V and W = Σ w_i, from the view's sums
// in O(1); integer producers floor V (SPEC.md §7): then −W < Σ w_i·(V − v_i) ≤ 0. On a
// Linux-arithmetic trace every value is an s64 and the 128-bit form decides; the exact sum
// decides and explains otherwise.
void StateRules::lag_sum(const trace::Event& e, const View& view) {
  if (!e.V || !e.W) return;
  const int64_t W = view.W();
  if (W == 0 && *e.W == 0) return;
  out_.checked(ids::kInvLagSum);
  const std::optional<__int128> wv = view.small_weighted_vruntimes();
  const std::optional<int64_t> V64 = trace::s64_of(*e.V);
  if (*e.W == W && wv && V64) {
    const __int128 sum = static_cast<__int128>(*V64) * W - *wv;
    if (sum <= 0 && sum > -static_cast<__int128>(W)) return;
  }
  const Exact sum = *e.V * static_cast<long>(W) - view.weighted_vruntimes();
  const bool integers = e.V->get_den() == 1 && view.integer_vruntimes();
  const bool ok = *e.W == W && (integers ? (sum <= 0 && sum > -ex(W)) : sum == 0);
  if (ok) return;
  out_.violate(ids::kInvLagSum,
               fmt::format("reported V={} W={} but the queued entities give sum w(V-v)={} and W={}",
                           str(*e.V), *e.W, str(sum), W),
               lag_sum_witness(view, *e.V, *e.W, integers));
}

// The kernel's bookkeeping against its own entities: its tree's Σ w and Σ w·(v − v0), and V as
// avg_vruntime computes it from them (SPEC.md §6). The entities are those the trace shows
// queued; when the event's nr says the trace does not show them all, it is not judged. The
// sums come from the view's in O(1): the tree is Q without curr, Σ w·(v − v0) = Σ w·v − v0·Σ w.
void StateRules::kernel_sums(const trace::Event& e, const View& view) {
  const trace::KernelSums& k = e.kernel;
  if (!k.sum_w && !k.sum_wv) return;
  if (e.nr_queued && view.queued() != *e.nr_queued) {
    if (sums_unjudged_++ == 0) sums_unjudged_line_ = out_.line();
    return;
  }
  out_.checked(ids::kInvKernelSums);
  const Exact v0 = k.v0.value_or(0);  // sum_w alone needs no reference point
  const rules::KernelSums want = queue_kernel_sums(view, v0);
  std::string wrong;
  if (k.sum_w && *k.sum_w != want.sum_w)
    wrong = fmt::format("sum_w {} where the tree's entities give {}", *k.sum_w, want.sum_w);
  else if (k.sum_wv && *k.sum_wv != want.sum_wv)
    wrong = fmt::format("sum_wv {} where the tree's entities give {}", str(*k.sum_wv),
                        str(want.sum_wv));
  std::optional<Exact> V_kernel;
  if (wrong.empty() && e.V && k.sum_w && k.sum_wv) {
    V_kernel = rules::kernel_avg_vruntime(v0, *k.sum_w, *k.sum_wv, want.curr_w, want.curr_wv);
    if (*V_kernel != *e.V)
      wrong =
          fmt::format("V {} where avg_vruntime of the sums gives {}", str(*e.V), str(*V_kernel));
  }
  if (wrong.empty()) return;
  out_.violate(ids::kInvKernelSums, "the kernel's " + wrong, kernel_sums_witness(view, e));
}

void StateRules::finish() {
  if (sums_unjudged_ > 0)
    out_.note(fmt::format(
        "{}: {} not judged at {} event(s), the first at line {}: their nr is not the number of "
        "entities the trace shows queued",
        out_.file(), ids::kInvKernelSums, sums_unjudged_, sums_unjudged_line_));
}

void StateRules::deadline(const ViewEntity& v, const View& view) {
  if (v.status != Status::Queued || !v.request) return;
  out_.checked(ids::kInvDeadline);
  // The integer form decides; every kAuditPeriod-th of its verdicts the exact rule confirms.
  const bool by_range = deadline_ranges_.holds(v, view);
  if (by_range && ++deadlines_by_range_ % View::kAuditPeriod != 0) return;
  const Exact rest = rules::remaining_request(v);
  const Exact slack = rounding_.deadline_slack(view, v);
  if (rules::deadline_holds(rest, *v.request, slack)) return;
  if (by_range)
    throw CheckerBug(
        fmt::format("{}'s integer form holds for {} where the rule does not: "
                    "remaining request {} ns, request {}, slack {}",
                    ids::kInvDeadline, entity_label(v), str(rest), str(*v.request), str(slack)));
  out_.violate(
      ids::kInvDeadline,
      fmt::format("{} remaining request {} ns not in (0, {}]{}", entity_label(v), str(rest),
                  str(*v.request),
                  slack == 0 ? "" : " widened by the rounding bound " + str(slack) + " ns"),
      deadline_witness(v, slack),
      promised(ids::kInvDeadline, params_.preset, {.request_rescaled = v.deadline_rescaled}));
}

void StateRules::place(const ViewEntity& before, const ViewEntity& after, const Exact& V_after,
                       int64_t W_before, const View& view) {
  out_.checked(ids::kInvPlaceLag);
  const Exact expect =
      rules::expected_place_lag(params_.preset, before.vlag, W_before, after.weight);
  const Exact got = V_after - after.vruntime;
  const Exact B = rounding_.place_tolerance(view);
  if (rules::within(got, expect, B)) return;
  out_.violate(ids::kInvPlaceLag,
               fmt::format("{} saved vlag {}: expected V-v={}, got {}{}", entity_label(after),
                           str(before.vlag), str(expect), str(got),
                           B == 0 ? "" : " (beyond the rounding bound " + str(B) + ")"),
               place_witness(V_after, after.vruntime, expect, B));
}

// Unless the clamp cut the lag: the reweight then moves V on purpose (§4.8).
void StateRules::reweight(const ViewEntity& before, const ViewEntity& after, const Exact& V_before,
                          const Exact& V_after, const View& view) {
  if (rules::clamp_cuts(params_, before.slice, view.max_queued_slice(), before.weight,
                        V_before - before.vruntime))
    return;
  out_.checked(ids::kInvReweight);
  const bool promised =
      vlag::promised(ids::kInvReweight, params_.preset, {.entity_is_curr = view.curr == after.id});
  const Exact lag_b = (V_before - before.vruntime) * static_cast<long>(before.weight);
  const Exact lag_a = (V_after - after.vruntime) * static_cast<long>(after.weight);
  const Rounding::ReweightBounds B = rounding_.reweight(view, before, after);
  if (rules::check_reweight(B.compare_V, V_before, V_after, lag_b, lag_a, B.V, B.wlag).holds())
    return;
  out_.violate(
      ids::kInvReweight,
      fmt::format(
          "reweight of {} moved V from {} to {} (w*vlag {} -> {}){}", entity_label(after),
          str(V_before), str(V_after), str(lag_b), str(lag_a),
          B.V == 0 ? ""
                   : fmt::format(" beyond the rounding bounds {} and {}", str(B.V), str(B.wlag))),
      reweight_witness(V_before, V_after, lag_b, lag_a, B.V, B.wlag, B.compare_V), promised);
}

// A preset without the clamp (paper) is judged as well, its lags beyond the limit counted as not
// promised (SPEC.md §6), as the reference counts them. DELAY_ZERO's vl <= 0 is exact in Linux
// arithmetic too: Linux zeroes a positive lag of its own.
void StateRules::saved_lag(const ViewEntity& v, bool from_delayed, const View& view) {
  out_.checked(ids::kInvLagClamp);
  const Exact B = rounding_.saved_lag_tolerance(view);
  const rules::SavedLagCheck c = rules::check_saved_lag(params_, v.slice, view.max_queued_slice(),
                                                        v.weight, v.vlag, from_delayed, B);
  if (c.holds()) return;
  const bool zero = from_delayed && params_.preset.has(Feature::DELAY_ZERO);
  out_.violate(ids::kInvLagClamp,
               fmt::format("{} saved vlag {} beyond {}{}{}", entity_label(v), str(v.vlag),
                           str(c.limit), B == 0 ? "" : " + the rounding bound " + str(B),
                           zero ? " or positive after a delayed dequeue" : ""),
               saved_lag_witness(v, params_, view.max_queued_slice(), zero, B),
               promised(ids::kInvLagClamp, params_.preset, {.only_delay_zero = c.within_limit}));
}

// INV-S64-MARGIN in integers where every queued vruntime is an s64: with key_max = v_max − v_min,
// key_max·W within s64 bounds every key, key·w and key·W, and Σ key·w = Σ w·v − v_min·W. Counts
// the check when it decides (it holds), else leaves both to the exact walk.
bool StateRules::s64_margins_hold(const View& view) {
  const std::optional<__int128> wv = view.small_weighted_vruntimes();
  if (!wv || view.queued() == 0) return false;
  int64_t vmin = INT64_MAX, vmax = INT64_MIN;
  for (const auto& [id, v] : view.entities()) {
    if (!in_queue(v)) continue;
    const int64_t x = *v.v64;
    vmin = std::min(vmin, x);
    vmax = std::max(vmax, x);
  }
  const __int128 key_max = static_cast<__int128>(vmax) - vmin;
  const __int128 sum = *wv - static_cast<__int128>(vmin) * view.W();
  if (key_max * view.W() > kS64Max || sum > kS64Max) return false;
  out_.checked(ids::kInvS64Margin);
  return true;
}

// The products and sums Linux keeps in s64 (SPEC.md §7) — key_i·w_i, their sum, and key_i·W in
// the eligibility test, with key_i = ⌊v_i − v_min⌋ — fit in 64 bits.
void StateRules::s64_margins(const View& view) {
  if (s64_margins_hold(view)) return;
  const auto& all = view.entities();
  std::optional<Exact> vmin;
  for (const auto& [id, v] : all)
    if (in_queue(v) && (!vmin || v.vruntime < *vmin)) vmin = v.vruntime;
  if (!vmin) return;
  out_.checked(ids::kInvS64Margin);
  const mpz_class limit = mpz_class(kS64Max);
  const int64_t W = view.W();
  mpz_class sum = 0;
  for (const auto& [id, v] : all) {
    if (!in_queue(v)) continue;
    const Exact diff = v.vruntime - *vmin;
    mpz_class key;
    mpz_fdiv_q(key.get_mpz_t(), diff.get_num_mpz_t(), diff.get_den_mpz_t());
    const mpz_class prod = key * v.weight, prod_W = key * W;
    sum += prod;
    const bool key_fits = key <= limit;
    if (key_fits && prod <= limit && prod_W <= limit) continue;
    out_.violate(ids::kInvS64Margin,
                 fmt::format("{}: key {} times weight {} (or W {}) overflows s64", entity_label(v),
                             key.get_str(), v.weight, W),
                 s64_product_witness(key, key_fits, prod > limit ? v.weight : W));
    return;
  }
  if (sum <= limit) return;
  out_.violate(ids::kInvS64Margin, "the weighted key sum " + sum.get_str() + " overflows s64",
               s64_sum_witness(sum));
}

}  // namespace vlag::checker
