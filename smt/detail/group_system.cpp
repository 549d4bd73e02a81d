// One CPU's hierarchy of task groups (SPEC.md §10.2) as Z3 terms: the root runqueue holds one
// group entity per group, each group runqueue its tasks; every runqueue is the one-runqueue
// model of step.h, named apart ("root", "g1", …), and this file adds only the rules that
// connect the levels, after reference/hierarchy.h: an enqueue or dequeue walks up (the shares
// rule, the group entity's slice, its enqueue when its runqueue fills and its dequeue when it
// empties), pick descends from the root, a run or tick charges every level of the running
// path, a wakeup is decided on the first common level, a cpu.weight write reweights the group
// entity. On one CPU the shares rule (§10.3) gives a group entity its group's shares S_G
// whenever its runqueue is non-empty. Every operation of a level is judged on that level as
// §10.5 says (§6's IDs with that runqueue's own V and W); INV-GROUP-QUEUED and the one-CPU form
// of INV-GROUP-SHARES are judged on the hierarchy after each of its operations.
#include "reference/hierarchy.h"
#include "smt/detail/decode.h"
#include "smt/detail/properties.h"
#include "smt/detail/system.h"
#include "spec/properties.h"

namespace vlag::smt::detail {
namespace {

constexpr int64_t kNoSlice = int64_t{1} << 40;  // larger than any slice: min_slice of ∅

// An operation of the hierarchy as it is built: the state so far and whether an operation of
// one of its levels violated the invariant.
struct Walk {
  SysState cur;
  z3::expr bad;
};

class GroupSystem final : public System {
 public:
  GroupSystem(Numbers& num, const Options& o)
      : num_(num),
        o_(o),
        task_opts_(level_options(o, false)),
        root_opts_(level_options(o, true)),
        tasks_(num, task_opts_, "mg"),
        root_(num, root_opts_, "mr"),
        min_slice_rule_(o.params.preset.wakeup == WakeupRule::ShortV1 ||
                        o.params.preset.wakeup == WakeupRule::ShortV2) {
    int first = 1;
    for (int n : o.groups) {
      first_id_.push_back(first);
      first += n;
    }
  }

  SysState fresh(const std::string& p) override {
    SysState s;
    s.rq.push_back(fresh_state(num_, groups(), p + ".root"));
    for (int g = 1; g <= groups(); ++g) {
      s.rq.push_back(fresh_state(num_, size(g), p + ".g" + std::to_string(g)));
      s.shares.push_back(num_.small_var(p + ".S" + std::to_string(g)));
    }
    return s;
  }

  SysChoice fresh_choice(const std::string& p) override {
    return {tasks_.fresh_choice(p), num_.small_var(p + ".group"),
            num_.ctx().bool_const((p + ".ongroup").c_str())};
  }

  z3::expr creation(const SysState& s0, SysState& start) override {
    start = s0;
    z3::expr r = root_.initial(s0.rq[0]);
    for (int g = 1; g <= groups(); ++g) {
      const SymState& q = s0.rq[g];
      // The group entity is created with its group's shares and the base slice (§10.2).
      r = r && !s0.rq[0].e[g - 1].custom && s0.rq[0].e[g - 1].w == s0.shares[g - 1] &&
          in_set(s0.shares[g - 1], o_.group_weights) && tasks_.initial(q);
    }
    return r;
  }

  // Within a group, tasks are alike but for weight and slice: in (weight, slice) order.
  z3::expr symmetry(const SysState& s0) override {
    z3::expr r = num_.ctx().bool_val(true);
    for (int g = 1; g <= groups(); ++g) {
      const SymState& q = s0.rq[g];
      for (int i = 0; i + 1 < size(g); ++i)
        r = r && q.e[i].w <= q.e[i + 1].w &&
            z3::implies(q.e[i].w == q.e[i + 1].w, num_.le(q.e[i].r, q.e[i + 1].r));
    }
    return r;
  }

