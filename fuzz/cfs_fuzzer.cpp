// Fuzz target: the CFS runqueue (cfs/, SPEC.md §8) on decoded operation sequences, plain or
// with the latency-nice series (the first byte's low bit), with latency_nice values from the
// case's slices. After every operation its own accounting must agree (queued count, load,
// min_vruntime monotonic, every queued task within the sleeper credit of min_vruntime); at the
// end its trace must pass the CFS checker. Anything else aborts.
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "cfs/runqueue.h"
#include "checker/run.h"
#include "fuzz/op_decoder.h"
#include "spec/cfs_policy.h"
#include "spec/error.h"
#include "trace/observer.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "cfs_fuzzer: %s\n", what.c_str());
  std::abort();
}

void check_accounting(const vlag::cfs::Runqueue& rq, size_t ntasks, int64_t& min_v) {
  using namespace vlag;
  if (rq.min_vruntime().value() < min_v) fail("min_vruntime went back");
  min_v = rq.min_vruntime().value();
  int64_t queued = 0, load = 0;
  // The decoder's ids run to ntasks + 2: ops create and exit the two beyond the case's tasks.
  for (TaskId id = 1; id <= static_cast<TaskId>(ntasks) + 2; ++id) {
    if (!rq.has(id)) continue;
    const auto& e = rq.entity(id);
    if (e.status != Status::Queued) continue;
    ++queued;
    load += e.weight;
    if (e.vruntime.value() < min_v - rq.tunables().sleeper_credit_ns())
      fail("task " + std::to_string(id) + " is more than the sleeper credit behind");
  }
  if (queued != rq.nr_queued() || load != rq.load()) fail("queued count or load disagree");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vlag;
  const bool latency = size > 0 && (data[0] & 1);
  const fuzz::FuzzCase c = fuzz::decode_case(data, size);
  const Params params = make_params(cfs_preset(latency ? kCfsLatencyNicePolicy : kCfsPolicy));
  trace::Header header;
  header.producer = "cfs_fuzzer";
  header.params = params;
  std::ostringstream out;
  trace::TraceObserver<int64_t> tracer(out, header);
  cfs::Runqueue rq(params, cfs::CfsOptions{latency});
  rq.set_observer(&tracer);
  for (size_t i = 0; i < c.tasks.size(); ++i) {
    const auto id = static_cast<TaskId>(i + 1);
    try {
      rq.apply({OpKind::Create, id, c.tasks[i].first, c.tasks[i].second});
      if (latency) rq.set_latency_nice(id, static_cast<int>(c.tasks[i].second % 40) - 20);
    } catch (const Error&) {
    }
  }
  int64_t min_v = rq.min_vruntime().value();
  for (const Op& op : c.ops) {
    try {
      rq.apply(op);
    } catch (const Error&) {
    }
    check_accounting(rq, c.tasks.size(), min_v);
  }
  checker::CheckOptions options;
  options.arbiter = false;
  const checker::Report report = checker::check({checker::text_source("cfs", out.str())}, options);
  if (report.violation_count != 0)
    fail(report.violations.front().id + ": " + report.violations.front().detail);
  return 0;
}
