// BMC with iterative deepening and k-induction over the symbolic model (smt/detail/).
// Depth k of BMC asks: is there a schedule of k steps from creation whose last step violates
// the invariant? Depths are tried in order, so the first counterexample is a shortest one.
// k-induction asks: can k steps that keep the invariant (and its lemma) from *any* state be
// followed by one that breaks it? If not, and BMC found nothing up to k, it holds at every depth.
#include "smt/engine.h"

#include <z3++.h>

#include <chrono>
#include <optional>
#include <thread>

#include "smt/detail/system.h"
#include "spec/error.h"

namespace vlag::smt {
namespace {

using namespace detail;
using Clock = std::chrono::steady_clock;

// Interrupts the solver on Ctrl-C (stop) or when the time budget is spent. Once either has
// happened it keeps interrupting until the search ends: an interrupt that lands between two
// checks, or in a phase of Z3 that does not poll for it, is otherwise lost.
class Watchdog {
 public:
  Watchdog(z3::context& ctx, double timeout_s, std::atomic<bool>* stop)
      : thread_([this, &ctx, timeout_s, stop] {
          const auto start = Clock::now();
          while (!done_) {
            const double t = std::chrono::duration<double>(Clock::now() - start).count();
            if (!reason_ && ((stop && *stop) || (timeout_s > 0 && t > timeout_s)))
              reason_ = stop && *stop ? "interrupted" : "timeout";
            if (reason_) ctx.interrupt();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~Watchdog() {
    done_ = true;
    thread_.join();
  }
  const char* reason() const { return reason_; }

 private:
  std::atomic<bool> done_{false};
  std::atomic<const char*> reason_{nullptr};
  std::thread thread_;
};

struct Figures {
  int64_t conflicts = 0, decisions = 0;
  double memory_mb = 0;
};

Figures figures(const z3::solver& s) {
  Figures f;
  const z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i) {
    const std::string k = st.key(i);
    if (k.find("conflicts") != std::string::npos && st.is_uint(i)) f.conflicts += st.uint_value(i);
    if (k.find("decisions") != std::string::npos && st.is_uint(i)) f.decisions += st.uint_value(i);
    if (k == "max memory" && st.is_double(i)) f.memory_mb = st.double_value(i);
  }
  return f;
}

class Prover {
 public:
  Prover(const Options& o, const std::function<void(const Progress&)>& progress,
         std::atomic<bool>* stop)
      : o_(o),
        progress_(progress),
        num_(ctx_, o.arith, weight_set(o)),
        watchdog_(ctx_, o.timeout_s, stop) {
    for (const auto& inv : invariants())
      if (inv.id == o.invariant) info_ = inv;
    system_ = make_system(num_, o, info_.steady);
    // The lag bounds are inductive (with L-STEADY) where the preset promises them; elsewhere BMC
    // looks for the counterexample SPEC.md §6 expects, and L-STEADY is no claim there.
    if (property(info_.id).prove.induction == Induction::WherePromised)
      info_.inductive = promised_by(o.params.preset, info_.id);
  }

  Result run() {
    Result r;
    try {
      r = search();
    } catch (const z3::exception&) {
      // An interrupt that lands in a call other than check() (push, add, the model's
      // simplifier) surfaces as an exception: the same verdict as an interrupted check.
      if (!watchdog_.reason()) throw;
      r = Result{};
      r.method = "bmc";
      r.depth = held_depth_;
      r.verdict = Verdict::Unknown;
      r.note = std::string(watchdog_.reason()) + "; held to depth " + std::to_string(held_depth_);
      fill(r);
    }
    r.seconds = elapsed();
    return r;
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void report(const z3::solver& s, int depth, const char* phase) {
    const Figures f = figures(s);
    last_ = f;
    if (progress_) progress_({depth, phase, elapsed(), f.conflicts, f.memory_mb});
  }

  void fill(Result& r) const {
    r.conflicts = last_.conflicts;
    r.decisions = last_.decisions;
    r.memory_mb = last_.memory_mb;
  }

  Result unknown(Result r, const z3::solver& s, const std::string& established) {
    r.verdict = Verdict::Unknown;
    const char* why = watchdog_.reason();
    r.note = std::string(why ? why : s.reason_unknown().c_str()) + "; " + established;
    fill(r);
    return r;
  }

  // The violation of a step: the invariant, or the lemma (the structural domain at least) that
  // later steps assume. The quotients it defines are asserted for good, outside the push: they
  // are functions of the state, so they constrain nothing else.
  z3::expr violation(z3::solver& s, const SysStep& st, const SysState& a) {
    const z3::expr v = st.bad || !system_->lemma(a);
    add_definitions(s);
    return v;
  }

  // One unrolling: the BMC one from creation (s…) or the induction one from any state (t…).
  struct Unrolling {
    z3::solver solver;
    SysState first, last;
    std::vector<SysChoice> steps;
    int scope;
  };

  // The last step added to an unrolling: from `before` by `choice`, and its violation.
  struct LastStep {
    SysState before;
    SysChoice choice;
    z3::expr bad;
  };

  Unrolling unrolling(unsigned scope) {
    num_.set_scope(scope);
    const SysState first = system_->fresh(scope == 0 ? "s0" : "t0");
    // Linux64 is pure bit-vector logic: QF_BV gives Z3's incremental SAT solver, which
    // bit-blasts, instead of its general SMT core.
    z3::solver solver = num_.exact() ? z3::solver(ctx_) : z3::solver(ctx_, "QF_BV");
    // Ctrl-C is the caller's (the stop flag, which the watchdog turns into an interrupt): Z3's
    // own handler would cancel the check without the caller knowing why.
    z3::params p(ctx_);
    p.set("ctrl_c", false);
    solver.set(p);
    return {solver, first, first, {}, static_cast<int>(scope)};
  }

  void add_definitions(z3::solver& s) {
    for (const z3::expr& d : num_.take_definitions()) s.add(d);
  }

  Unrolling base() {
    Unrolling u = unrolling(0);
    u.solver.add(system_->creation(u.first, u.last) && system_->symmetry(u.first));
    add_definitions(u.solver);
    return u;
  }

  Unrolling step() {
    Unrolling u = unrolling(1);
    u.solver.add(system_->lemma(u.first));
    u.solver.add(!system_->bad_state(u.first));
    add_definitions(u.solver);
    return u;
  }

  // Adds step k to u and asks whether it can violate the invariant. On unsat the step is kept,
  // with what it established as a hypothesis for the steps after it.
  z3::check_result extend(Unrolling& u, int k, const char* phase) {
    num_.set_scope(u.scope);
    const std::string tag = (u.scope == 0 ? "s" : "t") + std::to_string(k);
    const SysChoice ch = system_->fresh_choice("c" + tag);
    const SysState next = system_->fresh(tag);
    const SysStep st = system_->step(u.last, ch, next);
    u.solver.add(st.relation);
    const z3::expr v = violation(u.solver, st, next);
    u.solver.push();
    u.solver.add(v);
    const z3::check_result res = u.solver.check();
    report(u.solver, k, phase);
    if (res != z3::unsat) {
      const SysState before = u.last;
      u.steps.push_back(ch);
      u.last = next;
      if (res == z3::sat) last_step_.emplace(LastStep{before, ch, st.bad});
      return res;
    }
    u.solver.pop();
    // What step k established holds from here on: the induction hypothesis (k-induction), and a
    // hint that speeds up the deeper BMC depths (the lemma, the structural domain at least, was
    // part of the violation just refuted: checked, not merely assumed).
    u.solver.add(!st.bad);
    u.solver.add(system_->lemma(next));
    add_definitions(u.solver);
    u.steps.push_back(ch);
    u.last = next;
    return res;
  }

  // k = 1, 2, …: the base case at depth k (a counterexample is a shortest one), then, for an
  // inductive invariant, the induction step at k.
  Result search() {
    Result r;
    r.method = "bmc";
    Unrolling b = base();
    const bool induct = info_.inductive && o_.induction;
    std::optional<Unrolling> t;
    if (induct) t = step();
    bool step_open = induct;
    for (int k = 1; k <= o_.depth; ++k) {
      const z3::check_result res = extend(b, k, "bmc");
      if (res == z3::unknown) return unknown(r, b.solver, "held to depth " + std::to_string(k - 1));
      if (res == z3::sat) return found(r, b, k);
      r.depth = held_depth_ = k;
      if (!step_open) continue;
      const z3::check_result ind = extend(*t, k, "k-induction");
      if (ind == z3::unsat) {
        r.verdict = Verdict::Proved;
        r.method = "k-induction";
        fill(r);
        return r;
      }
      if (ind == z3::unknown) {
        step_open = false;
        r.note = "induction step open at k = " + std::to_string(k) + " (" +
                 (watchdog_.reason() ? watchdog_.reason() : t->solver.reason_unknown()) + ")";
        if (watchdog_.reason())
          return unknown(r, b.solver, "BMC held to depth " + std::to_string(k));
        continue;
      }
      const z3::model m = t->solver.get_model();
      r.induction_step = {system_->values(m, last_step_->before),
                          system_->step_text(m, last_step_->choice), system_->values(m, t->last)};
      r.note = "k-induction did not close up to k = " + std::to_string(k) +
               ": the failing induction step is `" + r.induction_step->op +
               "` from a state that keeps the invariant for k steps but is not reachable";
      t->solver.pop();
      t->solver.add(!last_step_->bad);
      t->solver.add(system_->lemma(t->last));
      add_definitions(t->solver);
    }
    r.verdict = Verdict::Held;
    fill(r);
    return r;
  }

  Result found(Result r, Unrolling& b, int k) {
    const z3::model m = b.solver.get_model();
    const bool shown = m.eval(last_step_->bad, true).is_true();
    // An interrupt during the evaluation leaves it unfinished: not evidence either way.
    if (watchdog_.reason()) return unknown(r, b.solver, "held to depth " + std::to_string(k - 1));
    if (!shown) {
      r.verdict = Verdict::Unknown;
      r.note = "the induction lemma of " + o_.invariant + " fails at depth " + std::to_string(k) +
               " (a lemma too strong, not a violation)";
      fill(r);
      return r;
    }
    r.verdict = Verdict::Counterexample;
    r.depth = k;
    Counterexample c;
    c.ops = system_->decode(m, b.first, b.steps);
    if (watchdog_.reason()) return unknown(r, b.solver, "held to depth " + std::to_string(k - 1));
    c.violated_step = static_cast<int>(c.ops.size()) - 1;
    c.promised = promised_by(o_.params.preset, o_.invariant);
    r.cex = std::move(c);
    fill(r);
    return r;
  }

  const Options& o_;
  const std::function<void(const Progress&)>& progress_;
  z3::context ctx_;
  Numbers num_;
  std::unique_ptr<System> system_;
  InvariantInfo info_;
  Clock::time_point start_ = Clock::now();
  Figures last_;
  std::optional<LastStep> last_step_;  // the last step that a check found satisfiable
  int held_depth_ = 0;                 // the deepest BMC depth refuted so far
  Watchdog watchdog_;
};

}  // namespace

const std::vector<InvariantInfo>& invariants() {
  static const std::vector<InvariantInfo> all = [] {
    std::vector<InvariantInfo> out;
    for (const Property& p : properties())
      if (p.prove.bmc) out.push_back({p.id, p.prove.induction != Induction::Never, p.prove.steady});
    return out;
  }();
  return all;
}

namespace {

void validate_groups(const Options& o) {
  const Property& p = property(o.invariant);
  if (o.groups.empty()) {
    if (p.prove.groups)
      throw Error("prove: " + o.invariant + " is a hierarchy's: it needs --groups");
    if (o.mutation == Mutation::NoGroupDequeue)
      throw Error("prove: --mutate no-group-dequeue breaks a hierarchy: it needs --groups");
    return;
  }
  if (o.groups.size() > 3) throw Error("prove: --groups names at most 3 groups");
  int sum = 0;
  for (int n : o.groups) {
    if (n < 1 || n > 3) throw Error("prove: each group of --groups holds 1..3 tasks");
    sum += n;
  }
  if (o.tasks != sum) throw Error("prove: --tasks must be the sum of --groups");
  if (p.prove.steady)
    throw Error("prove: " + o.invariant +
                " is judged over the steady driver of one runqueue, "
                "not over --groups");
  if (o.arith != Arith::Exact) throw Error("prove: --groups is encoded in exact arithmetic only");
  if (o.group_weights.empty()) throw Error("prove: --group-weights needs at least one value");
}

}  // namespace

void validate(const Options& o) {
  bool known = false;
  for (const auto& inv : invariants()) known = known || inv.id == o.invariant;
  if (!known) {
    std::string names;
    for (const auto& inv : invariants()) names += (names.empty() ? "" : ", ") + inv.id;
    throw Error("prove: unknown invariant '" + o.invariant + "' (one of " + names + ")");
  }
  if (o.tasks < 1 || o.tasks > 6) throw Error("prove: --tasks must be in 1..6");
  validate_groups(o);
  if (o.depth < 1 || o.depth > 64) throw Error("prove: --depth must be in 1..64");
  if (o.weights.empty() || o.slices.empty())
    throw Error("prove: --weights and --slices need at least one value");
  if (o.arith == Arith::Linux64 && !property(o.invariant).prove.linux64) {
    std::vector<std::string> covered;
    for (const Property& p : properties())
      if (p.prove.linux64) covered.emplace_back(p.id);
    std::string names;
    for (size_t i = 0; i < covered.size(); ++i)
      names += (i == 0 ? "" : i + 1 == covered.size() ? " and " : ", ") + covered[i];
    throw Error("prove: " + o.invariant + " is encoded in exact arithmetic only; linux64 covers " +
                names);
  }
  if (o.timeout_s < 0) throw Error("prove: --timeout must be ≥ 0");
  if (o.max_delta_ns < 0) throw Error("prove: --max-delta must be ≥ 0");
}

Result search(const Options& o, const std::function<void(const Progress&)>& progress,
              std::atomic<bool>* stop) {
  validate(o);
  Prover p(o, progress, stop);
  return p.run();
}

}  // namespace vlag::smt