  SysStep step(const SysState& s, const SysChoice& c, const SysState& next) override {
    z3::context& ctx = num_.ctx();
    z3::expr rel = choice_domain(c);
    z3::expr bad = ctx.bool_val(false);
    const auto kind = [&](OpKind k) { return c.op.kind == step_code(k); };
    const auto add = [&](const z3::expr& when, const z3::expr& pre, const Walk& w) {
      rel = rel && z3::implies(when, pre && equal_all(next, w.cur));
      bad = bad || (when && w.bad);
    };
    const SymState& root = s.rq[0];
    for (int g = 1; g <= groups(); ++g) {
      const SymState& q = s.rq[g];
      const z3::expr at_g = c.group == g;
      for (int i = 0; i < size(g); ++i) {
        const z3::expr at = at_g && c.op.target == i + 1;
        add(kind(OpKind::Enqueue) && at, q.e[i].st != kQueued, enqueue(s, g, i));
        add(kind(OpKind::Dequeue) && at, q.e[i].st == kQueued, dequeue(s, g, i, c.op.sleep));
        add(kind(OpKind::Reweight) && !c.on_group && at, ctx.bool_val(true),
            in_group(s, g, i, OpKind::Reweight, tasks_.reweight_entity(q, i, c.op.weight), c.op));
        add(kind(OpKind::SetSlice) && at, ctx.bool_val(true),
            in_group(s, g, i, OpKind::SetSlice, tasks_.set_slice(q, i, c.op.slice), c.op));
        add(kind(OpKind::WakeupPreempt) && at, q.e[i].st == kQueued && q.curr != i + 1,
            wakeup(s, g, i));
      }
      add(kind(OpKind::Reweight) && c.on_group && at_g, ctx.bool_val(true),
          shares(s, g, c.op.weight));
      Walk y = start(s);
      level(y, g, ctx.bool_val(true), OpKind::Yield, 0, tasks_.yield_task(q), c.op);
      add(kind(OpKind::Yield) && root.curr == g, q.curr != 0, y);
    }
    z3::expr runs = ctx.bool_val(false);  // a task runs: the one that yields
    for (int h = 1; h <= groups(); ++h) runs = runs || task_runs(s, h);
    rel = rel && z3::implies(kind(OpKind::Yield), runs);
    add(kind(OpKind::Pick), ctx.bool_val(true), pick(s));
    add(kind(OpKind::Run), ctx.bool_val(true), charge(s, c.op.delta, false));
    add(kind(OpKind::Tick), ctx.bool_val(true), charge(s, num_.zero(), true));
    if (hierarchy_id()) bad = hierarchy_bad(next);
    for (Model* m : {&root_, &tasks_})
      for (const z3::expr& d : m->take_definitions()) rel = rel && d;
    for (const z3::expr& d : defs_) rel = rel && d;
    defs_.clear();
    return {rel, bad};
  }

  z3::expr bad_state(const SysState& s) override {
    if (hierarchy_id()) return hierarchy_bad(s);
    z3::expr r = num_.ctx().bool_val(false);
    if (!is_state_invariant(o_.invariant)) return r;
    for (int l = 0; l <= groups(); ++l) r = r || detail::bad_state(model(l), o_.invariant, s.rq[l]);
    return r;
  }

  // Each level's lemmas (the flat ones of the ID, its domain at least, and L-SEQ-DISTINCT:
  // without it a group runqueue's pick may find nothing and dequeue its group entity), and the
  // structure of the hierarchy: INV-GROUP-QUEUED, the one-CPU shares rule (w = S_G while the
  // group runqueue is non-empty), and a group runs only while the root runs its group entity.
  z3::expr lemma(const SysState& s) override {
    z3::expr r = detail::lemma(root_, o_.invariant, s.rq[0]) && distinct_insertions(s.rq[0]);
    for (int g = 1; g <= groups(); ++g) {
      const SymState& q = s.rq[g];
      const SymEntity& ge = s.rq[0].e[g - 1];
      r = r && detail::lemma(tasks_, o_.invariant, q) && distinct_insertions(q) &&
          in_set(s.shares[g - 1], o_.group_weights) && (ge.st == kQueued) == queue_nonempty(q) &&
          z3::implies(queue_nonempty(q), ge.w == s.shares[g - 1]) &&
          z3::implies(q.curr != 0, s.rq[0].curr == g);
    }
    return r;
  }

