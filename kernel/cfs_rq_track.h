// One cfs_rq on one CPU as a kernel trace shows it (SPEC.md §6.2): the entities queued on it
// (tasks, and the group entities of child groups), the service each receives, and from that
//   - THM-SHARE and THM-LAG-BOUND-LINUX on every pair of entities runnable together: the change
//     of their vruntime gap, Δ(s_i/w_i − s_j/w_j), at the end of the window and its swing within;
//   - INV-NO-STARVATION on every wait: the service the other entities got meanwhile against
//     the weight-scaled bound of kernel/starvation_bound.h;
//   - the renormalised fluid ideal of each entity and its lag, as figures.
// What the trace leaves open — a weight known only within a range, service during a window
// whose switches were not recorded, an arrival or departure not recorded — widens the
// measurement or the bound, so the verdicts land on SPEC.md §6.3's lattice through VerdictBook.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernel/flat_id_map.h"
#include "kernel/inline_table.h"
#include "kernel/pid_weights.h"
#include "kernel/range.h"
#include "kernel/value_counts.h"
#include "kernel/verdict_book.h"
#include "spec/verdict.h"

namespace vlag::kernel {

/// What the caller knows of an entity when it joins or changes.
struct EntityInfo {
  int64_t id = 0;           // a pid, or a negative id for a group entity
  Range weight;             // unscaled (1024 = nice 0)
  Range slice;              // ns
  Reasons unknown;          // why weight or slice is a range (WeightUnknown, MissingSnapshot)
  double fluid_weight = 0;  // the weight the fluid figures give it (0: weight.mid())
};

enum class JoinKind : uint8_t {
  New,       // wakeup_new: placed with zero lag
  Woken,     // a wakeup: placed with its saved lag
  Migrated,  // moved in from another CPU, with its lag
  Appeared,  // found running or picked without a recorded arrival
};

/// What a level reports about an entity when it leaves or at the end: its fluid figures, and
/// whether every weight they rest on was known (exact: else the ideal and lags are no figures).
struct FluidTotals {
  double ideal_ns = 0, received_ns = 0, min_lag_ns = 0, max_lag_ns = 0;
  bool exact = true;
};

/// What the level tells its caller about a finished wait (the figures of perf sched latency).
struct WaitFigure {
  int64_t from_ns = 0, to_ns = 0;
  bool known = false;  // start and end both recorded
  bool woken = false;
};

/// A pair window judged for THM-SHARE, for a caller that reports the split it measured: the two
/// entities (a < b), their weights over it (hulls), the service each got in it per unit weight,
/// the uncertainty of their difference and the bound S on it (SPEC.md §6.2).
struct PairWindow {
  int64_t a = 0, b = 0;
  Range wa, wb;
  Range da, db;  // Σ δ/w since the window was based
  double u = 0;  // ns per unit weight
  Range S;
  int64_t from_ns = 0, to_ns = 0;
};

struct LevelContext {
  int cpu = 0;
  int64_t tick_ns = 0;
  int64_t user_threshold_ns = 0;
  VerdictBook* book = nullptr;
  std::function<std::string(int64_t)> name;  // a subject's text
  std::function<void(int64_t, const FluidTotals&)> on_fluid;
  std::function<void(int64_t, const WaitFigure&)> on_wait;
  const double* cpu_unknown_ns = nullptr;            // the CPU's unrecorded time so far
  std::function<void(const PairWindow&)> on_window;  // each window judged (optional)
};

class CfsRqTrack {
 public:
  CfsRqTrack(std::string path, const LevelContext* ctx)
      : path_(std::move(path)), ctx_(ctx), unknown_at_creation_(*ctx->cpu_unknown_ns) {}

  const std::string& path() const { return path_; }
  bool has(int64_t id) const { return members_.count(id) != 0; }
  bool empty() const { return members_.empty(); }
  double service() const { return tau_; }

