#include "kernel/state/smt_witness.h"

#include <fmt/format.h>

#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

using checker::Sort;

constexpr char kS64Max[] = "9223372036854775807";
constexpr char kS64Min[] = "(- 9223372036854775808)";

// x as the kernel's s64 holds it: ((x + 2^63) mod 2^64) - 2^63.
std::string wrap(const std::string& x) {
  return "(- (mod (+ " + x + " 9223372036854775808) 18446744073709551616) 9223372036854775808)";
}

// (s64)(a - b): how the kernel compares and keys its u64 vruntimes and deadlines.
std::string key(const std::string& a, const std::string& b) {
  return wrap("(- " + a + " " + b + ")");
}

void add_int(SmtWitness& w, const std::string& name, __int128 x) {
  w.add(name, Sort::Int, exact_of(x));
}

// v_X, d_X and w_X (scaled down, as the kernel sums it) of one entity, and its key
// kv_X = (s64)(v_X - v0).
void add_entity(SmtWitness& w, const std::string& x, const bpf::QueuedEntity& e) {
  add_int(w, "v_" + x, e.vruntime);
  add_int(w, "d_" + x, e.deadline);
  add_int(w, "w_" + x, scale_down(e.weight));
  w.derived.push_back({"kv_" + x, Sort::Int});
  w.definitions.push_back("(= kv_" + x + " " + key("v_" + x, "v0") + ")");
}

// The pick's cfs_rq: v0, sum_wv, sum_w from the record, the pick as entity p, and avg, load and
// V as avg_vruntime() computes them with the pick as curr (SPEC.md §6, INV-KERNEL-SUMS).
SmtWitness pick_base(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked) {
  SmtWitness w;
  add_int(w, "v0", q.zero_vruntime);
  add_int(w, "sum_wv", q.sum_w_vruntime);
  add_int(w, "sum_w", q.sum_weight);
  add_entity(w, "p", picked);
  for (const char* name : {"avg", "load", "kV"}) w.derived.push_back({name, Sort::Int});
  w.definitions.push_back("(= avg (+ sum_wv (* w_p kv_p)))");
  w.definitions.push_back("(= load (+ sum_w w_p))");
  w.definitions.push_back("(= kV (div avg load))");  // V - v0; div floors for load > 0
  return w;
}

// vruntime_eligible(): avg >= (s64)(v - v0) * load.
std::string eligible(const std::string& x) { return fmt::format("(>= avg (* kv_{} load))", x); }

}  // namespace

trace::Exact exact_of(__int128 x) {
  const bool negative = x < 0;
  const unsigned __int128 m =
      negative ? -static_cast<unsigned __int128>(x) : static_cast<unsigned __int128>(x);
  mpz_class z(static_cast<unsigned long>(m >> 64));
  z <<= 64;
  z += static_cast<unsigned long>(m);
  return trace::Exact(negative ? mpz_class(-z) : z);
}

SmtWitness pick_ineligible_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked) {
  SmtWitness w = pick_base(q, picked);
  w.statement = std::string(ids::kInvPickEligible) +
                ": the pick p is eligible, avg >= (v_p - v0)*load (vruntime_eligible)";
  w.claim = "(not " + eligible("p") + ")";
  return w;
}

SmtWitness pick_edf_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked,
                        const bpf::QueuedEntity& earlier) {
  SmtWitness w = pick_base(q, picked);
  add_entity(w, "e", earlier);
  w.statement = std::string(ids::kInvPickEdf) +
                ": no eligible entity e of the tree has an earlier deadline than the pick p (the "
                "pick was not the next buddy)";
  w.claim = fmt::format("(and {} {} (< {} 0))", eligible("p"), eligible("e"), key("d_e", "d_p"));
  return w;
}

SmtWitness kernel_sums_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked,
                           const std::vector<bpf::QueuedEntity>& tree) {
  SmtWitness w = pick_base(q, picked);
  add_int(w, "nr_queued", q.nr_queued);
  std::string tree_w = "(+ 0", tree_wv = "(+ 0";
  for (size_t i = 0; i < tree.size(); ++i) {
    const std::string x = std::to_string(i);
    add_entity(w, x, tree[i]);
    tree_w += " w_" + x;
    tree_wv += fmt::format(" (* w_{0} kv_{0})", x);
  }
  add_int(w, "tree_n", static_cast<__int128>(tree.size()));
  w.statement = std::string(ids::kInvKernelSums) +
                ": sum_w = sum w_i and sum_wv = sum w_i*(v_i - v0) over the tree (the pick p is "
                "curr, outside it), nr_queued = the tree's entities + 1";
  w.claim =
      fmt::format("(or (not (= sum_w {})) (not (= sum_wv {})) (not (= nr_queued (+ tree_n 1))))",
                  tree_w + ")", wrap(tree_wv + ")"));
  return w;
}

