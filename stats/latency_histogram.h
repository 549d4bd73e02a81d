// A log-linear latency histogram (as schbench and HdrHistogram keep them): values below 64 ns
// have a bucket each; above, every power of two is split into 64 equal buckets, so a reported
// percentile is within 1/64 (1.6 %) of the true sample. Memory spans only the powers of two from
// the least value seen to the largest (at most 3 700 buckets for any int64), never grows with the
// number of samples: the simulator's
// drivers and `vlag kernel check` keep their latencies in one. The count, sum and largest value
// are exact. Merging two histograms adds their buckets, so per-task histograms sum to a
// workload's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace vlag::stats {

class LatencyHistogram {
 public:
  void add(int64_t ns);
  void merge(const LatencyHistogram& other);
  int64_t count() const { return count_; }
  /// The exact mean and largest sample; 0 for an empty histogram.
  double mean() const;
  int64_t max() const { return max_; }
  /// The nearest-rank p-th percentile (0 < p <= 100), reported as its bucket's upper bound
  /// (the largest value the bucket holds); 0 for an empty histogram.
  int64_t percentile(double p) const;
  /// (upper bound, fraction of samples <= it) for every non-empty bucket, ascending: a CDF.
  std::vector<std::pair<int64_t, double>> cdf() const;

 private:
  static size_t bucket_of(int64_t ns);
  static int64_t upper_bound_of(size_t bucket);
  // Grows buckets_ to hold bucket b, a whole power of two at a time.
  void cover(size_t b);

  // The counts of buckets first_ to first_ + size − 1, from the octave of the least sample to
  // that of the largest: the buckets below the least sample are never kept (a latency histogram
  // seldom holds values of a few ns, whose buckets would be a third of it), nor walked.
  std::vector<uint64_t> buckets_;
  size_t first_ = 0;
  int64_t count_ = 0;
  __int128 sum_ = 0;
  int64_t max_ = 0;
};

}  // namespace vlag::stats