  /// The entity is queued (waiting) from t. For Appeared, its wait began at an unknown time no
  /// earlier than `earliest`, for the reasons given.
  void join(const EntityInfo& e, int64_t t, JoinKind kind, bool woken, int64_t earliest = 0,
            Reasons start_unknown = {});
  /// A fresh pick at t: its wait ends. With `uncertain_from`, the pick happened at an unknown
  /// moment in [uncertain_from, t] (a window whose switches were not recorded).
  void pick(int64_t id, int64_t t, int line, std::optional<int64_t> uncertain_from = {});
  /// The running entity was picked again (no switch): its run starts a new request.
  void repicked(int64_t id);
  /// Its run ends at t and it stays queued: preempted, its wait begins.
  void stop(int64_t id, int64_t t);
  /// It ran dt ns, ending at t. `kernel_accounted`: dt is the kernel's own accounting
  /// (sched_stat_runtime), whose records show re-picks, so a run past its request plus a tick
  /// is known to be one (SPEC.md §6.2); from timestamps alone it is taken to be none.
  void run(int64_t id, int64_t dt, bool kernel_accounted);
  /// It may have run up to ns more than the trace shows (an unrecorded window).
  void uncertain(int64_t id, double ns, Reasons why);
  /// It left the queue at t (blocked, migrated, exited); a wait in progress ends unserved.
  void leave(int64_t id, int64_t t, int line);
  /// It left at an unknown moment since its last sighting; the trace noticed at t.
  void leave_unseen(int64_t id, int64_t t, int line, Reasons why);
  /// Its weight or slice changed: its pair windows close (without the run in progress when
  /// during_run) and reopen with the new values.
  void change(const EntityInfo& e, int64_t t, int line, bool during_run);
  /// A group entity's weight range moved without a reweight the trace saw (PELT): only the
  /// accounting of later service changes, unless it crosses the judged threshold.
  void drift(const EntityInfo& e, int64_t t, int line);
  /// Every pair window and wait still open is judged as it stands.
  void finish(int64_t t, int line);

  /// A task of this cfs_rq blocked here: it may stay queued as a delayed entity (SPEC.md §4.9)
  /// until it is seen again.
  void add_sleeper(int64_t id, double weight);
  void forget_sleeper(int64_t id);

  /// A task whose group the trace does not give (an outsider) is queued on this CPU, and this
  /// group's cfs_rq may be where it is (SPEC.md §6.2): like a sleeper, it may be one more entity
  /// here, of its task weight, for every wait in progress and every wait that starts. Called
  /// again after a renice, it keeps the heavier weight.
  void add_possible_member(int64_t pid, double weight);
  void forget_possible_member(int64_t pid);
  /// Such an outsider ran ns: had it been here, the others of a wait here got that much more.
  void possible_member_ran(double ns);
  /// ... and each group entity of this cfs_rq that `may_hold` it may have received ns more than
  /// its tasks show, and may have run while it seemed to wait.
  void groups_may_have_run(double ns, const std::function<bool(int64_t)>& may_hold);
  /// Whether a group entity is queued here (groups_may_have_run() has something to do).
  bool holds_groups() const { return !members_.empty() && members_.begin()->first < 0; }

