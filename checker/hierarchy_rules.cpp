#include "checker/hierarchy_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::checker {

using trace::EventKind;

HierarchyRules::HierarchyRules(const trace::Header& header, std::string file, Report& report,
                               LevelOf level_of, MemberOf member_of)
    : report_(report),
      file_(std::move(file)),
      level_of_(std::move(level_of)),
      member_of_(std::move(member_of)),
      window_(header.window) {
  if (header.kernel_reconstruction || header.linux_source)
    shares_unjudged_ = fmt::format(
        "{}: the kernel weighs group entities by the PELT-averaged form of SPEC.md §10.3, which "
        "the trace does not carry",
        header.linux_source ? "a capture of a kernel's state"
                            : "a reconstruction from kernel "
                              "tracepoints");
  else if (header.params.ncpus > 1)
    shares_unjudged_ = fmt::format(
        "{} CPUs: the shares rule reads the other CPUs' loads of the group as last recorded "
        "(SPEC.md §10.3), which one CPU's trace does not hold and per-CPU traces merged by time "
        "do not order within an instant",
        header.params.ncpus);
}

void HierarchyRules::before(int64_t t) {
  if (pending_ && t > instant_) judge();
}

void HierarchyRules::after(const trace::Event& e, int64_t line, int64_t index) {
  if (e.kind == EventKind::Runqueue && e.parent && e.se)
    groups_.push_back({e.rq, *e.parent, *e.se, e.group});
  // A group entity's `new` names `se` and its group, and gives S_G as its weight; so does a
  // `reweight` of it that names its group: a write of the group's cpu.weight (TRACE.md §7).
  if ((e.kind == EventKind::New || e.kind == EventKind::Reweight) && e.se && !e.task &&
      !e.group.empty())
    created_weight_[{e.rq, *e.se}] = e.weight;
  pending_ = true;
  instant_ = e.t;
  line_ = line;
  index_ = index;
}

void HierarchyRules::finish() {
  if (pending_) judge();
  if (groups_.empty()) return;
  if (window_) {
    report_.notes.push_back(
        fmt::format("{}: a window holds one runqueue's state: {} and {} are not judged", file_,
                    ids::kInvGroupQueued, ids::kInvGroupShares));
    return;
  }
  if (entity_unknown_ > 0)
    report_.notes.push_back(fmt::format(
        "{}: {} and {} not judged at {} state(s) of a group runqueue holding entities whose "
        "group entity is not on its parent runqueue (its `new` is not in the trace)",
        file_, ids::kInvGroupQueued, ids::kInvGroupShares, entity_unknown_));
  if (shares_unknown_ > 0)
    report_.notes.push_back(fmt::format(
        "{}: {} not judged at {} state(s) of a group whose shares S_G are unknown ({}: the "
        "group entity's `new` is not in the trace)",
        file_, ids::kInvGroupShares, shares_unknown_, reason_name(Reason::WeightUnknown)));
  if (shares_skipped_ > 0)
    report_.notes.push_back(fmt::format("{}: {} not judged at {} state(s) ({}): {}", file_,
                                        ids::kInvGroupShares, shares_skipped_,
                                        reason_name(Reason::WeightUnknown), *shares_unjudged_));
}

void HierarchyRules::judge() {
  pending_ = false;
  if (window_) return;
  for (const Group& g : groups_) {
    const std::optional<LevelFacts> parent = level_of_(g.parent);
    const std::optional<LevelFacts> rq = level_of_(g.rq);
    if (!parent || !rq) continue;
    const std::optional<MemberFacts> ge = member_of_(g.parent, g.se);
    if (!ge) {
      // Before the group entity's `new`, or after its exit: with an empty runqueue there is
      // nothing to judge; with entities, the trace does not show the entity that stands for them.
      if (rq->queued > 0) ++entity_unknown_;
      continue;
    }
    ++report_.stats[ids::kInvGroupQueued].checked;
    const bool queued = ge->status == Status::Queued;
    if (queued != (rq->queued > 0)) {
      Witness w;
      w.statement = std::string(ids::kInvGroupQueued) +
                    ": a group entity is queued (queued = 1) iff its runqueue holds entities (nr "
                    "> 0); SPEC.md 10.5";
      w.add("queued", Sort::Int, Exact(queued ? 1 : 0));
      w.add("nr", Sort::Int, Exact(static_cast<long>(rq->queued)));
      w.claim = "(not (= (= queued 1) (> nr 0)))";
      Violation v = violation_at(
          ids::kInvGroupQueued, file_, line_, index_,
          fmt::format("group {}: its entity {} on rq {} is {} with {} entities in its "
                      "runqueue",
                      g.path, g.se, g.parent, trace::status_name(ge->status), rq->queued),
          std::move(w));
      v.rq = g.rq;
      record(report_, std::move(v));
    }
    if (rq->queued > 0) judge_shares(g, *ge, *rq);
  }
}

// One CPU: L(G, c) is the whole of the group's load, so the rule's quotient is S_G itself.
void HierarchyRules::judge_shares(const Group& g, const MemberFacts& ge, const LevelFacts& rq) {
  if (shares_unjudged_) {
    ++shares_skipped_;
    return;
  }
  const auto created = created_weight_.find({g.parent, g.se});
  if (created == created_weight_.end()) {
    ++shares_unknown_;
    return;
  }
  ++report_.stats[ids::kInvGroupShares].checked;
  const int64_t shares = created->second, load = rq.load, total = load;
  const int64_t want = std::clamp(shares * load / total, kMinWeight, shares);
  if (ge.weight == want) return;
  Witness w;
  w.statement = std::string(ids::kInvGroupShares) +
                ": the group entity's weight is clamp(floor(S*L/total), MIN_SHARES, S), the "
                "instantaneous shares rule of SPEC.md 10.3; one CPU: total = L";
  w.add("w", Sort::Int, Exact(static_cast<long>(ge.weight)));
  w.add("S", Sort::Int, Exact(static_cast<long>(shares)));
  w.add("L", Sort::Int, Exact(static_cast<long>(load)));
  w.add("total", Sort::Int, Exact(static_cast<long>(total)));
  w.derived.push_back({"q", Sort::Int});
  w.derived.push_back({"want", Sort::Int});
  w.definitions.push_back("(= q (div (* S L) total))");
  w.definitions.push_back(
      fmt::format("(= want (ite (< q {0}) {0} (ite (> q S) S q)))", kMinWeight));
  w.claim = "(not (= w want))";
  Violation v = violation_at(
      ids::kInvGroupShares, file_, line_, index_,
      fmt::format("group {}: its entity {} on rq {} has weight {} where the shares rule "
                  "on one CPU gives S_G = {} (the weight of its `new` or last cpu.weight "
                  "write; load {})",
                  g.path, g.se, g.parent, ge.weight, want, load),
      std::move(w));
  v.rq = g.rq;
  record(report_, std::move(v));
}

}  // namespace vlag::checker
