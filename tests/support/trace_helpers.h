// Shared by the trace and checker tests: run the reference (or the demo driver) with a trace
// observer and check the resulting text.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "checker/run.h"
#include "reference/round_trip.h"
#include "reference/runqueue.h"
#include "sim/demo.h"
#include "spec/error.h"
#include "tests/support/step_gen.h"
#include "trace/observer.h"

namespace vlag::testing {

inline trace::Header header_for(const Params& params) {
  trace::Header h;
  h.producer = "vlag tests";
  h.params = params;
  return h;
}

/// The trace a runqueue writes while `drive(rq)` runs it, its tasks 1..n created first.
template <class Rq, class Drive>
std::string traced_run(const Params& params, const std::vector<std::pair<int64_t, int64_t>>& tasks,
                       Drive&& drive) {
  std::ostringstream out;
  trace::TraceObserver<typename Rq::Num> tracer(out, header_for(params));
  Rq rq(params);
  rq.set_observer(&tracer);
  for (size_t i = 0; i < tasks.size(); ++i)
    rq.apply({OpKind::Create, static_cast<TaskId>(i + 1), tasks[i].first, tasks[i].second});
  drive(rq);
  return out.str();
}

/// One operation as the sequences apply it: rejected ones leave no event, as in a real run.
template <class Rq>
void apply_if_accepted(Rq& rq, const Op& op) {
  try {
    reference::apply_with_round_trip(rq, op);
  } catch (const Error&) {
  }
}

/// The trace of the ops a runqueue accepts: the reference by default, or any BasicRunqueue such
/// as optimized::Runqueue.
template <class Rq = reference::Runqueue>
std::string runqueue_trace(const Params& params,
                           const std::vector<std::pair<int64_t, int64_t>>& tasks,
                           const std::vector<Op>& ops) {
  return traced_run<Rq>(params, tasks, [&](Rq& rq) {
    for (const Op& op : ops) apply_if_accepted(rq, op);
  });
}

/// The same for generated steps (tests/support/step_gen.h), each resolved on the runqueue's
/// state when it comes.
template <class Rq = reference::Runqueue>
std::string steps_trace(const Params& params, const std::vector<std::pair<int64_t, int64_t>>& tasks,
                        const std::vector<Step>& steps) {
  return traced_run<Rq>(params, tasks, [&](Rq& rq) {
    for (const Step& step : steps)
      for (const Op& op : resolve(rq, step)) apply_if_accepted(rq, op);
  });
}

inline std::string demo_trace(const std::string& preset, int64_t duration_ns,
                              const std::vector<sim::DemoTask>& tasks = sim::demo_workload()) {
  const Params params = make_params(preset_by_name(preset));
  std::ostringstream out;
  trace::TraceObserver<reference::Num> tracer(out, header_for(params));
  sim::run_demo(params, tasks, duration_ns, false, &tracer);
  return out.str();
}

inline checker::Report check_text(const std::string& text, bool keep_going = false,
                                  std::string evidence_dir = "") {
  checker::CheckOptions o;
  o.keep_going = keep_going;
  o.evidence_dir = std::move(evidence_dir);
  o.arbiter = !o.evidence_dir.empty();
  return checker::check({checker::text_source("t.jsonl", text)}, o);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

/// The line with a space after each colon outside a string (a line without escapes): the same
/// JSON, but not a plain line (trace/plain_line.h), so the reader gives it to simdjson.
inline std::string spaced(const std::string& line) {
  std::string out;
  bool in_string = false;
  for (const char c : line) {
    out += c;
    if (c == '"') in_string = !in_string;
    if (c == ':' && !in_string) out += ' ';
  }
  return out;
}

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace vlag::testing