  std::vector<Op> decode(const z3::model& m, const SysState& s0,
                         const std::vector<SysChoice>& steps) override {
    std::vector<Op> ops;
    for (int g = 1; g <= groups(); ++g)
      ops.push_back({OpKind::Create, reference::group_entity_id(g),
                     m.eval(s0.shares[g - 1], true).get_numeral_int64()});
    for (int g = 1; g <= groups(); ++g)
      for (int i = 0; i < size(g); ++i) {
        const SymEntity& x = s0.rq[g].e[i];
        const bool custom = m.eval(x.custom, true).is_true();
        ops.push_back({OpKind::Create, task_id(g, i), m.eval(x.w, true).get_numeral_int64(),
                       custom ? std::stoll(num_.value(m, x.r)) : 0, 0, g});
      }
    for (const SysChoice& c : steps) ops.push_back(decoded(m, c));
    return ops;
  }

  std::string step_text(const z3::model& m, const SysChoice& c) override {
    const Op op = decoded(m, c);
    if (reference::is_group_entity(op.se))
      return "cpu.weight of group " + std::to_string(reference::group_of_entity(op.se)) +
             " := " + std::to_string(op.a);
    return to_string(op);
  }

  StateValues values(const z3::model& m, const SysState& s) override {
    StateValues out = state_values(num_, m, s.rq[0]);
    for (int g = 1; g <= groups(); ++g) {
      StateValues v = state_values(num_, m, s.rq[g]);
      for (EntityValues& e : v.entities) e.id = task_id(g, static_cast<int>(e.id) - 1);
      if (v.curr != 0) v.curr = task_id(g, static_cast<int>(v.curr) - 1);
      out.groups.push_back(std::move(v));
    }
    return out;
  }

 private:
  // The options of one level's model: the root's entities are group entities, whose weights
  // are the groups' shares and whose slices (§10.4) are their runqueues' least slices.
  static Options level_options(const Options& o, bool root) {
    Options l = o;
    if (!root) {
      l.tasks = *std::max_element(o.groups.begin(), o.groups.end());
      return l;
    }
    l.tasks = static_cast<int>(o.groups.size());
    l.weights = o.group_weights;
    l.slices = {0};
    for (int64_t r : o.slices) l.slices.push_back(r == 0 ? o.params.base_slice_ns() : r);
    return l;
  }

  int groups() const { return static_cast<int>(o_.groups.size()); }
  int size(int g) const { return o_.groups[static_cast<size_t>(g - 1)]; }
  EntityId task_id(int g, int i) const { return first_id_[static_cast<size_t>(g - 1)] + i; }
  Model& model(int level) { return level == 0 ? root_ : tasks_; }
  bool hierarchy_id() const {
    return o_.invariant == ids::kInvGroupQueued || o_.invariant == ids::kInvGroupShares;
  }

  z3::expr in_set(const z3::expr& x, const std::vector<int64_t>& set) {
    z3::expr r = num_.ctx().bool_val(false);
    for (int64_t v : set) r = r || x == num_.small(v);
    return r;
  }

  z3::expr choice_domain(const SysChoice& c) {
    const Choice& ch = c.op;
    z3::expr target_in = num_.ctx().bool_val(false);
    for (int g = 1; g <= groups(); ++g)
      target_in = target_in || (c.group == g && ch.target >= 1 && ch.target <= size(g));
    z3::expr slice_in = num_.ctx().bool_val(false);
    for (int64_t r : o_.slices) slice_in = slice_in || ch.slice == num_.lit(r);
    const int64_t max_delta = o_.max_delta_ns > 0 ? o_.max_delta_ns : o_.params.tick_ns();
    return ch.kind >= 0 && ch.kind < kStepCount && target_in &&
           z3::implies(c.on_group, ch.kind == step_code(OpKind::Reweight)) &&
           z3::ite(c.on_group, in_set(ch.weight, o_.group_weights),
                   in_set(ch.weight, o_.weights)) &&
           slice_in && num_.le(num_.zero(), ch.delta) && num_.le(ch.delta, num_.lit(max_delta)) &&
           num_.is_integral(ch.delta);
  }

