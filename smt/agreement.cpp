#include "smt/agreement.h"

#include <z3++.h>

#include <functional>

#include "reference/group_driver.h"
#include "reference/runqueue.h"
#include "smt/detail/system.h"
#include "spec/error.h"

namespace vlag::smt {
namespace {

using namespace detail;

// The symbolic model's code for an operation; it has no step for Create, Exit, Detach, Attach.
int step_kind(OpKind k) {
  if (!is_step(k)) throw Error(std::string("agreement: the symbolic model has no ") + op_name(k));
  return step_code(k);
}

int status_code(Status s) {
  return s == Status::Sleeping ? kSleeping : s == Status::Queued ? kQueued : kDelayed;
}

// The reference's numbers as the symbolic model prints them. Linux times start at the kernel's
// origin −2^20 (reference/arith.h) where the model starts at 0: floors and truncations are
// invariant under an integral shift, so absolute times agree up to that offset.
std::string text(const mpq_class& x) { return x.get_str(); }
std::string text(const LinuxTime& x) { return std::to_string(x.value()); }
template <class A>
std::string absolute(const typename A::Num& x) {
  if constexpr (A::kExact)
    return text(x);
  else
    return std::to_string((x - A::origin()).value());
}

// Compares one state, the reference's entity `id` against s.e[index(id)]; returns the first
// differing field.
template <class Rq>
std::optional<std::string> compare(Numbers& num, const z3::model& m, const SymState& s,
                                   const Rq& rq, const std::function<size_t(EntityId)>& index) {
  using A = typename Rq::Arith;
  const auto diff = [](const std::string& what, const std::string& sym, const std::string& ref) {
    return std::optional<std::string>(what + ": symbolic " + sym + ", reference " + ref);
  };
  const auto i64 = [&](const z3::expr& x) { return m.eval(x, true).get_numeral_int64(); };
  // Entity ids as the model numbers them (index + 1; 0: none).
  const auto model_id = [&](std::optional<EntityId> id) {
    return id ? static_cast<int64_t>(index(*id)) + 1 : int64_t{0};
  };
  const int64_t curr = i64(s.curr);
  if (curr != model_id(rq.curr()))
    return diff("curr", std::to_string(curr), std::to_string(model_id(rq.curr())));
  const int64_t next = i64(s.next);
  if (next != model_id(rq.next_buddy()))
    return diff("next buddy", std::to_string(next), std::to_string(model_id(rq.next_buddy())));
  const bool has_prot = m.eval(s.has_prot, true).is_true();
  if (has_prot != rq.protection().has_value())
    return diff("protection armed", has_prot ? "yes" : "no",
                rq.protection().has_value() ? "yes" : "no");
  if (has_prot && num.value(m, s.prot) != absolute<A>(*rq.protection()))
    return diff("protection", num.value(m, s.prot), absolute<A>(*rq.protection()));
  if (m.eval(s.last_initial, true).is_true() != rq.last_enqueue_initial())
    return diff("last enqueue initial", "", "");
  if constexpr (A::kExact)
    if (!rq.queued().empty() && num.value(m, s.fluid) != text(rq.fluid_clock()))
      return diff("fluid clock", num.value(m, s.fluid), text(rq.fluid_clock()));
  for (const auto& e : rq.entities()) {
    const SymEntity& x = s.e[index(e.id)];
    const std::string t = "entity " + std::to_string(e.id) + " ";
    if (i64(x.st) != status_code(e.status))
      return diff(t + "status", std::to_string(i64(x.st)), std::to_string(status_code(e.status)));
    if (i64(x.w) != e.weight)
      return diff(t + "weight", std::to_string(i64(x.w)), std::to_string(e.weight));
    if (num.value(m, x.r) != std::to_string(e.slice))
      return diff(t + "slice", num.value(m, x.r), std::to_string(e.slice));
    // A created entity never placed has no times yet: both sides start at 0 and placement
    // overwrites v and d before anything reads them.
    if (!e.is_new) {
      if (num.value(m, x.v) != absolute<A>(e.vruntime))
        return diff(t + "v", num.value(m, x.v), absolute<A>(e.vruntime));
      const std::string d = e.rel_deadline ? text(e.deadline) : absolute<A>(e.deadline);
      if (num.value(m, x.d) != d) return diff(t + "d", num.value(m, x.d), d);
    }
    if (num.value(m, x.vl) != text(e.vlag))
      return diff(t + "vlag", num.value(m, x.vl), text(e.vlag));
    if (num.value(m, x.rho) != text(e.request))
      return diff(t + "request", num.value(m, x.rho), text(e.request));
    if (m.eval(x.rel, true).is_true() != e.rel_deadline) return diff(t + "rel", "", "");
    if (m.eval(x.cut, true).is_true() != e.request_cut) return diff(t + "request_cut", "", "");
    if (m.eval(x.custom, true).is_true() != e.custom_slice) return diff(t + "custom slice", "", "");
    if (m.eval(x.is_new, true).is_true() != e.is_new) return diff(t + "new", "", "");
    if (e.status != Status::Sleeping && static_cast<uint64_t>(i64(x.seq)) != e.seq)
      return diff(t + "seq", std::to_string(i64(x.seq)), std::to_string(e.seq));
  }
  return std::nullopt;
}

// The state with every field replaced by its value in m.
SymState valued(const z3::model& m, const SymState& s) {
  const auto v = [&](const z3::expr& x) { return m.eval(x, true); };
  SymState t = s;
  for (SymEntity& x : t.e)
    for (z3::expr* f : {&x.w, &x.r, &x.custom, &x.v, &x.d, &x.rho, &x.vl, &x.rel, &x.cut, &x.is_new,
                        &x.st, &x.seq})
      *f = v(*f);
  for (z3::expr* f :
       {&t.curr, &t.prot, &t.has_prot, &t.v_empty, &t.fluid, &t.seq_ctr, &t.next, &t.last_initial})
    *f = v(*f);
  return t;
}

template <class Rq>
std::optional<std::string> disagreement_with(const Options& o, const std::vector<Op>& ops) {
  z3::context ctx;
  Numbers num(ctx, o.arith, o.weights);
  Model model(num, o);
  z3::solver s(ctx);
  Rq rq(o.params);
  const SymState s0 = fresh_state(num, o.tasks, "s0");
  s.add(model.initial(s0));
  // One solve per operation, from the values the last one gave: every choice is fixed, so the
  // step is a function of its state, and a solve over concrete values stays small however long
  // the sequence (one solve over the whole sequence grows with it).
  SymState cur = s0;
  int step = 0;
  for (const Op& op : ops) {
    if (op.kind == OpKind::Create) {
      rq.apply(op);
      const SymEntity& x = s0.e[static_cast<size_t>(op.se - 1)];
      s.add(x.w == num.small(op.a) && x.custom == ctx.bool_val(op.b != 0));
      if (op.b != 0) s.add(x.r == num.lit(op.b));
      continue;
    }
    try {
      rq.apply(op);
    } catch (const Error&) {
      continue;  // rejected: the state is unchanged, and the symbolic guard forbids it
    }
    // 'c' and 's' as chars: a literal prepended to a temporary string trips gcc 12's -Wrestrict
    // false positive at -O3 (GCC bug 105651).
    const Choice ch = model.fresh_choice('c' + std::to_string(step));
    s.add(ch.kind == step_kind(op.kind));
    s.add(ch.target == static_cast<int>(op.se > 0 ? op.se : 1));
    s.add(ch.delta == num.lit(op.kind == OpKind::Run ? op.a : 0));
    s.add(ch.weight == num.small(op.kind == OpKind::Reweight ? op.a : o.weights.front()));
    s.add(ch.slice == num.lit(op.kind == OpKind::SetSlice ? op.a : o.slices.front()));
    s.add(ch.sleep == ctx.bool_val(op.flags & kDequeueSleep));
    const SymState next = fresh_state(num, o.tasks, 's' + std::to_string(step + 1));
    s.add(model.transition(cur, ch, next));
    const std::string where = "after step " + std::to_string(step) + " (" + to_string(op) + "): ";
    if (s.check() != z3::sat) return where + "the symbolic model rejects it (a guard differs)";
    const z3::model m = s.get_model();
    if (auto d = compare(num, m, next, rq, [](EntityId id) { return static_cast<size_t>(id - 1); }))
      return where + *d;
    cur = valued(m, next);
    s.reset();
    num.set_scope(static_cast<unsigned>(++step));  // the quotients' definitions went too
  }
  return std::nullopt;
}

// The hierarchy: one solve per operation as above, every runqueue compared after it.
std::optional<std::string> group_disagreement_exact(const Options& o, const std::vector<Op>& ops) {
  z3::context ctx;
  Numbers num(ctx, o.arith, weight_set(o));
  const std::unique_ptr<System> sys = make_group_system(num, o);
  // Every choice fixed: simplification and value propagation leave little for the solver (a
  // tenth of the time the plain solver takes on the hierarchy's larger step).
  z3::solver s = (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "propagate-values") &
                  z3::tactic(ctx, "solve-eqs") & z3::tactic(ctx, "smt"))
                     .mk_solver();
  const SysState s0 = sys->fresh("s0");
  SysState start = s0;
  s.add(sys->creation(s0, start));
  reference::GroupDriver d(o.params);
  std::vector<EntityId> first;  // per group, its first task's id
  for (EntityId id = 1; int n : o.groups) {
    first.push_back(id);
    id += n;
  }
  const auto group_of = [&](EntityId t) {
    size_t g = 0;
    while (g + 1 < first.size() && first[g + 1] <= t) ++g;
    return g + 1;
  };
  SysState cur = s0;
  int step = 0;
  for (const Op& op : ops) {
    const bool group_op = reference::is_group_entity(op.se);
    const size_t g = group_op    ? static_cast<size_t>(reference::group_of_entity(op.se))
                     : op.se > 0 ? group_of(op.se)
                                 : 1;
    const int target = group_op || op.se == 0 ? 1 : static_cast<int>(op.se - first[g - 1] + 1);
    if (op.kind == OpKind::Create) {
      d.apply(op);
      if (group_op) {
        s.add(s0.shares[g - 1] == num.small(op.a));
        continue;
      }
      const SymEntity& x = s0.rq[g].e[static_cast<size_t>(target - 1)];
      s.add(x.w == num.small(op.a) && x.custom == ctx.bool_val(op.b != 0));
      if (op.b != 0) s.add(x.r == num.lit(op.b));
      continue;
    }
    try {
      d.apply(op);
    } catch (const Error&) {
      continue;  // rejected: the state is unchanged, and the symbolic guard forbids it
    }
    const SysChoice ch = sys->fresh_choice('c' + std::to_string(step));
    s.add(ch.op.kind == step_kind(op.kind) && ch.group == static_cast<int>(g) &&
          ch.op.target == target);
    s.add(ch.op.delta == num.lit(op.kind == OpKind::Run ? op.a : 0));
    s.add(ch.op.weight == num.small(op.kind == OpKind::Reweight ? op.a : o.weights.front()));
    s.add(ch.op.slice == num.lit(op.kind == OpKind::SetSlice ? op.a : o.slices.front()));
    s.add(ch.op.sleep == ctx.bool_val(op.flags & kDequeueSleep));
    s.add(ch.on_group == ctx.bool_val(group_op));
    const SysState next = sys->fresh('s' + std::to_string(step + 1));
    s.add(sys->step(cur, ch, next).relation);

    for (const z3::expr& def : num.take_definitions()) s.add(def);
    const std::string where = "after step " + std::to_string(step) + " (" + to_string(op) + "): ";
    if (s.check() != z3::sat) return where + "the symbolic model rejects it (a guard differs)";
    const z3::model m = s.get_model();
    const reference::Hierarchy& h = d.hierarchy();
    const auto ge_index = [](EntityId id) {
      return static_cast<size_t>(reference::group_of_entity(id) - 1);
    };
    if (auto diff = compare(num, m, next.rq[0], h.runqueue(0), ge_index))
      return where + "root: " + *diff;
    for (size_t l = 1; l < next.rq.size(); ++l) {
      const auto task_index = [&](EntityId id) { return static_cast<size_t>(id - first[l - 1]); };
      if (auto diff = compare(num, m, next.rq[l], h.runqueue(static_cast<int64_t>(l)), task_index))
        return where + "group " + std::to_string(l) + ": " + *diff;
    }
    cur = next;
    for (SymState& q : cur.rq) q = valued(m, q);
    for (z3::expr& x : cur.shares) x = m.eval(x, true);
    s.reset();
    num.set_scope(static_cast<unsigned>(++step));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> group_disagreement(const Options& o, const std::vector<Op>& ops) {
  if (o.arith != Arith::Exact)
    throw Error("agreement: --groups is encoded in exact arithmetic only");
  return group_disagreement_exact(o, ops);
}

std::optional<std::string> disagreement(const Options& o, const std::vector<Op>& ops) {
  if (o.arith == Arith::Linux64) return disagreement_with<reference::LinuxRunqueue>(o, ops);
  return disagreement_with<reference::Runqueue>(o, ops);
}

}  // namespace vlag::smt
