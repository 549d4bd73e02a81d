// The arithmetic behind one violation, as SMT-LIB2 text that the Z3 arbiter (smt/arbiter.h)
// re-checks: constants with the values read from the trace, the SPEC.md definitions relating
// them, and the claim that the invariant fails. `sat` confirms the violation. Built from plain
// strings so that nothing outside smt/ depends on Z3; below, one builder per rule of layers 2
// and 3, from the values the rule judged.
#pragma once

#include <gmpxx.h>

#include <optional>
#include <string>
#include <vector>

#include "trace/event.h"

namespace vlag::checker {

using trace::Exact;

enum class Sort : uint8_t { Int, Real, BitVec64 };

struct Witness {
  struct Const {
    std::string name;
    Sort sort = Sort::Real;
    trace::Exact value;
  };
  std::vector<Const> consts;
  std::vector<std::pair<std::string, Sort>> derived;  // declared, defined by `definitions`
  std::vector<std::string> definitions;  // SMT-LIB terms asserted as SPEC.md definitions
  std::string claim;                     // SMT-LIB term: the invariant is violated
  std::string statement;                 // the invariant in words, for the file's comment

  void add(std::string name, Sort sort, const trace::Exact& value) {
    consts.push_back({std::move(name), sort, value});
  }
};

/// A number as an SMT-LIB literal of the given sort: 5, (- 5), (/ 7 3), (_ bv5 64).
std::string smt_literal(Sort sort, const trace::Exact& x);

class View;
struct ViewEntity;

/// Every queued entity's weight, vruntime and deadline, with W and V defined from them
/// (SPEC.md §2). V_reported, when given, is the V the trace claims.
Witness queue_witness(const View& view, const Exact* V_reported);

// Layer 2 (checker/decisions.h).
Witness idle_pick_witness(const View& view);
Witness ineligible_pick_witness(const View& view, EntityId picked);
Witness edf_witness(const View& view, EntityId picked, EntityId earlier);
/// INV-PROT-EXTENT / INV-PROT-END: INV-PICK-EDF's claim for a kept curr, and curr past its
/// window's bound (vprot: v >= bound; stash: d != bound; no bound: cancelled).
Witness protection_kept_witness(const View& view, EntityId picked, EntityId earlier,
                                const std::optional<Exact>& bound, bool stash);
/// INV-NEXT-BUDDY: the buddy passed over was eligible (v <= V before the pick).
Witness buddy_witness(const Exact& v, const Exact& V);
/// INV-PROT-START: curr, eligible (v <= V before the pick), was within its window.
Witness protection_start_witness(const Exact& v, const Exact& d, const Exact& V,
                                 const std::optional<Exact>& bound, bool stash);
Witness delayed_pick_witness();
Witness became_delayed_witness(const Exact& v, const Exact& V);
Witness pick_step_witness(std::optional<EntityId> picked, std::optional<EntityId> spec_pick);

// Layer 3 (checker/state_rules.h); a nonzero bound or slack is §7.3's, for a Linux trace.
Witness step_field_witness(const char* field, const Exact& got, const Exact& want);
Witness lag_sum_witness(const View& view, const Exact& V_reported, int64_t W_reported,
                        bool integers);
Witness deadline_witness(const ViewEntity& v, const Exact& slack);
Witness place_witness(const Exact& V, const Exact& v, const Exact& expected, const Exact& bound);
Witness reweight_witness(const Exact& V_before, const Exact& V_after, const Exact& wlag_before,
                         const Exact& wlag_after, const Exact& bound_V, const Exact& bound_wlag,
                         bool compare_V);
Witness saved_lag_witness(const ViewEntity& v, const Params& params, int64_t queue_max_slice,
                          bool delay_zero, const Exact& bound);
/// INV-S64-MARGIN for one entity: its key beyond s64, or key times w (or W) overflowing.
Witness s64_product_witness(const mpz_class& key, bool key_fits, int64_t factor);
Witness s64_sum_witness(const mpz_class& sum);
/// INV-KERNEL-SUMS: the tree's entities and curr, the sums and V the event reports.
Witness kernel_sums_witness(const View& view, const trace::Event& e);

}  // namespace vlag::checker

namespace vlag::checker {

/// The witness as a self-contained SMT-LIB2 script: comments (what is claimed, where it comes
/// from), declarations, the values read from the trace, the definitions, the claim. With
/// `commands`, ends in (check-sat) and (get-model) so that `z3 FILE` prints the verdict.
std::string smt_script(const Witness& w, const std::string& origin, bool commands);

/// The Z3 arbiter's verdict on the witness (smt/arbiter.h): sat confirms the violation; `error`
/// is Z3's message where the script did not parse or Z3 gave up.
struct Arbitrated {
  bool sat = false;
  std::string error;
};
Arbitrated arbitrate(const Witness& w);

}  // namespace vlag::checker
