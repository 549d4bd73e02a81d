#include "checker/witness.h"

#include <fmt/format.h>

#include "checker/view.h"
#include "smt/arbiter.h"
#include "spec/properties.h"

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

Arbitrated arbitrate(const Witness& w) {
  const smt::Arbitration a = smt::arbitrate(smt_script(w, "arbiter", false));
  return {a.sat, a.error};
}

}  // namespace vlag::checker

namespace vlag::checker {
namespace {

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

// An entity's constant: w_3, v_m2 (a negative id's m).
std::string name_of(const char* prefix, EntityId id) {
  return fmt::format("{}_{}{}", prefix, id < 0 ? "m" : "", id < 0 ? -id : id);
}

}  // namespace

Witness queue_witness(const View& view, const Exact* V_reported) {
  Witness w;
  std::string sum_w = "(+ 0", sum_wv = "(+ 0.0";
  for (const auto& [id, e] : view.entities()) {
    if (!in_queue(e)) continue;
    const std::string wn = name_of("w", id), vn = name_of("v", id), dn = name_of("d", id);
    w.add(wn, Sort::Int, ex(e.weight));
    w.add(vn, Sort::Real, e.vruntime);
    w.add(dn, Sort::Real, e.deadline);
    sum_w += " " + wn;
    sum_wv += fmt::format(" (* {} {})", wn, vn);
  }
  w.derived.push_back({"W", Sort::Int});
  w.definitions.push_back("(= W " + sum_w + "))");
  if (V_reported) {
    w.add("V_reported", Sort::Real, *V_reported);
  } else {
    w.derived.push_back({"V", Sort::Real});
    w.definitions.push_back("(= (* V W) " + sum_wv + "))");
  }
  return w;
}

Witness idle_pick_witness(const View& view) {
  Witness w = queue_witness(view, nullptr);
  w.statement = std::string(ids::kInvPickEligible) +
                ": pick_next_entity returns an entity when Q is not empty";
  w.claim = "(> W 0)";
  return w;
}

Witness ineligible_pick_witness(const View& view, EntityId picked) {
  Witness w = queue_witness(view, nullptr);
  w.statement = std::string(ids::kInvPickEligible) + ": the picked entity p has v_p <= V";
  w.claim = "(> " + name_of("v", picked) + " V)";
  return w;
}

Witness edf_witness(const View& view, EntityId picked, EntityId earlier) {
  Witness w = queue_witness(view, nullptr);
  w.statement = std::string(ids::kInvPickEdf) +
                ": no eligible entity e has an earlier deadline than the picked p";
  w.claim = fmt::format("(and (<= {} V) (<= {} V) (< {} {}))", name_of("v", picked),
                        name_of("v", earlier), name_of("d", earlier), name_of("d", picked));
  return w;
}

Witness protection_kept_witness(const View& view, EntityId picked, EntityId earlier,
                                const std::optional<Exact>& bound, bool stash) {
  Witness w = edf_witness(view, picked, earlier);
  w.statement =
      "INV-PROT-EXTENT/INV-PROT-END: a curr kept over an earlier eligible deadline is "
      "within its protection window";
  if (!bound) return w;
  w.add("prot", Sort::Real, *bound);
  w.claim = fmt::format("(and {} {})", w.claim,
                        stash ? "(not (= " + name_of("d", picked) + " prot))"
                              : "(>= " + name_of("v", picked) + " prot)");
  return w;
}

Witness buddy_witness(const Exact& v, const Exact& V) {
  Witness w;
  w.statement = std::string(ids::kInvNextBuddy) +
                ": under PICK_BUDDY a pick passes over the next buddy only when it is ineligible";
  w.add("v", Sort::Real, v);
  w.add("V", Sort::Real, V);
  w.claim = "(<= v V)";
  return w;
}

Witness protection_start_witness(const Exact& v, const Exact& d, const Exact& V,
                                 const std::optional<Exact>& bound, bool stash) {
  Witness w;
  w.statement = std::string(ids::kInvProtStart) +
                ": a pick leaves curr only when it is ineligible or past its protection window";
  w.add("v", Sort::Real, v);
  w.add("d", Sort::Real, d);
  w.add("V", Sort::Real, V);
  w.add("prot", Sort::Real, bound.value_or(Exact(0)));
  w.claim = stash ? "(and (<= v V) (= d prot))" : "(and (<= v V) (< v prot))";
  return w;
}

Witness delayed_pick_witness() {
  Witness w;
  w.statement = std::string(ids::kInvDelay) + ": a delayed entity never runs (status 2 = delayed)";
  w.add("status", Sort::Int, ex(2));
  w.claim = "(= status 2)";
  return w;
}

Witness became_delayed_witness(const Exact& v, const Exact& V) {
  Witness w;
  w.statement = std::string(ids::kInvDelay) + ": an entity becomes delayed only while v > V";
  w.add("v", Sort::Real, v);
  w.add("V", Sort::Real, V);
  w.claim = "(<= v V)";
  return w;
}

Witness pick_step_witness(std::optional<EntityId> picked, std::optional<EntityId> spec_pick) {
  Witness w;
  w.statement =
      std::string(ids::kInvStep) + ": the pick is the one SPEC.md 4.4 makes (ids; -1 = idle)";
  w.add("picked", Sort::Int, ex(picked.value_or(-1)));
  w.add("spec_pick", Sort::Int, ex(spec_pick.value_or(-1)));
  w.claim = "(not (= picked spec_pick))";
  return w;
}

Witness step_field_witness(const char* field, const Exact& got, const Exact& want) {
  Witness w;
  w.statement = std::string(ids::kInvStep) + ": field '" + field +
                "' equals the value of the SPEC.md operation on the same state";
  w.add("reported", Sort::Real, got);
  w.add("spec", Sort::Real, want);
  w.claim = "(not (= reported spec))";
  return w;
}

Witness lag_sum_witness(const View& view, const Exact& V_reported, int64_t W_reported,
                        bool integers) {
  Witness w = queue_witness(view, &V_reported);
  w.add("W_reported", Sort::Int, ex(W_reported));
  std::string lag_sum = "(+ 0.0";
  for (const auto& [id, v] : view.entities())
    if (in_queue(v))
      lag_sum += fmt::format(" (* {} (- V_reported {}))", name_of("w", id), name_of("v", id));
  lag_sum += ")";
  w.statement = integers ? std::string(ids::kInvLagSum) +
                               " (integer V, floored): -W < sum w_i*(V - v_i) <= 0, W = sum w_i"
                         : std::string(ids::kInvLagSum) + ": sum w_i*(V - v_i) = 0 and W = sum w_i";
  w.claim =
      integers
          ? fmt::format("(or (not (= W_reported W)) (> {0} 0.0) (<= {0} (- (to_real W))))", lag_sum)
          : fmt::format("(or (not (= W_reported W)) (not (= {} 0.0)))", lag_sum);
  return w;
}

Witness deadline_witness(const ViewEntity& v, const Exact& slack) {
  Witness w;
  w.add("v", Sort::Real, v.vruntime);
  w.add("d", Sort::Real, v.deadline);
  w.add("w", Sort::Int, ex(v.weight));
  w.add("rho", Sort::Real, *v.request);
  w.statement = std::string(ids::kInvDeadline) + ": 0 < (d - v)*w/1024 <= rho";
  w.claim = "(or (<= (/ (* (- d v) w) 1024.0) 0.0) (> (/ (* (- d v) w) 1024.0) rho))";
  if (slack != 0) {
    w.add("slack", Sort::Real, slack);
    w.statement = std::string(ids::kInvDeadline) +
                  " (Linux arithmetic, SPEC.md 7.3): -slack < (d - v)*w/1024 < rho + slack";
    w.claim =
        "(or (<= (/ (* (- d v) w) 1024.0) (- slack)) (>= (/ (* (- d v) w) 1024.0) (+ rho slack)))";
  }
  return w;
}

Witness place_witness(const Exact& V, const Exact& v, const Exact& expected, const Exact& bound) {
  Witness w;
  w.add("V", Sort::Real, V);
  w.add("v", Sort::Real, v);
  w.add("expected", Sort::Real, expected);
  w.statement = std::string(ids::kInvPlaceLag) +
                ": V - v after the wakeup equals the lag the preset restores";
  w.claim = "(not (= (- V v) expected))";
  if (bound != 0) {
    w.add("bound", Sort::Real, bound);
    w.statement = std::string(ids::kInvPlaceLag) +
                  " (Linux arithmetic, SPEC.md 7.3): |V - v - expected| < bound";
    w.claim = "(or (>= (- (- V v) expected) bound) (<= (- (- V v) expected) (- bound)))";
  }
  return w;
}

Witness reweight_witness(const Exact& V_before, const Exact& V_after, const Exact& wlag_before,
                         const Exact& wlag_after, const Exact& bound_V, const Exact& bound_wlag,
                         bool compare_V) {
  Witness w;
  w.add("V_before", Sort::Real, V_before);
  w.add("V_after", Sort::Real, V_after);
  w.add("wlag_before", Sort::Real, wlag_before);
  w.add("wlag_after", Sort::Real, wlag_after);
  w.statement = std::string(ids::kInvReweight) + ": V and w*(V - v) are unchanged by a reweight";
  w.claim = "(or (not (= V_before V_after)) (not (= wlag_before wlag_after)))";
  if (bound_V != 0) {
    w.add("bound_V", Sort::Real, bound_V);
    w.add("bound_wlag", Sort::Real, bound_wlag);
    w.statement = std::string(ids::kInvReweight) +
                  " (Linux arithmetic, SPEC.md 7.3): V and w*(V - v) move by less "
                  "than their bounds";
    w.claim = fmt::format(
        "(or {}(>= (- wlag_after wlag_before) bound_wlag) (<= (- wlag_after wlag_before) (- "
        "bound_wlag)))",
        compare_V ? "(>= (- V_after V_before) bound_V) (<= (- V_after V_before) (- bound_V)) "
                  : "");
  }
  return w;
}

Witness saved_lag_witness(const ViewEntity& v, const Params& params, int64_t queue_max_slice,
                          bool delay_zero, const Exact& bound) {
  Witness w;
  const bool max_slice = params.preset.clamp == LagClamp::MaxSlice;
  w.add("vl", Sort::Real, v.vlag);
  w.add("r", Sort::Int, ex(v.slice));
  w.add("w", Sort::Int, ex(v.weight));
  w.add("tick", Sort::Int, ex(params.tick_ns()));
  if (max_slice) w.add("rmax", Sort::Int, ex(queue_max_slice));
  w.derived.push_back({"limit", Sort::Real});
  w.definitions.push_back(
      max_slice ? "(= limit (/ (* (+ (ite (> rmax r) rmax r) tick) 1024) (to_real w)))"
                : "(= limit (/ (* (ite (> (* 2 r) tick) (* 2 r) tick) 1024) (to_real w)))");
  const std::string span = max_slice ? "max(rmax, r) + TICK" : "max(2r, TICK)";
  w.statement = delay_zero ? std::string(ids::kInvLagClamp) +
                                 ": |vl| <= limit, and vl <= 0 after a delayed dequeue"
                           : std::string(ids::kInvLagClamp) + ": |vl| <= vdelta(" + span + ", w)";
  w.claim = delay_zero ? "(or (> vl limit) (< vl (- limit)) (> vl 0.0))"
                       : "(or (> vl limit) (< vl (- limit)))";
  if (bound != 0) {
    w.add("bound", Sort::Real, bound);
    w.statement += " (Linux arithmetic, SPEC.md 7.3: beyond limit + bound)";
    w.claim = fmt::format("(or (>= vl (+ limit bound)) (<= vl (- (+ limit bound))){})",
                          delay_zero ? " (> vl 0.0)" : "");
  }
  return w;
}

Witness s64_product_witness(const mpz_class& key, bool key_fits, int64_t factor) {
  Witness w;
  w.statement = std::string(ids::kInvS64Margin) +
                ": (v_i - v_min)*w_i and (v_i - v_min)*W fit in a signed 64-bit product";
  if (!key_fits) {
    w.add("key", Sort::Int, Exact(key));
    w.claim = "(> key 9223372036854775807)";
  } else {
    w.add("key", Sort::BitVec64, Exact(key));
    w.add("w", Sort::BitVec64, ex(factor));
    w.claim = "(not (bvsmul_noovfl key w))";
  }
  return w;
}

// The sums over the tree Q \ {curr} and avg_vruntime's floor of the average with curr added
// (to_int is ⌊·⌋ in SMT-LIB); each clause only for what the event reports.
Witness kernel_sums_witness(const View& view, const trace::Event& e) {
  const trace::KernelSums& k = e.kernel;
  Witness w;
  w.statement = std::string(ids::kInvKernelSums) +
                ": sum_w = sum w_i, sum_wv = sum w_i*(v_i - v0) over the tree (curr outside), "
                "V = v0 + floor((sum_wv + w_c*(v_c - v0)) / (sum_w + w_c))";
  w.add("v0", Sort::Real, k.v0.value_or(0));
  std::string tree_w = "(+ 0", tree_wv = "(+ 0.0", curr_w = "0", curr_wv = "0.0";
  for (const auto& [id, x] : view.entities()) {
    if (!in_queue(x)) continue;
    const std::string wn = name_of("w", id), vn = name_of("v", id);
    w.add(wn, Sort::Int, ex(x.weight));
    w.add(vn, Sort::Real, x.vruntime);
    const std::string wv = fmt::format("(* {} (- {} v0))", wn, vn);
    if (view.curr == id) {
      curr_w = wn;
      curr_wv = wv;
    } else {
      tree_w += " " + wn;
      tree_wv += " " + wv;
    }
  }
  w.derived.push_back({"tree_w", Sort::Int});
  w.derived.push_back({"tree_wv", Sort::Real});
  w.definitions.push_back("(= tree_w " + tree_w + "))");
  w.definitions.push_back("(= tree_wv " + tree_wv + "))");
  std::vector<std::string> wrong;
  if (k.sum_w) {
    w.add("sum_w", Sort::Int, ex(*k.sum_w));
    wrong.emplace_back("(not (= sum_w tree_w))");
  }
  if (k.sum_wv) {
    w.add("sum_wv", Sort::Real, *k.sum_wv);
    wrong.emplace_back("(not (= sum_wv tree_wv))");
  }
  if (e.V && k.sum_w && k.sum_wv) {
    w.add("V_reported", Sort::Real, *e.V);
    wrong.push_back(fmt::format(
        "(and (> (+ sum_w {0}) 0) (not (= V_reported (+ v0 (to_real (to_int (/ (+ sum_wv {1}) "
        "(to_real (+ sum_w {0})))))))))",
        curr_w, curr_wv));
    wrong.push_back(fmt::format("(and (= (+ sum_w {}) 0) (not (= V_reported v0)))", curr_w));
  }
  w.claim = "(or";
  for (const auto& c : wrong) w.claim += " " + c;
  w.claim += ")";
  return w;
}

Witness s64_sum_witness(const mpz_class& sum) {
  Witness w;
  w.statement = std::string(ids::kInvS64Margin) + ": sum_i (v_i - v_min)*w_i fits in s64";
  w.add("sum", Sort::Int, Exact(sum));
  w.claim = "(> sum 9223372036854775807)";
  return w;
}

}  // namespace vlag::checker
