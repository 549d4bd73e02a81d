// SPEC.md §10.5 across the runqueues of one trace: every group runqueue its `runqueue` line
// declares (spec/TRACE.md §7: the group entity `se` that owns it, queued on runqueue `parent`)
// against that entity as the parent runqueue's view shows it —
//   INV-GROUP-QUEUED: the group entity is queued iff its runqueue holds entities (so a delayed
//     or sleeping one has an empty runqueue);
//   INV-GROUP-SHARES: on one CPU, the instantaneous shares rule (§10.3) gives every group entity
//     whose runqueue holds entities w = S_G, its group's shares, which the trace gives as the
//     weight of the entity's `new`.
// One operation of a hierarchy is several events, one per level it touches, all at one instant;
// between them the levels disagree. So the rules judge the state a trace has reached when time
// moves on past an instant (and at its end), once per group runqueue, and report a failure at
// the instant's last line. Not judged, with a note saying why: a window (it holds one
// runqueue's state), the shares of a group whose entity's `new` is not in the trace, the shares
// on several CPUs (the rule reads the other CPUs' loads as last recorded, which one CPU's trace
// does not hold and per-CPU traces merged by time do not order within an instant), and a
// reconstruction from kernel tracepoints (the kernel follows the PELT-averaged form).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/level_facts.h"
#include "checker/report.h"
#include "trace/event.h"

namespace vlag::checker {

class HierarchyRules {
 public:
  /// A runqueue's facts, none before its first event or declaration.
  using LevelOf = std::function<std::optional<LevelFacts>(RunqueueId)>;
  /// An entity of a runqueue, none where the runqueue does not hold it.
  using MemberOf = std::function<std::optional<MemberFacts>(RunqueueId, EntityId)>;

  HierarchyRules(const trace::Header& header, std::string file, Report& report, LevelOf level_of,
                 MemberOf member_of);

  /// Before an event at time `t`: judges the instant that ended, if `t` is later.
  void before(int64_t t);
  /// After an event was checked and applied on its runqueue (or declared one).
  void after(const trace::Event& e, int64_t line, int64_t index);
  /// Judges the last instant, and notes what was not judged.
  void finish();

 private:
  struct Group {
    RunqueueId rq = 0;
    RunqueueId parent = 0;
    EntityId se = 0;
    std::string path;
  };

  void judge();
  void judge_shares(const Group& g, const MemberFacts& ge, const LevelFacts& rq);

  Report& report_;
  std::string file_;
  LevelOf level_of_;
  MemberOf member_of_;
  bool window_;
  std::optional<std::string> shares_unjudged_;  // why INV-GROUP-SHARES is judged nowhere here
  std::vector<Group> groups_;                   // in declaration order
  std::map<std::pair<RunqueueId, EntityId>, int64_t> created_weight_;  // a group entity's `new`
  bool pending_ = false;  // events since the last judgment
  int64_t instant_ = 0;   // their time
  int64_t line_ = 0;      // the last one's line and index
  int64_t index_ = 0;
  int64_t entity_unknown_ = 0;  // states where a runqueue with entities had no group entity
  int64_t shares_unknown_ = 0;  // … where a group entity's `new` was not in the trace
  int64_t shares_skipped_ = 0;  // … where shares_unjudged_ kept a judgment from being made
};

}  // namespace vlag::checker
