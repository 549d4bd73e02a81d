// Fuzz target: the spec's invariants themselves, not one runqueue against another. Bytes decode
// (fuzz/op_decoder.h) to a Linux preset with any feature flags, tasks and operations, run on the
// exact reference and on the reference in Linux integer arithmetic. After every operation the
// exact runqueue's state and step are judged by every ID the registry has the reference judge
// (reference/invariants.h) that the preset promises; at the end both runqueues' traces go
// through `vlag check` (the checker's own protection window, the shadow, §7.3's bounds on the
// Linux trace), which must report no violation and no trace fault. Anything else aborts with the
// case and what broke.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "checker/run.h"
#include "fuzz/op_decoder.h"
#include "reference/invariants.h"
#include "reference/round_trip.h"
#include "reference/runqueue.h"
#include "spec/error.h"
#include "trace/observer.h"

namespace {

using namespace vlag;

[[noreturn]] void fail(const fuzz::FuzzCase& c, const std::string& what) {
  std::fprintf(stderr, "invariant_fuzzer: %s [%s]: %s\n", c.preset.c_str(), c.features.c_str(),
               what.c_str());
  std::abort();
}

trace::Header header(const Params& params) {
  trace::Header h;
  h.producer = "invariant_fuzzer";
  h.params = params;
  return h;
}

template <class Rq>
bool apply(Rq& rq, const Op& op) {
  try {
    reference::apply_with_round_trip(rq, op);
    return true;
  } catch (const Error&) {
    return false;
  }
}

void check_trace(const fuzz::FuzzCase& c, const char* which, const std::string& text) {
  checker::CheckOptions quiet;
  quiet.arbiter = false;
  const checker::Report r = checker::check({checker::text_source(which, text)}, quiet);
  if (r.problem_count != 0) fail(c, std::string(which) + ": a trace fault in the runqueue's trace");
  if (!r.violations.empty())
    fail(c, std::string(which) + ": " + r.violations.front().id + " at line " +
                std::to_string(r.violations.front().line) + ": " + r.violations.front().detail);
}

}  // namespace

// Each operation copies and judges the exact state: a shorter case keeps the fuzzer at a useful
// rate of executions, and long histories are what the property tests run.
constexpr size_t kMaxOps = 1000;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzCase c = fuzz::decode_case(data, size);
  if (c.ops.size() > kMaxOps) c.ops.resize(kMaxOps);
  const Params params = fuzz::case_params(c);
  std::ostringstream exact_text, linux_text;
  trace::TraceObserver<reference::Num> exact_tracer(exact_text, header(params));
  trace::TraceObserver<LinuxTime> linux_tracer(linux_text, header(params));
  reference::Runqueue exact(params);
  reference::LinuxRunqueue linux(params);
  reference::History history;  // the judge's own record of the operations (INV-NEXT-BUDDY)
  exact.set_observer(&exact_tracer);
  linux.set_observer(&linux_tracer);
  for (size_t i = 0; i < c.tasks.size(); ++i) {
    const Op create{OpKind::Create, static_cast<TaskId>(i + 1), c.tasks[i].first,
                    c.tasks[i].second};
    if (apply(exact, create)) history.saw(create);
    apply(linux, create);
  }
  for (const Op& op : c.ops) {
    const reference::Runqueue before = exact;
    if (apply(exact, op)) {
      const auto v = reference::promised_only(reference::check_step(before, op, exact, &history));
      history.saw(op);
      if (!v.empty()) fail(c, v.front().id + " after " + to_string(op) + ": " + v.front().detail);
    }
    apply(linux, op);
  }
  check_trace(c, "exact.jsonl", exact_text.str());
  check_trace(c, "linux64.jsonl", linux_text.str());
  return 0;
}
