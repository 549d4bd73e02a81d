// The fluid (GPS) clock of the service layer (checker/service.h, SPEC.md §3): while some task
// runs it advances by δ·N/W, W the runnable weight, as the TR's V(t) does, and a task's lag is
// w·(V − V_join)/N minus the service it received. O(1) per event: the δ of consecutive runs at
// one W are summed in an integer and added to the clock once, when W changes or the clock is
// read.
//
// Exactly, the clock's denominator is the least common multiple of every W it has divided by,
// which grows without bound on a long trace whose runnable weight keeps changing (hackbench's
// takes hundreds of values). Where lags are verdicts (THM-LAG-BOUND under the paper presets) the
// clock stays exact whatever it costs. Where they are only figures it is exact while its
// denominator fits in 64 bits, then a 128-bit fixed-point number with 64 fractional bits (lags
// off by less than 2^-40 ns over 2^24 folds) until no task is runnable: the clock then starts
// again at an exact 0, since only differences of it are ever read. Where a fixed-point sum or
// product would leave 128 bits (runs far longer than a machine's), the figure is computed
// exactly from the fixed-point readings instead; nothing overflows.
#pragma once

#include <cstdint>
#include <optional>

#include "trace/event.h"

namespace vlag::checker {

using trace::Exact;

class FluidClock {
 public:
  /// A reading of the clock: where a task joined.
  struct Point {
    Exact exact;
    std::optional<__int128> fixed;  // the fixed-point reading, once the clock had one
    // The clock's exact stretch the reading was taken in: lags between readings of one stretch
    // are exact; a rounding into fixed point starts the next.
    uint64_t stretch = 0;
  };
  /// A lag, ns: exactly while the clock and the point it is measured from are exact.
  struct Lag {
    std::optional<Exact> exact;
    double value = 0;  // exact->get_d(), or the fixed-point approximation
  };

  /// always_exact: lags are verdicts somewhere; the clock never leaves exact arithmetic.
  explicit FluidClock(bool always_exact) : always_exact_(always_exact) {}

  /// A run of `delta_ns` while the runnable weight is W > 0.
  void advance(int64_t delta_ns, int64_t W);
  /// No task is runnable: every later lag is measured from a later point.
  void idle();
  /// The clock now.
  Point now();
  /// The exact clock now; only where it is always exact.
  const Exact& exact_now();
  /// w·(now − since)/N − received.
  Lag lag(const Point& since, int64_t weight, int64_t received);
  /// The point from which a task of weight `weight` has the lag that one of weight
  /// `old_weight` joined at `since` has now, whatever service it received (a reweight keeps
  /// the lag): V − (V − since)·old_weight/weight.
  Point rejoin(const Point& since, int64_t old_weight, int64_t weight);

 private:
  void fold();
  Exact exact_clock() const;
  bool exact_against(const Point& p) const;  // the clock and `p` differ exactly
  static Exact exact_of(const Point& p);
  static std::optional<__int128> fixed_of(const Point& p);

  bool always_exact_;
  bool fixed_mode_ = false;
  bool beyond_fixed_ = false;  // the clock outgrew 128 bits: exact until idle
  uint64_t stretch_ = 0;       // how many times the clock went into fixed point
  Exact exact_;                // the clock while exact
  __int128 fixed_ = 0;         // the clock · 2^64 in fixed-point mode
  int64_t pending_ = 0;        // ns run at pending_W_ not yet added
  int64_t pending_W_ = 0;
};

}  // namespace vlag::checker