 private:
  struct Wait {
    int64_t from = 0;  // its start, or (start unknown) the earliest it can have started
    bool start_known = true;
    Reasons start_why;
    bool woken = false;
    double tau0 = 0, unknown0 = 0;  // the cfs_rq's service and the CPU's unrecorded time then
    Range W0, n0;   // the cfs_rq's weight (k included) and other entities at the start
    Range joined;   // the weight that joined since: all of it, or (joined_exact_) what change()
                    // added beside the shared sum, which was joined0 then
    Range joined0;  // the shared sum when it began (joined_sum_)
    int64_t joins0 = 0;         // the cfs_rq's joins when it began (joins_)
    int64_t outsiders0 = 0;     // its outsiders that may have joined then (outsider_joins_)
    uint64_t join_seq0 = 0;     // its last join then (join_seq_)
    int64_t leaves0 = 0;        // the cfs_rq's departures when it began (leaves_)
    int64_t unsteady0 = 0;      // its joins of an inexact weight then (unsteady_joins_)
    double m_lo = 0, m_hi = 0;  // the largest lag deficit among the others (and peak_since())
    bool weight_changed = false;
    double late = 0;       // service the others got past their requests plus a tick (late ticks)
    double own_maybe = 0;  // service of outsiders that may have been its own (a group entity)
    double outsiders_ran = 0;  // service of outsiders that may have been this cfs_rq's
    bool outsiders = false;    // an outsider may have been queued here (or outsiders0)
  };
  struct Window {
    Range a0, b0;  // σ of each when the window was (re)based
    bool picked_a = false, picked_b = false, established = false, from_zero = false;
    int64_t t0 = 0;
    Range wa, wb, ra, rb;                            // hulls of weight and slice over the window
    Range max_x{0, 0}, min_x{0, 0};                  // extremes of the gap's lower and upper ends
    uint64_t order = 0, t_max_lo = 0, t_min_hi = 0;  // which extreme came last
    double u = 0;                                    // uncertainty of x, ns per unit weight
    Reasons why;
  };
  struct Member;
  struct Link {
    int64_t other;
    Window* window;   // in pool_
    Member* partner;  // other's entry in members_ (stable while both are members)
  };
  struct Member {
    // First, beside its id: what a pick reads of every other member (picked_since()).
    bool running = false;
    uint64_t open_seq = 0;                  // when it last (re)opened its windows (join, change)
    uint64_t last_stop_seq = 0;             // when its last run ended (stop)
    uint64_t last_pick_seq = 0;             // when it was last picked (pick)
    EntityInfo info;                        // set_info()
    double deficit_lo = 0, deficit_hi = 0;  // lag_deficit of its slice's ends
    bool counted = false;                   // in the counts of count()
    bool fresh_new = false;                 // joined new and has not run
    uint64_t new_epoch = 0;
    Range sigma;  // Σ δ/w since joining: service per unit weight
    Range sigma_at_pick;
    double run_ns = 0;      // service since its pick
    double overrun_ns = 0;  // of that, past its request plus a tick (widened already)
    std::optional<Wait> wait;
    double tau_seen = 0;  // the level's service at its last sighting
    // fluid figures
    bool fluid = false;
    double w_fluid = 0, v0 = 0, adjust = 0, received = 0, min_lag = 0, max_lag = 0;
    double carried = 0;  // the lag a weight change carried into this phase (in adjust)
    // Every fluid weight of this cfs_rq known while it was a member: as of its last phase's end,
    // and (fluid_exact()) no taint since its phase began, taints0.
    bool fluid_exact = true;
    uint64_t taints0 = 0;
    // Every other member shares a pair window with it, but most pairs of a busy cfs_rq leave
    // again before both were picked, so a window holds state only once it has some: its pair
    // was established, it was opened from zero, or it took uncertainty or a weight hull. Until
    // then it is implied (open since the later of the two opens, picked as the members' pick
    // and stop sequence says), and its end is "not applicable (sleeper)". The windows that hold
    // state, by partner, ascending: an event of one entity touches its own, not all n(n - 1)/2.
    std::vector<Link> windows;
    // Its place among the members (by_slot_), and the places of the partners it has a link
    // with, as bits: a pick asks whether it holds a window with a partner, for many partners.
    uint32_t slot = 0;
    std::vector<uint64_t> holds;
    bool sleeper_noted = false;  // an implied window of it ended: noted in the book already
    bool blocked_noted = false;  // a window of it ended unjudged for a weight: noted likewise
  };
  static bool holds(const Member& m, uint32_t slot) {
    return slot / 64 < m.holds.size() && (m.holds[slot / 64] >> (slot % 64) & 1) != 0;
  }
  static void set_holds(Member& m, uint32_t slot, bool on);

  void drop(int64_t id, int64_t t, int line, bool seen, Reasons why);  // leave, leave_unseen
  void set_info(Member& m, const EntityInfo& e);  // its info and what is kept of it
  void count(const Member& m, int by);
  Window* new_window();
  static void unlink(Member& m, int64_t other, uint32_t other_slot);
  // Whether x was picked (or running) since a window opened at `open` (a sequence number).
  static bool picked_since(const Member& x, uint64_t open) {
    return x.running || x.last_stop_seq > open;
  }
  // Whether a window of a and b would end as nothing but notes the book holds already: a weight
  // of theirs is loose (a window's weights only widen while it is open) and both are noted as
  // sleepers and as blocked. Such a window is left implied: it would end the same way.
  static bool settled(const Member& a, const Member& b);
  // The implied window of (a, b) made to hold state, linked in both members' windows.
  Window* materialize(int64_t a, Member& ma, int64_t b, Member& mb);
  // Every implied window of id made to hold state (it is about to take some).
  void materialize_all(int64_t id, Member& m);
  void note_sleeper(int64_t id, Member& m);             // an implied window of it ended
  void open_windows(int64_t id, Member& m, int64_t t);  // m: id's
  void close_windows(int64_t id, Member& m, int64_t t, int line, bool without_run);
  void overrun(int64_t id, double excess);
  void note_blocked(int64_t id, Member& m);  // a window of it could not be judged (a weight)
  void judge_window(int64_t a, Member& ma, int64_t b, Member& mb, Window& w, int64_t t, int line,
                    Range xa_end, Range xb_end);
  void start_wait(Member& m, int64_t id, int64_t t, bool known, int64_t from, Reasons why,
                  bool woken);
  // o_lo_valid: the wait lasted at least until t's service (false: it may have ended any time
  // since it began); end_lo: the pick happened at an unknown moment in [end_lo, t].
  void judge_wait(int64_t id, Member& m, int64_t t, int line, bool o_lo_valid,
                  std::optional<int64_t> end_lo, Reasons end_why);
  void fluid_join(Member& m);
  void fluid_join_keep(Member& m);
  void fluid_leave(int64_t id, Member& m);
  double fluid_ideal(const Member& m) const { return m.w_fluid * (v_ - m.v0) + m.adjust; }
  void fluid_extremes(Member& m);
  // The weight of the sleepers (but `except`) and outsiders that may be queued here.
  double maybe_members(int64_t except) const;
  void note_maybe_weight(double weight);
  Range x_of(const Window& w, Range sa, Range sb) const;  // the gap's change since rebasing
  void note_extremes(Window& w, Range x);
  void update_extremes(int64_t id, const Member& m);  // m: id's