  // INV-GROUP-QUEUED or INV-GROUP-SHARES (one CPU: w = S_G while the runqueue holds entities).
  z3::expr hierarchy_bad(const SysState& s) {
    z3::expr r = num_.ctx().bool_val(false);
    for (int g = 1; g <= groups(); ++g) {
      const SymEntity& ge = s.rq[0].e[g - 1];
      const z3::expr full = queue_nonempty(s.rq[g]);
      r = r || (o_.invariant == ids::kInvGroupQueued ? (ge.st == kQueued) != full
                                                     : full && ge.w != s.shares[g - 1]);
    }
    return r;
  }

  static z3::expr equal_all(const SysState& a, const SysState& b) {
    z3::expr r = equal(a.rq[0], b.rq[0]);
    for (size_t l = 1; l < a.rq.size(); ++l) r = r && equal(a.rq[l], b.rq[l]);
    for (size_t g = 0; g < a.shares.size(); ++g) r = r && a.shares[g] == b.shares[g];
    return r;
  }

  Walk start(const SysState& s) { return {s, num_.ctx().bool_val(false)}; }

  // One operation of level l (0: the root) where `when` holds: the level's state becomes
  // `after`, judged by §6 as that runqueue's own step. `args` carries δ, weight, slice, sleep.
  void level(Walk& w, int l, const z3::expr& when, OpKind k, int target, const SymState& after,
             const Choice& args) {
    const SymState& before = w.cur.rq[static_cast<size_t>(l)];
    // A put_prev_entity is no step of the one-runqueue model: only state invariants see it.
    const int code = is_step(k) ? step_code(k) : kStepCount;
    const Choice ch{num_.small(code), num_.small(target + 1), args.delta, args.weight, args.slice,
                    args.sleep};
    if (!hierarchy_id() && can_violate(o_.invariant, k))
      w.bad = w.bad || (when && detail::bad(model(l), o_.invariant, before, ch, after));
    w.cur.rq[static_cast<size_t>(l)] = select(when, after, before);
  }
  Choice with(const z3::expr& delta, const z3::expr& weight, const z3::expr& slice,
              const z3::expr& sleep) {
    return {num_.small(0), num_.small(0), delta, weight, slice, sleep};
  }
  Choice none() {
    return with(num_.zero(), num_.small(0), num_.zero(), num_.ctx().bool_val(false));
  }

  // §10.2 after an operation on rq(g): the shares rule (§10.3) and the slice (§10.4) of its
  // group entity, where the runqueue holds entities (an empty one keeps its entity's weight).
  void refresh(Walk& w, int g, const z3::expr& when) {
    const SymState& q = w.cur.rq[static_cast<size_t>(g)];
    const z3::expr full = when && queue_nonempty(q);
    const z3::expr S = w.cur.shares[static_cast<size_t>(g - 1)];
    const SymState& r0 = w.cur.rq[0];
    level(w, 0, full && r0.e[g - 1].w != S, OpKind::Reweight, g - 1,
          root_.reweight_entity(r0, g - 1, S), with(num_.zero(), S, num_.zero(), falsity()));
    if (!min_slice_rule_) return;
    const SymState& r1 = w.cur.rq[0];
    const z3::expr least = min_slice(num_, q, num_.lit(kNoSlice));
    level(w, 0, full && (!r1.e[g - 1].custom || r1.e[g - 1].r != least), OpKind::SetSlice, g - 1,
          root_.set_slice(r1, g - 1, least), with(num_.zero(), num_.small(0), least, falsity()));
  }
  z3::expr falsity() { return num_.ctx().bool_val(false); }

  Walk enqueue(const SysState& s, int g, int i) {
    Walk w = start(s);
    level(w, g, num_.ctx().bool_val(true), OpKind::Enqueue, i, tasks_.enqueue_entity(s.rq[g], i),
          none());
    refresh(w, g, num_.ctx().bool_val(true));
    const SymState& r = w.cur.rq[0];
    level(w, 0, r.e[g - 1].st != kQueued, OpKind::Enqueue, g - 1, root_.enqueue_entity(r, g - 1),
          none());
    return w;
  }

