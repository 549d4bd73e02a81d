// `vlag check`: one streaming pass over a trace, layer by layer (SPEC.md §6, spec/TRACE.md §4):
//   1. service (checker/service.h): lag against the fluid ideal, wakeup latency, starvation;
//   2. decisions: every pick judged on the trace's own numbers — eligible, earliest eligible
//      deadline modulo protection and the next buddy — and, from a trace that starts at the
//      beginning, against a shadow reference runqueue that executes the same operations in the
//      trace's arithmetic (checker/shadow.h);
//   3. state, when events carry it: V and W against the entities (INV-LAG-SUM), INV-DEADLINE,
//      INV-PLACE-LAG, INV-REWEIGHT, INV-LAG-CLAMP, the 64-bit margins of Linux's sums
//      (INV-S64-MARGIN), and every reported field against the shadow (INV-STEP). On a trace in
//      Linux arithmetic the rounded IDs are judged within SPEC.md §7.3's bounds.
// Memory is proportional to the live tasks. Violations carry an SMT-LIB witness for the Z3
// arbiter; windows and Z3 work happen after the pass (checker/run.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "checker/report.h"
#include "checker/service.h"
#include "checker/shadow.h"
#include "checker/view.h"
#include "trace/event.h"

namespace vlag::checker {

class Checker {
 public:
  Checker(const trace::Header& header, std::string file, Report& report);

  /// Checks one event and applies it. Throws trace::InputError for a trace fault (the event is
  /// then not applied; the caller may skip it under --keep-going).
  void consume(const trace::Event& e, int64_t line);
  void finish();

  /// The state at this point as `entity` lines: the start of a replayable window.
  std::vector<trace::Event> snapshot() const;
  int64_t events() const { return index_; }

 private:
  [[noreturn]] void fault(trace::Fault f, const std::string& field, const std::string& what) const;
  void validate(const trace::Event& e) const;
  void advance_to(int64_t t);
  void run(int64_t delta);
  void apply_shadow(const trace::Event& e);
  void update_view(const trace::Event& e, Status status_before);
  void refresh_from_shadow(ViewEntity& v) const;
  void apply_reported(ViewEntity& v, const trace::EntityFields& s) const;
  void new_request(ViewEntity& v, const Exact& request) const;
  void complete_delayed_dequeues(std::optional<TaskId> picked, std::optional<int64_t> W_after);

  void check_pick(const trace::Event& e, bool curr_protected, std::optional<TaskId> curr_before,
                  std::optional<TaskId> next_before);
  void check_state(const trace::Event& e, const Exact& V_before, int64_t W_before,
                   const ViewEntity* before);
  void check_step(const trace::Event& e);
  void stop_shadow(std::string_view what);
  void check_lag_sum(const trace::Event& e);
  bool integer_lag_sum_holds(const Exact& V, int64_t W) const;
  void check_deadline(const ViewEntity& v);
  void check_place(const ViewEntity& before, const ViewEntity& after, const Exact& V_after,
                   int64_t W_before);
  void check_reweight(const ViewEntity& before, const ViewEntity& after, const Exact& V_before,
                      const Exact& V_after);
  void check_saved_lag(const ViewEntity& v, bool from_delayed);
  void check_s64_margins();
  Exact vruntime_bound() const;

  void checked(const char* id) { ++report_.stats[id].checked; }
  void violate(const char* id, std::string detail, Witness w, bool promised = true);
  Witness queue_witness(const Exact* V_reported) const;

  Params params_;
  bool window_;
  trace::Arith arith_;
  std::string file_;
  Report& report_;
  View view_;
  ServiceLayer service_;
  std::optional<Shadow> shadow_;  // alive while the trace follows the spec's steps
  int64_t now_ = 0;
  int64_t index_ = 0;
  int64_t line_ = 0;
};

}  // namespace vlag::checker
