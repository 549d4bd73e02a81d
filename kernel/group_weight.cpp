#include "kernel/group_weight.h"

#include <algorithm>
#include <cmath>

#include "spec/weights.h"

namespace vlag::kernel {
namespace {

constexpr double kHalfLifeNs = 32 * 1'024'000.0;  // LOAD_AVG_PERIOD periods of 1024 us
constexpr double kUpdateDelayNs = 64e6;

bool is_autogroup(const std::string& path) { return path.rfind("/autogroup-", 0) == 0; }

}  // namespace

std::optional<Range> shares_from_snapshot(const CfsRqSnapshot& rq, const std::string& file) {
  const auto se_w = rq.integer("se->load.weight", file);
  const auto load = rq.integer("load", file);
  const auto load_avg = rq.integer("load_avg", file);
  // With nothing queued here the group entity is off the runqueue and its weight is as it was
  // last updated, against loads that have moved since: it says nothing of tg->shares.
  if (!se_w || !load || *se_w <= 0 || *load == 0) return std::nullopt;
  const double here =
      std::max(static_cast<double>(*load) / 1024.0, static_cast<double>(load_avg.value_or(0)));
  if (here <= 0) return std::nullopt;
  const double se = static_cast<double>(*se_w) / 1024.0;
  const double other = other_cpus_load(rq, file).value_or(here * 64);
  // se = shares·load/(load + other) when it was last updated, which may be a tick before the
  // print and with the other CPUs' contributions of then (published in steps of 1/64).
  Range shares{se, se * (here + other) / here * (1 + 1.0 / 64) + 1};
  if (is_autogroup(rq.path)) {
    // Its shares are a nice level's weight: the largest one the range holds, as the range's top
    // overshoots them by no more than the 1/64 step, and the levels are 25 % apart.
    for (const int64_t w : kPrioToWeight) {  // heaviest first
      const double d = static_cast<double>(w);
      if (d >= shares.lo - 0.5 && d <= shares.hi) return Range::exact(d);
    }
    // None fits: the other CPUs' load has moved since the entity's weight was set, so the
    // range's top is not one; only its floor (the entity never weighs more than the shares) is.
    for (auto w = kPrioToWeight.rbegin(); w != kPrioToWeight.rend(); ++w)
      if (static_cast<double>(*w) >= shares.lo - 0.5)
        return Range{static_cast<double>(*w), static_cast<double>(kMaxWeight)};
  }
  if (other == 0 && *se_w % 1024 == 0) return Range::exact(se);
  shares.hi = std::min(shares.hi, static_cast<double>(kMaxWeight));
  return shares;
}

int64_t shares_of_cpu_shares(int64_t value) { return std::clamp(value, kMinWeight, kMaxWeight); }

std::optional<double> other_cpus_load(const CfsRqSnapshot& rq, const std::string& file) {
  const auto total = rq.integer("tg_load_avg", file);
  const auto mine = rq.integer("tg_load_avg_contrib", file);
  if (!total || !mine) return std::nullopt;
  return static_cast<double>(std::max<int64_t>(0, *total - *mine));
}

Range group_entity_weight(Range shares, double w_run, double residue) {
  const double lo_shares = std::max(static_cast<double>(kMinWeight), shares.lo);
  const double hi = std::max(static_cast<double>(kMinWeight), shares.hi);
  if (!std::isfinite(residue) || w_run <= 0) return {static_cast<double>(kMinWeight), hi};
  if (residue < 1) return {lo_shares, hi};  // PELT's integer averages are 0 below 1: all here
  return {std::max(static_cast<double>(kMinWeight), lo_shares * w_run / (w_run + residue)), hi};
}

double residue_after(double w, int64_t since_ns) {
  const double t = std::max(0.0, static_cast<double>(since_ns) - kUpdateDelayNs);
  return w * std::exp2(-t / kHalfLifeNs);
}

}  // namespace vlag::kernel