  Walk dequeue(const SysState& s, int g, int i, const z3::expr& sleep) {
    Walk w = start(s);
    const Choice args = with(num_.zero(), num_.small(0), num_.zero(), sleep);
    level(w, g, num_.ctx().bool_val(true), OpKind::Dequeue, i,
          tasks_.dequeue_entity(s.rq[g], i, sleep), args);
    const z3::expr empty = !queue_nonempty(w.cur.rq[g]);
    if (o_.mutation != Mutation::NoGroupDequeue)
      level(w, 0, empty, OpKind::Dequeue, g - 1, root_.dequeue_entity(w.cur.rq[0], g - 1, sleep),
            args);
    refresh(w, g, !empty);
    return w;
  }

  // A task's reweight or set_slice: the operation on rq(g), then the walk up.
  Walk in_group(const SysState& s, int g, int i, OpKind k, const SymState& after, const Choice& c) {
    Walk w = start(s);
    level(w, g, num_.ctx().bool_val(true), k, i, after, c);
    refresh(w, g, num_.ctx().bool_val(true));
    return w;
  }

  // A cpu.weight write: S_G changes, and the group entity follows unless its runqueue is empty.
  Walk shares(const SysState& s, int g, const z3::expr& w2) {
    Walk w = start(s);
    w.cur.shares[static_cast<size_t>(g - 1)] = w2;
    const SymState& r = s.rq[0];
    level(w, 0, queue_nonempty(s.rq[g]) && r.e[g - 1].w != w2, OpKind::Reweight, g - 1,
          root_.reweight_entity(r, g - 1, w2), with(num_.zero(), w2, num_.zero(), falsity()));
    return w;
  }

  // A task of group h runs: the root runs h's group entity, which runs a task.
  z3::expr task_runs(const SysState& s, int h) { return s.rq[0].curr == h && s.rq[h].curr != 0; }

  // §10.2 (find_matching_se): the wakee against curr on their first common runqueue; with no
  // task running, on the root, unless a group runs with no task picked in it (a reschedule).
  Walk wakeup(const SysState& s, int g, int i) {
    Walk w = start(s);
    z3::expr any = falsity();
    for (int h = 1; h <= groups(); ++h) any = any || task_runs(s, h);
    const z3::expr same = task_runs(s, g);
    level(w, g, same, OpKind::WakeupPreempt, i, tasks_.wakeup_preempt(s.rq[g], i), none());
    level(w, 0, (any && !same) || (!any && s.rq[0].curr == 0), OpKind::WakeupPreempt, g - 1,
          root_.wakeup_preempt(s.rq[0], g - 1), none());
    return w;
  }

  // A run (update_curr) or tick (entity_tick, then the shares rule) on every level of the
  // running path: the root, if it runs an entity, and the group whose task runs.
  Walk charge(const SysState& s, const z3::expr& delta, bool tick) {
    Walk w = start(s);
    const Choice args = with(delta, num_.small(0), num_.zero(), falsity());
    const OpKind k = tick ? OpKind::Tick : OpKind::Run;
    level(w, 0, s.rq[0].curr != 0, k, 0, root_.update_curr(s.rq[0], delta), args);
    for (int h = 1; h <= groups(); ++h)
      level(w, h, task_runs(s, h), k, 0, tasks_.update_curr(s.rq[h], delta), args);
    if (tick)
      for (int h = 1; h <= groups(); ++h) {
        const SymState& r = w.cur.rq[0];
        const z3::expr S = w.cur.shares[static_cast<size_t>(h - 1)];
        level(w, 0, task_runs(s, h) && r.e[h - 1].w != S, OpKind::Reweight, h - 1,
              root_.reweight_entity(r, h - 1, S), with(num_.zero(), S, num_.zero(), falsity()));
      }
    return w;
  }

