// Bounded model checking and k-induction of SPEC.md §6 over the symbolic model of SPEC.md §4
// (smt/detail/): the question (Options) and the answer (Result) of a search, free of Z3. They are
// the contract of `vlag prove`, whose front (prove/prove.h) names them for its callers and
// completes a counterexample by replaying it through the reference; they live here because the
// engine below prove/ reads and writes them.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "spec/arith.h"
#include "spec/features.h"
#include "spec/ops.h"
#include "spec/properties.h"

namespace vlag::smt {

/// A deliberate break of one operation, to show that a proof depends on it (never the default).
enum class Mutation : uint8_t {
  None,
  NoInflation,     // §4.3 step 2 without the (W + w)/W factor
  NoLeaveRule,     // §3 without TR eq. 18 on a leave
  NoEligibility,   // §4.4 picking the earliest deadline whether eligible or not
  NoGroupDequeue,  // §10.2 a group entity left queued when its runqueue empties (--groups)
};

struct Options {
  Params params = make_params(preset_by_name(kDefaultPreset));
  int tasks = 2;
  int depth = 4;
  std::string invariant = ids::kInvLagSum;
  Arith arith = Arith::Exact;                   // the arithmetic the symbolic model computes in
  std::vector<int64_t> weights = {1024, 3121};  // values a weight may take (creation, reweight)
  std::vector<int64_t> slices = {0};            // 0: the base slice; others: custom slices
  int64_t max_delta_ns = 0;                     // run δ ≤ this; 0: one tick
  // A hierarchy (SPEC.md §10) on one CPU: groups[g] tasks in group g + 1, each group's entity on
  // the root runqueue; `tasks` is then their sum. Empty: one runqueue of `tasks` tasks.
  std::vector<int> groups;
  std::vector<int64_t> group_weights = {1024};  // values a group's shares S_G may take
  double timeout_s = 0;                         // 0: none
  bool induction = true;                        // k-induction where the invariant allows it
  Mutation mutation = Mutation::None;
};

enum class Verdict : uint8_t {
  Proved,          // k-induction: holds at every depth
  Held,            // BMC: holds up to the depth
  Counterexample,  // a violating schedule was found
  Unknown,         // timeout, interrupt or solver gave up
};

/// The engine fills ops, violated_step (the last step) and promised (whether the preset promises
/// the ID); the replay through the reference (prove/) fills the rest and refines those two.
struct Counterexample {
  std::vector<Op> ops;            // from creation: create…, then the schedule
  int violated_step = 0;          // index into ops of the operation after which it fails
  std::string detail;             // the values that show it (from the reference replay)
  bool reference_agrees = false;  // the exact reference flags the same ID on replay
  bool promised = true;           // false: the preset documents this behaviour (SPEC.md §6)
  std::string lag_reached;        // THM-LAG-BOUND: lag (ns) against its bound
};

/// A state of the symbolic model as a model gives it, in exact text ("p/q" or an integer), ns
/// for lags and requests: what a strengthening lemma has to rule out.
struct EntityValues {
  EntityId id = 0;
  std::string status;  // "sleeping", "queued", "delayed"
  int64_t weight = 0;
  std::string slice, v, d, lag, rest;  // lag = w·(V − v)/N, rest = w·(d − v)/N
};
struct StateValues {
  EntityId curr = 0;  // 0: none
  std::string V;
  std::vector<EntityValues> entities;  // in a hierarchy's root: the group entities, id = group
  std::vector<StateValues> groups;     // a hierarchy's group runqueues, group 1 first
};

/// The failing step of an induction that did not close: from `before`, which keeps the
/// invariant (and its lemmas) for k steps but is not reachable, `op` leads to `after`, which
/// violates it.
struct InductionStep {
  StateValues before;
  std::string op;
  StateValues after;
};

struct Result {
  Verdict verdict = Verdict::Unknown;
  int depth = 0;       // depth reached (BMC) or k of the proof
  std::string method;  // "bmc" or "k-induction"
  std::string note;    // why unknown, or what a failed induction step showed
  std::optional<Counterexample> cex;
  std::optional<InductionStep>
      induction_step;  // the last failing one, when induction did not close
  double seconds = 0;
  int64_t conflicts = 0;
  int64_t decisions = 0;
  double memory_mb = 0;
};

struct Progress {
  int depth = 0;
  std::string phase;  // "base", "step"
  double seconds = 0;
  int64_t conflicts = 0;
  double memory_mb = 0;
};

/// Invariant IDs `vlag prove` accepts, with whether k-induction applies to them.
struct InvariantInfo {
  std::string id;
  bool inductive = false;
  bool steady = false;  // judged over the steady-system driver (pick, run) of SPEC.md §6
};
const std::vector<InvariantInfo>& invariants();

/// Does the preset promise `id` (SPEC.md §6 "Holds", spec/properties.h)?
inline bool promised_by(const Preset& p, const std::string& id) { return property(id).promised(p); }

/// Throws vlag::Error for options that cannot be encoded (unknown ID, empty ranges, …).
void validate(const Options& o);

/// Runs BMC with iterative deepening to o.depth, then (if the invariant is inductive and BMC
/// found nothing) k-induction for k = 1..o.depth. `stop` interrupts the solver from another
/// thread or a signal handler; the result then says what was established. A counterexample
/// comes as the model's schedule, not yet replayed (prove::run replays it).
Result search(const Options& o, const std::function<void(const Progress&)>& progress,
              std::atomic<bool>* stop);

}  // namespace vlag::smt
