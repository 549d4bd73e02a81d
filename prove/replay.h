// A counterexample's operations replayed on the exact reference runqueue (reference/): which
// step the reference flags with the same SPEC.md §6 ID, and the trace file (spec/TRACE.md
// format, written through trace::TraceObserver) that `vlag check` reads; a --groups
// counterexample goes to the reference hierarchy instead (group_replay.h). Free of Z3.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "prove/prove.h"

namespace vlag::prove {

struct Replay {
  std::optional<int> step;  // index into ops of the first operation after which `id` fails
  std::string detail;
  bool promised = true;
  std::string lag_reached;  // THM-LAG-BOUND*: "lag L ns against bound B"
};

/// Replays ops (creation included) under o.params; `steady`: the lag bounds are judged after
/// each run (the decision points of the steady driver).
Replay replay(const Options& o, const std::vector<Op>& ops, bool steady);

/// Writes ops as a trace, each event with the state the reference computed for it.
void write_trace(const Options& o, const std::vector<Op>& ops, std::ostream& out);

}  // namespace vlag::prove