  std::string path_;
  const LevelContext* ctx_;
  FlatIdMap<Member> members_;
  std::vector<Member*> by_slot_;      // the members by slot (nullptr: free)
  std::vector<uint32_t> free_slots_;  // free slots of by_slot_
  std::deque<Window> pool_;           // every pair window, open or free (stable addresses)
  std::vector<Window*> free_;         // windows of pool_ no pair holds
  // The emptied lists of members that left, kept with their room for the next joins.
  struct SpareLists {
    std::vector<Link> windows;
    std::vector<uint64_t> holds;
  };
  std::vector<SpareLists> spare_lists_;
  PidWeights sleepers_;  // possibly delayed: weight
  PidWeights possible_;  // outsiders maybe here: weight
  // Their sums, kept as they change: while every weight is a whole number below 2^50 (task
  // weights are), a sum is exact in any order, so it equals the walk in ascending order that
  // maybe_members() makes otherwise.
  double sleepers_sum_ = 0, possible_sum_ = 0;
  bool maybe_sums_exact_ = true;
  double tau_ = 0;              // service received by this cfs_rq on its CPU (recorded time)
  double unknown_at_creation_;  // the CPU's unrecorded time when this was first seen
  uint64_t epoch_ = 0;          // V moved: runs, leaves, joins with a lag
  // Counted for the waits, which take the difference since they began: departures, joins of
  // an inexact weight (each changes the weight of every wait in progress), and the members
  // whose weight is inexact now.
  int64_t leaves_ = 0, unsteady_joins_ = 0;
  size_t inexact_weights_ = 0;
  Range whole_weights_;  // the members' whole weights summed (whole())
  size_t odd_weights_ = 0;
  ValueCounts deficits_lo_, deficits_hi_;  // the members' lag deficits: how many
  size_t running_ = 0;                     // members running
  // What joined, for the waits in progress likewise: joins, outsiders that may have, the peaks
  // of the joiners' lag deficits by join, and their weight summed while exact (add_joined()).
  struct Peak {
    uint64_t seq;
    double value;
  };
  static void note_peak(std::vector<Peak>& peaks, uint64_t seq, double value);
  static double peak_since(const std::vector<Peak>& peaks, uint64_t seq);
  bool add_joined(Range w);
  Range joined_since(const Wait& w) const;
  void joined_to_waits();
  int64_t joins_ = 0, outsider_joins_ = 0;
  uint64_t join_seq_ = 0;
  std::vector<Peak> peak_lo_, peak_hi_;
  Range joined_sum_;
  bool joined_exact_ = true;
  uint64_t seq_ = 0;  // orders opens, picks and stops (implied windows' picked flags)
  struct Stop {
    uint64_t seq;
    int64_t id;
    uint32_t slot;  // the member's then: by_slot_ finds it if it is still a member
  };
  std::vector<Stop> stops_;  // the stops in order (those since a pick: pick()), stale ones too
  // What the book holds of each subject from here for good, so that it is noted once: "not
  // applicable (sleeper)" (kNotedSleeper), a window blocked by a weight (kNotedBlocked); and how
  // many members are not noted sleepers yet: while none is, an ending implied window has
  // nothing to note.
  static constexpr uint8_t kNotedSleeper = 1, kNotedBlocked = 2;
  InlineTable<uint8_t> noted_;
  size_t unnoted_ = 0;
  bool finishing_ = false;  // finish(): open waits are judged, not counted as delays
  // The fluid clock: Σ δ/W over the cfs_rq's runs and Σ lag/W over its departures, each with
  // the fluid weight W then (SPEC.md §6.2); a member's ideal is w_i · (v_ − v0) + adjust.
  double v_ = 0, w_fluid_ = 0;
  size_t loose_fluid_ = 0;  // fluid members whose weight is not tight()
  // What made every fluid member's figures inexact, counted instead of marked on each: a run
  // while a fluid weight was loose, the departure of an inexact member.
  uint64_t taints_ = 0;
  bool fluid_exact(const Member& m) const {
    return m.fluid_exact && !(m.fluid && taints_ != m.taints0);
  }
};

}  // namespace vlag::kernel
