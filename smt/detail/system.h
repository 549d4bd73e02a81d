// What the engine (smt/engine.cpp) searches: a system of runqueues as Z3 terms — one runqueue
// (flat_system.cpp) or a CPU's hierarchy of task groups (group_system.cpp) — with its creation,
// its step relation and the violation a step may commit, the lemmas k-induction assumes, and
// the decoding of a model back into spec operations and values. The engine knows no more of it.
#pragma once

#include <z3++.h>

#include <memory>
#include <string>
#include <vector>

#include "smt/detail/step.h"
#include "smt/engine.h"

namespace vlag::smt::detail {

struct SysState {
  std::vector<SymState> rq;      // [0] the root runqueue (a flat system's only one), then groups
  std::vector<z3::expr> shares;  // per group: its shares S_G (small); none in a flat system
};

struct SysChoice {
  Choice op;
  z3::expr group;     // small, 1..G: the group runqueue a task's operation names (hierarchy)
  z3::expr on_group;  // Bool: the reweight is a write of the group's cpu.weight (hierarchy)
};

struct SysStep {
  z3::expr relation;  // s → next, precondition and side conditions included
  z3::expr bad;       // the step violates the invariant searched
};

class System {
 public:
  virtual ~System() = default;
  virtual SysState fresh(const std::string& prefix) = 0;
  virtual SysChoice fresh_choice(const std::string& prefix) = 0;
  /// The creation s0 and, in `start`, the state the first step leaves from (the steady
  /// driver's joins come between): the constraints that tie them.
  virtual z3::expr creation(const SysState& s0, SysState& start) = 0;
  /// Symmetry breaking of the creation: a schedule of tasks created in any order is one of
  /// tasks created in a canonical order, renamed (the search adds it; the agreement does not).
  virtual z3::expr symmetry(const SysState& s0) = 0;
  virtual SysStep step(const SysState& s, const SysChoice& c, const SysState& next) = 0;
  /// A state invariant's violation (false for a step invariant): k-induction assumes its
  /// negation at the first state.
  virtual z3::expr bad_state(const SysState& s) = 0;
  /// The structural domain and the strengthening lemmas (spec/RESULTS.md).
  virtual z3::expr lemma(const SysState& s) = 0;
  virtual std::vector<Op> decode(const z3::model& m, const SysState& s0,
                                 const std::vector<SysChoice>& steps) = 0;
  virtual std::string step_text(const z3::model& m, const SysChoice& c) = 0;
  virtual StateValues values(const z3::model& m, const SysState& s) = 0;
};

/// The weights any term may multiply or divide by: the tasks' and, in a hierarchy, the groups'.
std::vector<int64_t> weight_set(const Options& o);

/// The system o describes: a hierarchy when o.groups is set, one runqueue otherwise.
std::unique_ptr<System> make_system(Numbers& num, const Options& o, bool steady);
std::unique_ptr<System> make_flat_system(Numbers& num, const Options& o, bool steady);
std::unique_ptr<System> make_group_system(Numbers& num, const Options& o);

}  // namespace vlag::smt::detail
