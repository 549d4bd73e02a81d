#include "stats/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace vlag::stats {
namespace {
constexpr int kSubBits = 6;  // 64 buckets per power of two
constexpr int64_t kLinear = int64_t{1} << kSubBits;
}  // namespace

size_t LatencyHistogram::bucket_of(int64_t ns) {
  const auto v = static_cast<uint64_t>(std::max<int64_t>(ns, 0));
  if (v < static_cast<uint64_t>(kLinear)) return static_cast<size_t>(v);
  const int exp = std::bit_width(v) - 1;  // >= kSubBits
  const uint64_t sub = (v >> (exp - kSubBits)) & static_cast<uint64_t>(kLinear - 1);
  return static_cast<size_t>(kLinear + (exp - kSubBits) * kLinear) + static_cast<size_t>(sub);
}

int64_t LatencyHistogram::upper_bound_of(size_t bucket) {
  if (bucket < static_cast<size_t>(kLinear)) return static_cast<int64_t>(bucket);
  const auto k = static_cast<int64_t>(bucket) - kLinear;
  const int64_t exp = k / kLinear + kSubBits;
  const int64_t sub = k % kLinear;
  // In unsigned arithmetic: the last bucket's bound is 2^63 − 1, whose sum before the − 1 is not
  // an int64.
  const uint64_t width = uint64_t{1} << (exp - kSubBits);
  return static_cast<int64_t>((uint64_t{1} << exp) + static_cast<uint64_t>(sub + 1) * width - 1);
}

void LatencyHistogram::cover(size_t b) {
  const size_t from = b & ~static_cast<size_t>(kLinear - 1);  // its power of two's first bucket
  if (buckets_.empty()) {
    first_ = from;
    buckets_.assign(kLinear, 0);
  } else if (b < first_) {
    buckets_.insert(buckets_.begin(), first_ - from, 0);
    first_ = from;
  } else if (b >= first_ + buckets_.size()) {
    buckets_.resize(from + kLinear - first_, 0);
  }
}

void LatencyHistogram::add(int64_t ns) {
  const size_t b = bucket_of(ns);
  if (b - first_ >= buckets_.size()) cover(b);  // below first_ too: the difference wraps
  ++buckets_[b - first_];
  ++count_;
  sum_ += ns;
  max_ = count_ == 1 ? ns : std::max(max_, ns);
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (!other.buckets_.empty()) {
    cover(other.first_);
    cover(other.first_ + other.buckets_.size() - 1);
    for (size_t i = 0; i < other.buckets_.size(); ++i)
      buckets_[other.first_ + i - first_] += other.buckets_[i];
  }
  if (other.count_ > 0) max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

int64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const auto rank =
      static_cast<uint64_t>(std::max(1.0, std::ceil(p / 100.0 * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) return upper_bound_of(first_ + i);
  }
  return upper_bound_of(bucket_of(max_));
}

std::vector<std::pair<int64_t, double>> LatencyHistogram::cdf() const {
  std::vector<std::pair<int64_t, double>> out;
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    if (buckets_[i] == 0) continue;
    seen += buckets_[i];
    out.emplace_back(upper_bound_of(first_ + i),
                     static_cast<double>(seen) / static_cast<double>(count_));
  }
  return out;
}

}  // namespace vlag::stats
