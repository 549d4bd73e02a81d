// One runqueue of N tasks (SPEC.md §2–§4): the symbolic model of step.h, judged by the
// predicates of properties.h, under the operations of §4 or the steady driver of §6.
#include <algorithm>

#include "smt/detail/decode.h"
#include "smt/detail/properties.h"
#include "smt/detail/system.h"

namespace vlag::smt::detail {
namespace {

class FlatSystem final : public System {
 public:
  FlatSystem(Numbers& num, const Options& o, bool steady)
      : num_(num), o_(o), model_(num, o), steady_(steady) {}

  SysState fresh(const std::string& prefix) override {
    return {{fresh_state(num_, o_.tasks, prefix)}, {}};
  }
  SysChoice fresh_choice(const std::string& prefix) override {
    return {model_.fresh_choice(prefix), num_.small(1), num_.ctx().bool_val(false)};
  }

  z3::expr creation(const SysState& s0, SysState& start) override {
    const SymState& first = s0.rq[0];
    z3::expr r = model_.initial(first);
    start = s0;
    if (steady_) {  // every entity joins at zero lag before the first decision
      SymState joined = first;
      for (int i = 0; i < o_.tasks; ++i) joined = model_.enqueue_entity(joined, i);
      start = fresh("s0j");
      r = r && equal(start.rq[0], joined);
      for (const z3::expr& d : model_.take_definitions()) r = r && d;
    }
    return r;
  }

  // The model treats task ids alike (ties go by insertion order, not id): tasks in (weight,
  // slice) order. Not for the steady driver: it enqueues in id order, which would then always
  // be weight order.
  z3::expr symmetry(const SysState& s0) override {
    z3::expr r = num_.ctx().bool_val(true);
    for (int i = 0; !steady_ && i + 1 < o_.tasks; ++i) {
      const SymEntity &x = s0.rq[0].e[i], &y = s0.rq[0].e[i + 1];
      r = r && x.w <= y.w && z3::implies(x.w == y.w, num_.le(x.r, y.r));
    }
    return r;
  }

  SysStep step(const SysState& s, const SysChoice& c, const SysState& next) override {
    const z3::expr rel = steady_ ? model_.steady_transition(s.rq[0], c.op, next.rq[0])
                                 : model_.transition(s.rq[0], c.op, next.rq[0]);
    return {rel, bad(model_, o_.invariant, s.rq[0], c.op, next.rq[0])};
  }

  z3::expr bad_state(const SysState& s) override {
    if (!is_state_invariant(o_.invariant)) return num_.ctx().bool_val(false);
    return detail::bad_state(model_, o_.invariant, s.rq[0]);
  }
  z3::expr lemma(const SysState& s) override {
    return detail::lemma(model_, o_.invariant, s.rq[0]);
  }

  std::vector<Op> decode(const z3::model& m, const SysState& s0,
                         const std::vector<SysChoice>& steps) override {
    std::vector<Choice> ops;
    for (const SysChoice& c : steps) ops.push_back(c.op);
    return detail::decode(num_, m, s0.rq[0], ops, steady_);
  }
  std::string step_text(const z3::model& m, const SysChoice& c) override {
    return detail::step_text(num_, m, c.op, steady_);
  }
  StateValues values(const z3::model& m, const SysState& s) override {
    return state_values(num_, m, s.rq[0]);
  }

 private:
  Numbers& num_;
  const Options& o_;
  Model model_;
  bool steady_;
};

}  // namespace

std::vector<int64_t> weight_set(const Options& o) {
  if (o.groups.empty()) return o.weights;
  std::vector<int64_t> ws = o.weights;
  ws.insert(ws.end(), o.group_weights.begin(), o.group_weights.end());
  std::sort(ws.begin(), ws.end());
  ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
  return ws;
}

std::unique_ptr<System> make_flat_system(Numbers& num, const Options& o, bool steady) {
  return std::make_unique<FlatSystem>(num, o, steady);
}

std::unique_ptr<System> make_system(Numbers& num, const Options& o, bool steady) {
  return o.groups.empty() ? make_flat_system(num, o, steady) : make_group_system(num, o);
}

}  // namespace vlag::smt::detail
