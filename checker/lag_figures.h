// The lag theorems of SPEC.md §6 on a trace, with lag as SPEC.md §2 defines it for EEVDF,
// lag_k = w_k·(V − v_k)/N (ns of service; V the weighted average of the queued vruntimes), taken
// from the checker's view — the trace's own numbers, or where it reports none the shadow
// reference's — at every decision point (each pick) for every queued entity:
//   THM-LAG-BOUND, −r_k < lag_k < max(r_k, q): a verdict where the preset promises it (paper)
//     and the system is steady (every join and leave so far at zero lag), else a figure;
//   THM-LAG-BOUND-LINUX, −(r_k + TICK) ≤ lag_k ≤ r_k + TICK: a figure under the Linux presets.
// A figure names its bound only while the run is one the theorem speaks of: a steady system for
// THM-LAG-BOUND, a steady system of CPU-bound entities (none has left the queue) for
// THM-LAG-BOUND-LINUX. Past that point it is the largest |lag_k| and says why it has no bound.
// A figure also counts the samples it judged that lie beyond the bound (exactly, as `vlag prove`
// judges them), saying where the preset does not promise the theorem: a counterexample prove
// reports as not promised (THM-LAG-BOUND under a Linux preset) is a count there, not a silence.
// `vlag demo` measures its table's max|lag| the same way (sim/demo_probe.h), so the two agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checker/report.h"
#include "checker/view.h"

namespace vlag::checker {

class LagFigures {
 public:
  LagFigures(const Params& params, Report& report, std::string file);

  /// One decision point: the view after a pick, with its V. `steady`: every join and leave so
  /// far was at zero lag; `cpu_bound`: no entity has left the queue.
  void at_decision(const View& view, const Exact& V, bool steady, bool cpu_bound, int64_t line);
  /// A decision point whose vruntimes the checker does not know (no V reported, no shadow).
  void unmeasurable(int64_t line);
  /// Writes each ID's figure into the report.
  void finish();

 private:
  // One ID's samples: the worst judged against its bound (by |lag| / bound), and the largest
  // |lag| of all, with where the bound stopped applying.
  struct Worst {
    int64_t samples = 0;
    int64_t judged = 0;  // samples with a bound
    int64_t beyond = 0;  // … of which outside it
    double ratio = -1;   // of the worst judged sample; < 0: none judged
    std::string worst_judged;
    double lag = -1;  // the largest |lag|, ns; < 0: no sample
    std::string largest;
    int64_t unjudged_from = 0;  // the first line without a bound; 0: every sample had one
    std::string why_unjudged;
  };

  /// `bound`: the bound on the side of lag's sign, 0 when the run cannot be judged (`why`);
  /// `holds`: the sample is within it.
  void sample(Worst& w, const ViewEntity& e, double lag, int64_t bound, bool holds,
              const char* side, const char* why, int64_t line);
  struct Lag;
  /// lag_k exactly, into `lag`.
  Lag exact_lag(const ViewEntity& e, const Exact& V, Exact& lag) const;
  /// lag_k in integers into `lag`, when V and v_k are s64 and w_k·(V − v_k) is below 2^53; false
  /// otherwise (`lag` unspecified). Not an optional: its copy, byte by byte, stalled the walk.
  bool integer_lag(const ViewEntity& e, int64_t V, Lag& lag) const;
  /// at_decision() where no bound applies (not steady) and every lag is an integer sample.
  bool largest_only(const View& view, const Exact& V, int64_t V64, int64_t line);
  /// The integer form's sample against the exact one; throws CheckerBug when they differ.
  void confirm(const ViewEntity& e, const Exact& V, const Lag& fast) const;
  void judge_paper(const ViewEntity& e, const Exact& lag, const Exact& V, int64_t line);
  void write(const char* id, const Worst& w, bool verdict);

  Params params_;
  Report& report_;
  std::string file_;
  bool paper_;  // THM-LAG-BOUND is promised (SPEC.md §6, spec/properties.h)
  Worst paper_worst_, linux_worst_;
  int64_t unmeasurable_from_ = 0;
  int64_t integer_samples_ = 0;  // samples the integer form decided
  Exact lag_;                    // the exact lag of the sample at hand, kept from event to event
};

}  // namespace vlag::checker