  // §10.2 pick: on the root, then on the picked group's runqueue; the old group's curr is put
  // back when the root changes its entity. A group whose pick finds nothing (its last entities
  // were delayed, §4.9) leaves the root with SLEEP and the pick starts again: each such round
  // empties a group, so G + 1 rounds suffice (one without DELAY_DEQUEUE).
  Walk pick(const SysState& s) {
    Walk w = start(s);
    const bool delays = o_.params.preset.has(Feature::DELAY_DEQUEUE);
    const int rounds = delays ? groups() + 1 : 1;
    z3::expr done = falsity();
    for (int round = 0; round < rounds; ++round) {
      const z3::expr active = !done;
      const z3::expr prev = w.cur.rq[0].curr;
      level(w, 0, active, OpKind::Pick, 0, root_.pick_next_entity(w.cur.rq[0]), none());
      const z3::expr picked = w.cur.rq[0].curr;
      z3::expr found = picked == 0;
      for (int h = 1; h <= groups(); ++h) {
        const SymState& q = w.cur.rq[h];
        level(w, h, active && prev == h && picked != h && q.curr != 0, OpKind::PutPrev, 0,
              tasks_.put_prev_entity(q), none());
      }
      for (int h = 1; h <= groups(); ++h) {
        const z3::expr in = active && picked == h;
        const SymState q0 = w.cur.rq[h];
        level(w, h, in, OpKind::Pick, 0, tasks_.pick_next_entity(q0), none());
        const z3::expr left =
            num_.weight_int(queue_weights(q0)) != num_.weight_int(queue_weights(w.cur.rq[h]));
        refresh(w, h, in && left);
        const z3::expr got = w.cur.rq[h].curr != 0;
        level(w, 0, in && !got, OpKind::Dequeue, h - 1,
              root_.dequeue_entity(w.cur.rq[0], h - 1, num_.ctx().bool_val(true)),
              with(num_.zero(), num_.small(0), num_.zero(), num_.ctx().bool_val(true)));
        found = found || (picked == h && got);
      }
      done = done || found;
      if (round + 1 < rounds) materialize(w.cur);
    }
    return w;
  }

  // Ties the state to fresh constants: keeps the unrolled rounds of a pick small.
  void materialize(SysState& s) {
    const SysState m = fresh("h!" + std::to_string(materialized_++));
    defs_.push_back(equal_all(m, s));
    s = m;
  }

  Op decoded(const z3::model& m, const SysChoice& c) {
    const int g = m.eval(c.group, true).get_numeral_int();
    const int i = m.eval(c.op.target, true).get_numeral_int() - 1;
    const OpKind k = step_op(m.eval(c.op.kind, true).get_numeral_int());
    const auto value = [&](const z3::expr& x) { return std::stoll(num_.value(m, x)); };
    const int64_t weight = m.eval(c.op.weight, true).get_numeral_int64();
    switch (k) {
      case OpKind::Enqueue:
      case OpKind::WakeupPreempt:
        return {k, task_id(g, i)};
      case OpKind::Dequeue:
        return {k, task_id(g, i), 0, 0, m.eval(c.op.sleep, true).is_true() ? kDequeueSleep : 0u};
      case OpKind::Run:
        return {k, 0, value(c.op.delta)};
      case OpKind::Reweight:
        if (m.eval(c.on_group, true).is_true()) return {k, reference::group_entity_id(g), weight};
        return {k, task_id(g, i), weight};
      case OpKind::SetSlice:
        return {k, task_id(g, i), value(c.op.slice)};
      default:  // Pick, Tick, Yield: no operand
        return {k};
    }
  }

  Numbers& num_;
  const Options& o_;
  const Options task_opts_, root_opts_;  // before the models, which keep references to them
  Model tasks_, root_;
  bool min_slice_rule_;
  std::vector<EntityId> first_id_;  // per group, the id of its first task
  std::vector<z3::expr> defs_;
  int materialized_ = 0;
};

}  // namespace

std::unique_ptr<System> make_group_system(Numbers& num, const Options& o) {
  return std::make_unique<GroupSystem>(num, o);
}

}  // namespace vlag::smt::detail