SmtWitness delayed_pick_smt() {
  SmtWitness w;
  w.statement = std::string(ids::kInvDelay) + ": a pick is never delayed (se->sched_delayed)";
  add_int(w, "sched_delayed", 1);
  w.claim = "(= sched_delayed 1)";
  return w;
}

SmtWitness s64_smt(const char* what, __int128 a, __int128 b) {
  SmtWitness w;
  w.statement = std::string(ids::kInvS64Margin) + ": " + what + " = a*b fits the kernel's s64";
  add_int(w, "a", a);
  add_int(w, "b", b);
  w.claim = fmt::format("(or (> (* a b) {}) (< (* a b) {}))", kS64Max, kS64Min);
  return w;
}

SmtWitness lag_bound_smt(const bpf::CfsRqState& q, const bpf::QueuedEntity& picked,
                         const bpf::QueuedEntity& e, int64_t tick, bool lower) {
  SmtWitness w = pick_base(q, picked);
  add_entity(w, "k", e);
  add_int(w, "r_k", e.slice);
  add_int(w, "tick", tick);
  w.statement = std::string(ids::kThmLagBoundLinux) +
                ": -(r_k + TICK) <= lag_k <= r_k + TICK, lag_k = w_k*(V' - v_k)/1024 with V' the "
                "exact average, V <= V' < V + 1";
  w.derived.push_back({"lag_k", Sort::Int});  // (V - v_k)*w_k, V floored
  w.definitions.push_back("(= lag_k (* w_k " + wrap("(- kV kv_k)") + "))");
  w.claim =
      lower ? "(< (+ lag_k w_k) (* (- 1024) (+ r_k tick)))" : "(> lag_k (* 1024 (+ r_k tick)))";
  return w;
}

SmtWitness deadline_smt(const bpf::QueuedEntity& e, uint64_t request, int64_t bound) {
  SmtWitness w;
  add_int(w, "v", e.vruntime);
  add_int(w, "d", e.deadline);
  add_int(w, "r", request);
  add_int(w, "vdelta_r", bound);
  w.derived.push_back({"rest", Sort::Int});
  w.definitions.push_back("(= rest " + key("d", "v") + ")");
  w.statement = std::string(ids::kInvDeadline) +
                ": 0 < d - v <= vdelta_r, vdelta_r = calc_delta_fair(r, w) as the kernel "
                "computes it for the entity's weight";
  w.claim = "(or (<= rest 0) (> rest vdelta_r))";
  return w;
}

SmtWitness saved_lag_smt(const bpf::QueuedEntity& e, int64_t span, int64_t limit) {
  SmtWitness w;
  add_int(w, "vlag", e.vlag);
  add_int(w, "span", span);
  add_int(w, "limit", limit);
  w.statement = std::string(ids::kInvLagClamp) +
                ": |vlag| <= limit, limit = calc_delta_fair(span, w) as the kernel computes it";
  w.claim = "(or (> vlag limit) (< vlag (- limit)))";
  return w;
}

SmtWitness became_delayed_smt(const Average& a, const bpf::QueuedEntity& e) {
  SmtWitness w;
  add_int(w, "v0", a.v0);
  add_int(w, "avg", a.avg);
  add_int(w, "load", a.load);
  add_int(w, "v_p", e.vruntime);
  w.derived.push_back({"kv_p", Sort::Int});
  w.definitions.push_back("(= kv_p " + key("v_p", "v0") + ")");
  w.statement = std::string(ids::kInvDelay) +
                ": an entity p becomes delayed only while not eligible (avg, load: its cfs_rq's "
                "sums at the dequeue, p included)";
  w.claim = eligible("p");
  return w;
}

SmtWitness place_lag_smt(const Average& after, const bpf::QueuedEntity& e,
                         const trace::Exact& expected) {
  SmtWitness w;
  add_int(w, "v0", after.v0);
  add_int(w, "avg", after.avg);
  add_int(w, "load", after.load);
  add_int(w, "v", e.vruntime);
  w.add("expected", Sort::Real, expected);
  w.derived.push_back({"lag", Sort::Real});
  w.definitions.push_back("(= lag (- (/ (to_real avg) (to_real load)) (to_real " + key("v", "v0") +
                          ")))");
  w.statement = std::string(ids::kInvPlaceLag) +
                ": the wakee's lag after joining is the lag it saved within 2 (avg, load: the "
                "cfs_rq's sums after the join, curr included)";
  w.claim = "(or (>= (- lag expected) 2.0) (<= (- lag expected) (- 2.0)))";
  return w;
}

SmtWitness kept_vlag_smt(int64_t at_wakeup, int64_t saved) {
  SmtWitness w;
  add_int(w, "vlag_wakeup", at_wakeup);
  add_int(w, "vlag_saved", saved);
  w.statement = std::string(ids::kInvPlaceLag) +
                ": a wakee's vlag is the one its dequeue saved (its weight unchanged)";
  w.claim = "(not (= vlag_wakeup vlag_saved))";
  return w;
}

}  // namespace vlag::kernel::state
