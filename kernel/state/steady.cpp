#include "kernel/state/steady.h"

namespace vlag::kernel::state {
namespace {

using bpf::RecordKind;
using bpf::StateRecord;
using State = Steadiness::State;

}  // namespace

void SteadySystems::spoil(uint64_t cfs_rq, std::string why) {
  System& s = systems_[cfs_rq];
  if (s.state == State::NotSteady) return;  // keep the first reason
  s = System{State::NotSteady, std::move(why), 0, {}, 0};
}

void SteadySystems::take(const StateRecord& r, const StateModel& model) {
  if (r.tasks.empty()) return;
  const bpf::TaskState& t = r.tasks[0];
  const bool fair = t.fair && !t.chain.empty();
  if (fair) switch (r.kind) {
      case RecordKind::Switch:
        for (const auto& e : t.chain)
          if (!e.on_rq || e.sched_delayed)
            spoil(e.cfs_rq.id, e.sched_delayed ? "an entity became delayed (it sleeps)"
                                               : "an entity left the queue (it slept)");
        break;
      case RecordKind::Wakeup:
        spoil(t.chain[0].cfs_rq.id, "a woken task joined with the lag it saved");
        break;
      case RecordKind::WakeupNew: {
        const auto s = systems_.find(t.chain[0].cfs_rq.id);
        if (s != systems_.end() && s->second.state == State::Steady)
          s->second.members[t.chain[0].id] = t.chain[0].weight;
        break;
      }
      case RecordKind::Migrate:
        if (t.chain[0].on_rq) spoil(t.chain[0].cfs_rq.id, "a queued entity migrated away");
        break;
      case RecordKind::SetAttr:
        if (r.target_pid == 0 && t.chain[0].on_rq)
          spoil(t.chain[0].cfs_rq.id, "a queued task changed its nice level or slice");
        break;
      default:
        break;
    }
  // Above the task's own cfs_rq, its enqueue reweights the group entities (update_cfs_group).
  if (fair && (r.kind == RecordKind::Wakeup || r.kind == RecordKind::WakeupNew))
    for (size_t level = 1; level < t.chain.size(); ++level)
      spoil(t.chain[level].cfs_rq.id, "a group entity joined or was reweighted (update_cfs_group)");
  // A record taken under the runqueue lock showing a cfs_rq with at most one entity: fresh.
  if (r.kind == RecordKind::Exit || r.kind == RecordKind::SetAttr) return;
  const int cpu = StateModel::rq_of(r);
  for (const auto& task : r.tasks)
    for (const auto& e : task.chain) {
      if (e.cfs_rq.nr_queued > 1) continue;
      System fresh{State::Steady, "", model.epoch(cpu), {}, e.cfs_rq.nr_queued};
      if (e.on_rq && e.cfs_rq.nr_queued == 1) {
        fresh.members[e.id] = e.weight;
        fresh.unnamed = 0;
      }
      systems_[e.cfs_rq.id] = std::move(fresh);
    }
}

Steadiness SteadySystems::at_decision(uint64_t cfs_rq, int cpu,
                                      const std::vector<const bpf::QueuedEntity*>& queued,
                                      const StateModel& model) {
  const auto found = systems_.find(cfs_rq);
  if (found == systems_.end())
    return {State::Unknown,
            "the cfs_rq was not seen fresh (one entity queued) since the capture "
            "began: how its entities joined is not known"};
  System& s = found->second;
  if (s.state != State::Steady) return {s.state, s.why};
  if (std::string why = model.history_unknown(cpu); !why.empty()) return {State::Unknown, why};
  if (model.epoch(cpu) != s.epoch)
    s = System{
        State::Unknown, "a gap on cpu" + std::to_string(cpu) + " since the system began", 0, {}, 0};
  for (const bpf::QueuedEntity* e : queued) {
    if (s.state != State::Steady) break;
    if (const auto m = s.members.find(e->id); m != s.members.end()) {
      if (m->second != e->weight)
        s = System{State::NotSteady, "an entity's weight changed", 0, {}, 0};
    } else if (s.unnamed > 0) {
      --s.unnamed;
      s.members[e->id] = e->weight;
    } else {
      s = System{State::Unknown,
                 "an entity joined with no record (a remote wakeup, a pull): its lag is not known",
                 0,
                 {},
                 0};
    }
  }
  return {s.state, s.why};
}

}  // namespace vlag::kernel::state
