// Cost of one scheduling cycle of the CFS runqueue (cfs/, SPEC.md §8) — a sleeper wakes and is
// checked for wakeup preemption, pick, run 100 µs, tick, the picked task sleeps, pick — with n
// tasks queued, for the policies cfs and cfs-latency-nice (every third task latency_nice −10
// there). Each cycle is eight operations; items/s counts operations.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "cfs/runqueue.h"
#include "spec/cfs_policy.h"
#include "spec/weights.h"

namespace {

using namespace vlag;

constexpr int64_t kRunNs = 100'000;

struct Fixture {
  Fixture(int64_t n, bool latency)
      : rq(make_params(cfs_preset(latency ? kCfsLatencyNicePolicy : kCfsPolicy)),
           cfs::CfsOptions{latency}) {
    for (TaskId id = 0; id <= n; ++id) {
      rq.apply({OpKind::Create, id, nice_to_weight(static_cast<int>(id % 11) - 5)});
      if (latency && id % 3 == 0) rq.set_latency_nice(id, -10);
      if (id < n) rq.apply({OpKind::Enqueue, id});
    }
    sleeper = n;
    rq.apply({OpKind::Pick});
  }
  void cycle() {
    rq.apply({OpKind::Enqueue, sleeper});
    rq.apply({OpKind::WakeupPreempt, sleeper});
    rq.apply({OpKind::Pick});
    const TaskId picked = *rq.curr();
    rq.apply({OpKind::Run, 0, kRunNs});
    rq.apply({OpKind::Tick});
    rq.apply({OpKind::Dequeue, picked, 0, 0, kDequeueSleep});
    rq.apply({OpKind::Pick});
    sleeper = picked;
  }
  cfs::Runqueue rq;
  TaskId sleeper;
};

Fixture& fixture(int64_t n, bool latency) {
  static std::map<std::pair<int64_t, bool>, std::unique_ptr<Fixture>> fixtures;
  auto& f = fixtures[{n, latency}];
  if (!f) f = std::make_unique<Fixture>(n, latency);
  return *f;
}

void run(benchmark::State& state, bool latency) {
  auto& f = fixture(state.range(0), latency);
  for (auto _ : state) f.cycle();
  state.SetItemsProcessed(state.iterations() * 8);
}

void BM_cfs(benchmark::State& state) { run(state, false); }
void BM_cfs_latency_nice(benchmark::State& state) { run(state, true); }

BENCHMARK(BM_cfs)->RangeMultiplier(10)->Range(10, 100'000);
BENCHMARK(BM_cfs_latency_nice)->RangeMultiplier(10)->Range(10, 100'000);

}  // namespace

BENCHMARK_MAIN();
