// Cost of one scheduling cycle — enqueue a task, pick, run it 100 µs, dequeue it (a migration,
// so the queue stays at n) — with n tasks queued, under the default preset, for:
//   optimized   optimized::Runqueue (augmented rbtree, O(log n));
//   reference   reference::LinuxRunqueue (the same operations over O(n) scans), n ≤ 10 000;
//   multiset    a plain Boost.Intrusive multiset doing the cycle's tree work alone: one insert
//               and one erase of the leftmost node, the floor no augmented tree can beat.
// After the run it prints the ratios side by side and the growth of the optimized cost in log n.
#include <benchmark/benchmark.h>

#include <boost/intrusive/set.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "optimized/runqueue.h"
#include "reference/runqueue.h"
#include "spec/weights.h"

namespace {

using namespace vlag;

constexpr int64_t kRunNs = 100'000;

template <class Rq>
struct Fixture {
  explicit Fixture(int64_t n) : rq(make_params(preset_by_name(kDefaultPreset))) {
    for (TaskId id = 0; id <= n; ++id) {
      rq.create(id, nice_to_weight(static_cast<int>(id % 11) - 5), 0);
      if (id < n) rq.enqueue_entity(id);
    }
    sleeper = n;
  }
  // One cycle: the task dequeued by the previous cycle comes back.
  void cycle() {
    rq.enqueue_entity(sleeper);
    const TaskId picked = *rq.pick_next_entity();
    rq.update_curr(kRunNs);
    rq.dequeue_entity(picked, false);
    sleeper = picked;
  }
  Rq rq;
  TaskId sleeper;
};

// Fixtures persist across the benchmark's repeated calls: building n = 10^4 for the reference is
// itself O(n^2).
template <class Rq>
Fixture<Rq>& fixture(int64_t n) {
  static std::map<int64_t, std::unique_ptr<Fixture<Rq>>> fixtures;
  auto& f = fixtures[n];
  if (!f) f = std::make_unique<Fixture<Rq>>(n);
  return *f;
}

template <class Rq>
void cycles(benchmark::State& state) {
  auto& f = fixture<Rq>(state.range(0));
  for (auto _ : state) f.cycle();
}

void BM_optimized(benchmark::State& state) { cycles<optimized::Runqueue>(state); }
void BM_reference(benchmark::State& state) { cycles<reference::LinuxRunqueue>(state); }

struct PlainNode : boost::intrusive::set_base_hook<> {
  uint64_t deadline = 0;
  uint64_t seq = 0;
  friend bool operator<(const PlainNode& a, const PlainNode& b) {
    return a.deadline != b.deadline ? a.deadline < b.deadline : a.seq < b.seq;
  }
};

void BM_multiset(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<PlainNode> nodes(n + 1);
  boost::intrusive::multiset<PlainNode> tree;
  uint64_t seq = 0, rng = 88172645463325252u;
  const auto next_deadline = [&] {  // xorshift: insertion points spread over the tree
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng >> 8;
  };
  for (size_t i = 0; i < n; ++i) {
    nodes[i].deadline = next_deadline();
    nodes[i].seq = ++seq;
    tree.insert(nodes[i]);
  }
  PlainNode* spare = &nodes[n];
  for (auto _ : state) {
    spare->deadline = next_deadline();
    spare->seq = ++seq;
    tree.insert(*spare);
    spare = &*tree.begin();
    tree.erase(tree.begin());
    benchmark::DoNotOptimize(spare);
  }
}

const std::vector<int64_t> kSizes = {1, 8, 64, 1000, 100000};

BENCHMARK(BM_optimized)->ArgsProduct({kSizes});
BENCHMARK(BM_multiset)->ArgsProduct({kSizes});
BENCHMARK(BM_reference)->Arg(1)->Arg(8)->Arg(64)->Arg(1000)->Arg(10000);
BENCHMARK(BM_optimized)->Arg(10000);
BENCHMARK(BM_multiset)->Arg(10000);

// Collects CPU ns per cycle by name while the console reporter prints as usual.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      ns_[r.benchmark_name()] = r.GetAdjustedCPUTime();  // CPU time: robust on a shared machine
    ConsoleReporter::ReportRuns(runs);
  }
  double ns(const std::string& kind, int64_t n) const {
    const auto it = ns_.find("BM_" + kind + "/" + std::to_string(n));
    return it == ns_.end() ? NAN : it->second;
  }

 private:
  std::map<std::string, double> ns_;
};

// Least-squares slope of optimized ns per cycle against log2 n, over n ≥ 64.
void print_growth(const CollectingReporter& r) {
  std::vector<std::pair<double, double>> pts;
  for (int64_t n : {int64_t{64}, int64_t{1000}, int64_t{10000}, int64_t{100000}})
    pts.emplace_back(std::log2(static_cast<double>(n)), r.ns("optimized", n));
  double mx = 0, my = 0;
  for (auto [x, y] : pts) mx += x / pts.size(), my += y / pts.size();
  double sxy = 0, sxx = 0, syy = 0;
  for (auto [x, y] : pts)
    sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx), syy += (y - my) * (y - my);
  const double slope = sxy / sxx, r2 = sxy * sxy / (sxx * syy);
  const double loglog =
      std::log(r.ns("optimized", 100000) / r.ns("optimized", 64)) / std::log(100000.0 / 64.0);
  std::printf(
      "\noptimized cost vs log2 n (n = 64 … 100000): %.1f ns per doubling of n, R^2 = %.3f;\n"
      "  as a power law n^k: k = %.3f (k = 1 would be linear)\n",
      slope, r2, loglog);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\n%8s %14s %14s %14s %18s %18s\n", "n", "optimized ns", "multiset ns",
              "reference ns", "optimized/multiset", "reference/optimized");
  for (int64_t n :
       {int64_t{1}, int64_t{8}, int64_t{64}, int64_t{1000}, int64_t{10000}, int64_t{100000}}) {
    const double o = reporter.ns("optimized", n), m = reporter.ns("multiset", n),
                 ref = reporter.ns("reference", n);
    std::printf("%8lld %14.1f %14.1f %14.1f %18.2f %18.1f\n", static_cast<long long>(n), o, m, ref,
                o / m, ref / o);
  }
  print_growth(reporter);
  benchmark::Shutdown();
  return 0;
}
