#include "kernel/state/replay.h"

#include <fmt/format.h>

#include <set>

#include "kernel/state/arith.h"
#include "kernel/state/model.h"
#include "rules/saved_lag.h"
#include "spec/error.h"

namespace vlag::kernel::state {
namespace {

using bpf::EntityState;
using bpf::RecordKind;
using bpf::StateRecord;
using bpf::TaskState;

// TASK_STOPPED | TASK_TRACED | TASK_DEAD | TASK_FROZEN: the states dequeued with DEQUEUE_SPECIAL.
constexpr uint32_t kTaskSpecial = 0x0004 | 0x0008 | 0x0080 | 0x8000;

constexpr const char* kUnrecordedDelta =
    "the cfs_rq's curr ran since its last record with no record of the run (an update_curr() "
    "on an uncaptured CPU)";
constexpr const char* kUnrecordedChange =
    "the cfs_rq held what no record shows (an arrival, a departure or a move between groups)";
constexpr const char* kUnrecordedTree =
    "the tree's vruntimes were not the kernel's (a change no record shows)";
constexpr const char* kUnrecordedGroupTree =
    "the cfs_rq holds group entities and its tree was not the kernel's (a group entity "
    "reweighted by update_cfs_group(), run, placed or dequeued with no record)";
constexpr const char* kReplaced =
    "curr was re-placed with no record of it (a dequeue and enqueue of the running task: "
    "sched_setaffinity, a move between groups)";
constexpr const char* kEmptyQueue =
    "placed into an empty cfs_rq: V is the kernel's reference point (zero_vruntime here, "
    "min_vruntime in the preset: SPEC.md 7)";
constexpr const char* kClampRule =
    "the lag reached the preset's clamp max(2r, TICK); this kernel clamps to the largest slice + "
    "TICK (SPEC.md 4.7)";

std::string u64(LinuxTime t) { return std::to_string(t.bits()); }
std::string u64(uint64_t t) { return std::to_string(t); }
std::string s64(LinuxTime t) { return std::to_string(t.value()); }

// Curr's protection as it acts: protect_slice() is v < vprot, so a vprot at or behind v (a
// cancelled protection, or on 6.18 a lag update_entity_lag() wrote into the word vprot shares)
// protects nothing, whatever its bits.
std::string protection(uint64_t vprot, LinuxTime v) {
  return static_cast<int64_t>(vprot - v.bits()) > 0 ? std::to_string(vprot) : "none";
}

template <class Fields>
bool differs(const Fields& fields) {
  for (const auto& f : fields)
    if (f.kernel != f.model) return true;
  return false;
}

std::string task_name(const TaskState& t) { return t.comm + ":" + std::to_string(t.pid); }

const char* status_name(Status s) {
  switch (s) {
    case Status::Sleeping:
      return "sleeping";
    case Status::Queued:
      return "queued";
    case Status::Delayed:
      return "delayed";
  }
  return "?";
}

// The task's own entity, when the record shows a fair task with one.
const EntityState* own(const TaskState& t) {
  return t.fair && !t.chain.empty() && t.chain[0].pid == t.pid ? &t.chain[0] : nullptr;
}

}  // namespace

const char* decision_name(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::Run:
      return "run delta";
    case DecisionKind::Dequeue:
      return "dequeue";
    case DecisionKind::Pick:
      return "pick";
    case DecisionKind::Placement:
      return "placement";
    case DecisionKind::Reweight:
      return "reweight/slice";
  }
  return "?";
}

uint64_t DecisionTally::not_judged_total() const {
  uint64_t n = 0;
  for (const auto& [why, k] : not_judged) n += k;
  return n;
}

uint64_t ReplayResult::compared() const {
  uint64_t n = 0;
  for (const auto& t : kinds) n += t.compared();
  return n;
}
uint64_t ReplayResult::agreed() const {
  uint64_t n = 0;
  for (const auto& t : kinds) n += t.agreed;
  return n;
}
uint64_t ReplayResult::differed() const {
  uint64_t n = 0;
  for (const auto& t : kinds) n += t.differed;
  return n;
}

std::string Difference::text() const {
  return fmt::format(
      "{} at record {} ({}.{:09} s, cpu{}, cfs_rq {:#x}), {}: {} kernel {}, model {}; the model "
      "had {}",
      decision_name(kind), record, time_ns / 1'000'000'000, time_ns % 1'000'000'000, cpu, cfs_rq,
      task, field, kernel, model, model_had);
}

DecisionReplay::DecisionReplay(const Params& params, bool vprot, bool max_slice_clamp)
    : params_(params), vprot_(vprot), max_slice_clamp_(max_slice_clamp) {
  result_.preset = params.preset.name;
}

Mirror& DecisionReplay::mirror(uint64_t id, int cpu) {
  Mirror& m = mirrors_[id];
  m.id = id;
  m.cpu = cpu;
  return m;
}

Mirror* DecisionReplay::replayed(const TaskState& t, int cpu) {
  const EntityState* k = own(t);
  return k ? &mirror(k->cfs_rq.id, cpu) : nullptr;
}

int32_t DecisionReplay::id_of(const bpf::QueuedEntity& e) {
  if (!e.is_group && e.pid != 0) return e.pid;
  const auto [it, added] =
      group_ids_.emplace(e.id, kGroupIdBase + static_cast<int32_t>(group_ids_.size()));
  return it->second;
}

std::string DecisionReplay::name_of(const Mirror& m, int32_t id) {
  if (id < kGroupIdBase) return std::to_string(id);
  const auto it = m.members.find(id);
  return it == m.members.end() ? "a group entity" : it->second.comm;
}

std::string DecisionReplay::cannot_judge(const Mirror& m, const StateRecord& r, int cpu,
                                         bool needs_curr) const {
  if (std::string why = model_->history_unknown(cpu); !why.empty()) return why;
  if (!m.synced) return m.why;
  if (needs_curr && m.curr && m.curr_clock != r.rq_clock_task) return kUnrecordedDelta;
  return "";
}

std::string DecisionReplay::had(const Mirror& m, int32_t pid) const {
  const auto line = [](const Member& x) {
    return fmt::format("{}:{} {} v={} d={} w={} slice={}{}", x.comm.empty() ? "pid" : x.comm,
                       x.e.id, status_name(x.e.status), u64(x.e.vruntime), u64(x.e.deadline),
                       x.e.weight, x.e.slice,
                       x.e.status == Status::Sleeping ? " vlag=" + s64(x.e.vlag) : "");
  };
  std::string s;
  if (const auto it = m.members.find(pid); it != m.members.end()) s = line(it->second);
  if (m.curr && *m.curr != pid) s += "; curr " + line(m.members.at(*m.curr));
  size_t queued = 0;
  for (const auto& [p, x] : m.members) queued += x.e.status != Status::Sleeping;
  s += fmt::format("; {} queued, curr {}, next buddy {}, protection {}", queued,
                   m.curr ? std::to_string(*m.curr) : "none",
                   m.next ? std::to_string(*m.next) : "none", m.prot ? u64(*m.prot) : "unknown");
  return s;
}

void DecisionReplay::decide(DecisionKind kind, const Mirror& m, const StateRecord& r, size_t index,
                            const std::string& who, const std::vector<Field>& fields,
                            std::string what_it_had) {
  Pending p{kind, m.id, m.has_groups, {}};
  for (const Field& f : fields)
    if (f.kernel != f.model) {
      p.diff = Difference{kind, index,  r.time_ns, m.cpu,   m.id,
                          who,  f.name, f.kernel,  f.model, std::move(what_it_had)};
      break;
    }
  pending_.push_back(std::move(p));
}

bool DecisionReplay::replaced(const Mirror& m, int32_t pid, const EntityState& k) const {
  ModelRunqueue rq = m.model(params_);
  rq.dequeue_entity(pid, false);
  const LinuxTime lag = rq.entity(pid).vlag;
  rq.enqueue_entity(pid);
  const ModelEntity& e = rq.entity(pid);
  if (e.vruntime.bits() != k.vruntime || e.deadline.bits() != k.deadline) return false;
  return !vprot_ || protection(k.vprot, e.vruntime) == protection(lag.bits(), e.vruntime);
}

void DecisionReplay::not_judged(DecisionKind kind, const std::string& why) {
  ++result_.kinds[static_cast<size_t>(kind)].not_judged[why];
}

// The cfs_rqs that hold group entities (a level above a task's own in its chain, or in a
// snapshot), counted for the report: their group entities' runs and reweights have no record,
// so each decision there is judged only where the records show the state it was made from.
void DecisionReplay::note_groups(const StateRecord& r) {
  const auto mark = [&](uint64_t id) {
    Mirror& m = mirror(id, StateModel::rq_of(r));
    if (!m.has_groups) ++result_.cfs_rqs_with_groups;
    m.has_groups = true;
  };
  for (const auto& t : r.tasks)
    for (size_t level = 1; level < t.chain.size(); ++level)
      if (!mirror(t.chain[level].cfs_rq.id, StateModel::rq_of(r)).has_groups)
        mark(t.chain[level].cfs_rq.id);
  for (const auto& q : r.queues)
    for (const auto& e : q.entities)
      if (e.is_group && !mirror(q.cfs_rq, StateModel::rq_of(r)).has_groups) mark(q.cfs_rq);
}

// A task the record shows on another cfs_rq than the one it was a member of moved without a
// record (a new session, an exit leaving its autogroup, a pull by load balancing): it leaves
// the old one, which no longer knows what it holds if the task was queued there.
void DecisionReplay::follow_moves(const StateRecord& r) {
  for (const auto& t : r.tasks) {
    const EntityState* k = own(t);
    if (!k) continue;
    const auto home = home_.find(t.pid);
    if (home == home_.end() || home->second == k->cfs_rq.id) continue;
    if (r.kind == RecordKind::Migrate) continue;  // on_migrate takes it off
    Mirror& old = mirrors_[home->second];
    if (Member* m = old.member(t.pid)) {
      if (m->e.status != Status::Sleeping && old.synced)
        old.unsync("a queued task moved to another cfs_rq without a record");
      if (old.curr == t.pid) old.curr.reset();
      old.members.erase(t.pid);
    }
    home_.erase(home);
  }
}

bool DecisionReplay::changed_params(const Member& m, const EntityState& k) const {
  return m.e.weight != static_cast<int64_t>(scale_down(k.weight)) ||
         m.e.slice != static_cast<int64_t>(k.slice) || m.e.custom_slice != k.custom_slice;
}

void DecisionReplay::feed(const StateRecord& r, size_t index, const StateModel& model) {
  model_ = &model;
  const int cpu = StateModel::rq_of(r);
  if (model.gap_at(index))
    for (auto& [id, m] : mirrors_)
      if (m.cpu == cpu && m.synced) m.unsync("a gap: a task ran that no switch put in");
  note_groups(r);
  follow_moves(r);
  try {
    switch (r.kind) {
      case RecordKind::Runtime:
        on_runtime(r, index, cpu);
        break;
      case RecordKind::Switch:
        on_switch(r, index, cpu);
        break;
      case RecordKind::Wakeup:
      case RecordKind::WakeupNew:
        on_wakeup(r, index, cpu);
        break;
      case RecordKind::Migrate:
        on_migrate(r, index, cpu);
        break;
      case RecordKind::Exit:
      case RecordKind::SetAttr:
        if (r.tasks.empty()) break;
        if (Mirror* m = replayed(r.tasks[0], cpu)) {
          const EntityState& k = *own(r.tasks[0]);
          if (Member* mem = m->member(r.tasks[0].pid); mem && changed_params(*mem, k))
            on_reweight(*m, r, index, r.tasks[0]);
          else if (m->synced && mem)
            m->take(k.pid, k, r.tasks[0].comm);
        }
        break;
    }
  } catch (const Error& e) {
    // The model refused the state or an operation on it: the records do not fit the model's
    // preconditions (a case the replay does not drive), never a difference.
    for (auto& [id, m] : mirrors_)
      if (m.cpu == cpu && m.synced) m.unsync(std::string("the model refused: ") + e.what());
    pending_.clear();
  }
  // What the record shows is a fact whether or not the replay could judge it: a cfs_rq not in
  // step keeps its members' numbers (a sleeper's saved lag above all) for when it is seeded.
  // A group entity's numbers are taken in wherever a record shows them: its runs, reweights and
  // placements have no record of their own.
  for (const auto& t : r.tasks) {
    const EntityState* k = own(t);
    if (!k || r.kind == RecordKind::Migrate) continue;
    if (Mirror* m = replayed(t, cpu); m && !m->synced) m->take(k->pid, *k, t.comm);
    for (size_t level = 1; level < t.chain.size(); ++level) {
      const EntityState& g = t.chain[level];
      group_rq_[g.id] = t.chain[level - 1].cfs_rq.id;
      Mirror& m = mirror(g.cfs_rq.id, cpu);
      m.take(id_of(g), g, "");
      if (m.synced) m.take_cfs_rq(g.cfs_rq);
    }
  }
  settle(r);
  for (const auto& t : r.tasks)
    if (const EntityState* k = own(t))
      if (const auto it = mirrors_.find(k->cfs_rq.id); it != mirrors_.end())
        it->second.last_record = index;
  for (const auto& t : r.tasks)
    if (const EntityState* k = own(t); k && r.kind != RecordKind::Migrate) {
      const Mirror* m = replayed(t, cpu);
      if (m && m->members.contains(t.pid)) home_[t.pid] = k->cfs_rq.id;
    }
}

// The record's decisions are final once the cfs_rqs they were made on hold what the records
// say: a count or weight the records do not account for means the model started from a state
// that was not the kernel's, and a difference then is not judged.
void DecisionReplay::settle(const StateRecord& r) {
  std::map<uint64_t, std::string> membership;
  for (const uint64_t id : disturbed_) membership[id] = kUnrecordedChange;
  disturbed_.clear();
  for (const auto& t : r.tasks) {
    if (!own(t)) continue;
    for (const EntityState& k : t.chain) {
      const auto it = mirrors_.find(k.cfs_rq.id);
      if (it == mirrors_.end() || !it->second.synced) continue;
      Mirror& m = it->second;
      // With the record's own entities taken in, the tree's count, weights and vruntimes are
      // the kernel's unless the model started from a state that was not.
      const char* tree = m.has_groups ? kUnrecordedGroupTree : kUnrecordedTree;
      if (std::string why = m.membership_differs(k.cfs_rq); !why.empty()) {
        membership[m.id] = m.has_groups ? tree : kUnrecordedChange;
        m.unsync(membership[m.id]);
      } else if (std::string keys = m.keys_differ(k.cfs_rq); !keys.empty()) {
        membership[m.id] = tree;
        m.unsync(tree);
      }
    }
  }
  for (Pending& p : pending_) {
    DecisionTally& tally = result_.kinds[static_cast<size_t>(p.kind)];
    DecisionTally* group =
        p.groups && p.kind == DecisionKind::Pick ? &result_.group_picks : nullptr;
    if (p.diff.field.empty()) {
      ++tally.agreed;
      if (group) ++group->agreed;
    } else if (const auto it = membership.find(p.cfs_rq); it != membership.end()) {
      ++tally.not_judged[it->second];
    } else {
      ++tally.differed;
      if (group) ++group->differed;
      if (result_.differences.size() < ReplayResult::kMaxDifferences)
        result_.differences.push_back(std::move(p.diff));
    }
  }
  pending_.clear();
}

void DecisionReplay::seed_at_switch(Mirror& m, const StateRecord& r, size_t index, size_t level) {
  const TaskState& next = r.tasks[1];
  const EntityState& k = next.chain[level];
  const int32_t id = id_of(k);
  const bpf::QueueSnapshot* q = nullptr;
  for (const auto& s : r.queues)
    if (static_cast<size_t>(s.level) == level && s.cfs_rq == k.cfs_rq.id) q = &s;
  bool complete = q && !q->truncated && r.queues_complete;
  for (size_t i = 0; complete && i < q->entities.size(); ++i)
    complete = q->entities[i].is_group || q->entities[i].pid != 0;
  if (!complete && m.synced) return;
  // A replayed cfs_rq whose tree is not the one the model holds after its pick: the pick was
  // made from a state that was not the kernel's.
  if (complete && m.synced) {
    std::set<int32_t> model_tree, kernel_tree;
    for (const auto& [pid, mem] : m.members)
      if (mem.e.status != Status::Sleeping && m.curr != pid) model_tree.insert(pid);
    for (const auto& e : q->entities) kernel_tree.insert(id_of(e));
    if (model_tree != kernel_tree) disturbed_.insert(m.id);
  }
  // The tree at the pick and the pick as curr: every queued entity. Sleeping members keep the
  // saved lags their records showed. Without a complete snapshot, the entities the records last
  // showed queued are the tree if they account for the kernel's count, weights and key sum.
  if (complete) {
    // A snapshot does not give the tree's order among equal deadlines: an entity the model did
    // not already hold queued in step takes its place in it unknown.
    std::set<int32_t> in_step;
    for (auto& [pid, mem] : m.members) {
      if (mem.e.status == Status::Sleeping) continue;
      if (m.synced && mem.order_known) in_step.insert(pid);
      mem.e.status = Status::Sleeping, mem.lag_known = false;
    }
    for (const auto& e : q->entities) {
      EntityState s;
      static_cast<bpf::QueuedEntity&>(s) = e;
      s.on_rq = true;
      const int32_t eid = id_of(e);
      const uint64_t seq = m.members.contains(eid) ? m.members.at(eid).e.seq : 0;
      Member& mem = m.take(eid, s, "");
      if (in_step.contains(eid)) {
        mem.e.seq = seq;
      } else {
        mem.order_known = false;
      }
    }
  }
  m.take(id, k, level == 0 ? next.comm : "");
  m.curr = id;
  m.take_cfs_rq(k.cfs_rq);
  m.prot = vprot_ ? std::optional<LinuxTime>(as_time(k.vprot)) : std::nullopt;
  m.curr_clock = r.rq_clock_task;
  m.clock_record = index;
  if (m.membership_differs(k.cfs_rq).empty() && m.keys_differ(k.cfs_rq).empty()) {
    if (!m.synced) ++result_.seeds;
    if (!m.ever_synced) ++result_.cfs_rqs_replayed;
    m.synced = m.ever_synced = true;
    m.why.clear();
  }
}

void DecisionReplay::on_runtime(const StateRecord& r, size_t index, int cpu) {
  const TaskState& t = r.tasks[0];
  Mirror* mp = replayed(t, cpu);
  if (!mp) return;
  Mirror& m = *mp;
  const EntityState& k = *own(t);
  Member* mem = m.member(t.pid);
  if (m.synced && (m.curr != t.pid || !mem)) {
    not_judged(DecisionKind::Run, "the task is not the curr the records made");
    m.unsync("a task ran that the records did not make the cfs_rq's curr");
    return;
  }
  if (mem && changed_params(*mem, k)) {
    on_reweight(m, r, index, t);
  } else if (std::string why = cannot_judge(m, r, cpu, false); !why.empty()) {
    not_judged(DecisionKind::Run, why);
  } else if (!m.curr_clock || *m.curr_clock + r.runtime_ns != r.rq_clock_task) {
    not_judged(DecisionKind::Run, kUnrecordedDelta);
  } else {
    std::vector<Field> f{{"v", u64(k.vruntime), u64(mem->e.vruntime)},
                         {"d", u64(k.deadline), u64(mem->e.deadline)}};
    if (vprot_ && m.prot && k.cfs_rq.nr_queued > 1) {
      if (m.has_groups)
        ++result_.group_protections_not_compared;
      else
        f.push_back({"vprot", protection(k.vprot, as_time(k.vruntime)),
                     protection(m.prot->bits(), mem->e.vruntime)});
    }
    if (differs(f) && replaced(m, t.pid, k))
      not_judged(DecisionKind::Run, kReplaced);
    else
      decide(DecisionKind::Run, m, r, index, task_name(t), f, had(m, t.pid));
  }
  if (!m.synced || m.curr != t.pid) return;
  m.take(k.pid, k, t.comm);
  m.take_cfs_rq(k.cfs_rq);
  if (vprot_) m.prot = as_time(k.vprot);
  ModelRunqueue rq = m.model(params_);
  m.last_delta =
      LastDelta{t.pid, r.rq_clock_task, static_cast<int64_t>(r.runtime_ns), m.members.at(t.pid).e};
  rq.update_curr(static_cast<int64_t>(r.runtime_ns));
  m.absorb(rq);
  m.curr_clock = r.rq_clock_task;
  m.clock_record = index;
}

// set_user_nice() and __sched_setscheduler() on a queued task: dequeue it (its lag and relative
// deadline saved), change the weight or slice, enqueue it again (placed with that lag), and if
// it was running make it curr again. Judged where the record is the task's own syscall return,
// so that the change happened at the state the model holds.
void DecisionReplay::on_reweight(Mirror& m, const StateRecord& r, size_t index,
                                 const TaskState& t) {
  const EntityState& k = *own(t);
  Member& mem = *m.member(t.pid);
  // The change happened at the state the model holds when the record is the task's own
  // syscall return, or its run record next after the one that brought it up to date, with
  // nothing else recorded on the cfs_rq in between (set_user_nice() on itself: its dequeue's
  // update_curr() is that record).
  const bool own_call =
      (r.kind == RecordKind::SetAttr && (r.target_pid == 0 || r.target_pid == t.pid)) ||
      (r.kind == RecordKind::Runtime && m.curr_clock &&
       *m.curr_clock + r.runtime_ns == r.rq_clock_task && m.last_record == m.clock_record);
  std::string why = cannot_judge(m, r, StateModel::rq_of(r), false);
  if (why.empty() && mem.e.status == Status::Sleeping) why = "the task was not queued";
  if (why.empty() && (!own_call || m.curr != t.pid))
    why = "the weight or slice changed at a moment no record shows (set by another task)";
  if (!why.empty()) {
    not_judged(DecisionKind::Reweight, why);
    if (m.synced) m.take(k.pid, k, t.comm);
    return;
  }
  const std::string before = had(m, t.pid);
  ModelRunqueue rq = m.model(params_);
  rq.dequeue_entity(t.pid, false);
  if (mem.e.weight != static_cast<int64_t>(scale_down(k.weight)))
    rq.reweight_entity(t.pid, static_cast<int64_t>(scale_down(k.weight)));
  if (mem.e.slice != static_cast<int64_t>(k.slice) || mem.e.custom_slice != k.custom_slice)
    rq.set_slice(t.pid, k.custom_slice ? static_cast<int64_t>(k.slice) : 0);
  rq.enqueue_entity(t.pid);
  m.absorb(rq);
  m.curr = t.pid;  // set_next_task: it runs on, its protection armed anew
  m.prot.reset();
  decide(DecisionKind::Reweight, m, r, index, task_name(t),
         {{"v", u64(k.vruntime), u64(mem.e.vruntime)}, {"d", u64(k.deadline), u64(mem.e.deadline)}},
         before);
  m.take(k.pid, k, t.comm);
}

void DecisionReplay::on_switch(const StateRecord& r, size_t index, int cpu) {
  const TaskState& prev = r.tasks[0];
  const TaskState& next = r.tasks[1];
  // pick_task_fair() picks at every level of next's chain, from the root down; each cfs_rq's
  // curr while it picks is prev's entity there, if prev has one.
  std::set<uint64_t> picked;
  if (own(next))
    for (const auto& k : next.chain) picked.insert(k.cfs_rq.id);
  Mirror* mp = replayed(prev, cpu);
  // Prev: it slept (dequeued, or delayed), or was preempted and goes back into the tree.
  if (mp && mp->synced) {
    Mirror& m = *mp;
    const EntityState& k = *own(prev);
    Member* mem = m.member(prev.pid);
    if (m.curr != prev.pid || !mem) {
      m.unsync("a task ran that the records did not make the cfs_rq's curr");
    } else if (changed_params(*mem, k)) {
      on_reweight(m, r, index, prev);
      m.curr.reset();
    } else {
      const bool left = !k.on_rq || k.sched_delayed;
      const DecisionKind kind = left ? DecisionKind::Dequeue : DecisionKind::Run;
      if (std::string why = cannot_judge(m, r, cpu, true); !why.empty()) {
        not_judged(kind, why);
      } else {
        const std::string before = had(m, prev.pid);
        std::vector<Field> f{{"v", u64(k.vruntime), u64(mem->e.vruntime)},
                             {"d", u64(k.deadline), u64(mem->e.deadline)}};
        if (left) {
          // A task in a special state (stopped, traced, dead, frozen) is dequeued at once,
          // never delayed (DEQUEUE_SPECIAL): the model's dequeue without DEQUEUE_SLEEP, its
          // deadline kept absolute as a sleep keeps it.
          const bool special = (r.prev_state & kTaskSpecial) != 0;
          ModelRunqueue rq = m.model(params_);
          rq.dequeue_entity(prev.pid, !special);
          m.absorb(rq);
          if (special && mem->e.rel_deadline) {
            mem->e.deadline += mem->e.vruntime;
            mem->e.rel_deadline = false;
          }
          const bool delayed = mem->e.status == Status::Delayed;
          f.push_back({"delayed", k.sched_delayed ? "yes" : "no", delayed ? "yes" : "no"});
          if (!k.sched_delayed && !delayed) {
            // The lag saved: where the model clamped it and this kernel's clamp is another, the
            // two rules part there and nothing is judged about the lag itself.
            const LinuxTime limit = ModelRunqueue::Arith::vdelta(
                rules::lag_clamp_ns(params_, mem->e.slice, rq.max_slice()), mem->e.weight);
            const bool clamped = mem->e.vlag == limit || mem->e.vlag == -limit;
            if (max_slice_clamp_ && clamped && mem->e.vlag.value() != k.vlag) {
              not_judged(kind, kClampRule);
              f.clear();
            } else {
              f.push_back({"vlag", std::to_string(k.vlag), s64(mem->e.vlag)});
            }
          }
        } else if (vprot_ && m.prot && k.cfs_rq.nr_queued > 1) {
          if (m.has_groups)
            ++result_.group_protections_not_compared;
          else
            f.push_back({"vprot", protection(k.vprot, as_time(k.vruntime)),
                         protection(m.prot->bits(), mem->e.vruntime)});
        }
        if (!left && differs(f) && replaced(m, prev.pid, k))
          not_judged(kind, kReplaced);
        else if (!f.empty())
          decide(kind, m, r, index, task_name(prev), f, before);
      }
      m.take(k.pid, k, prev.comm);
      // The record's next buddy is the one after this switch's pick; a pick still to be judged
      // on this cfs_rq chooses with the one before.
      const std::optional<int32_t> buddy = m.next;
      m.take_cfs_rq(k.cfs_rq);
      if (picked.contains(m.id)) m.next = buddy;
      if (!left) {
        if (vprot_) m.prot = as_time(k.vprot);
        m.curr_clock = r.rq_clock_task;  // pick_task_fair() charged it up to now
        m.clock_record = index;
      }
      if (!picked.contains(m.id)) {
        // Its group is switched out: put_prev_entity() at this level puts a preempted prev back
        // into the tree as its newest entity, which loses ties in deadline to those already
        // there (the rbtree inserts an equal key to the right).
        if (!left && m.curr == prev.pid) {
          ModelRunqueue rq = m.model(params_);
          rq.put_prev(prev.pid);
          m.absorb(rq);
        }
        m.curr.reset();
        m.prot.reset();
        m.curr_clock.reset();
      } else if (left) {
        m.curr.reset();
        m.prot.reset();
      }
    }
  } else if (mp && !picked.contains(mp->id)) {
    mp->curr.reset();
  }
  put_prev_groups(r, index, cpu, picked);
  if (!own(next)) return;
  for (size_t level = next.chain.size(); level-- > 0;) pick_at(r, index, cpu, level);
}

// Prev's group entities, each as the record shows it after the pick's update_curr() (a group
// entity's runs have no record of their own): one that left with its group's last task is off
// the queue or delayed; one on a cfs_rq where the switch picked is curr for that pick; one on a
// cfs_rq below where next's chain joins prev's is put back into its tree.
void DecisionReplay::put_prev_groups(const StateRecord& r, size_t index, int cpu,
                                     const std::set<uint64_t>& picked) {
  const TaskState& prev = r.tasks[0];
  if (!own(prev)) return;
  for (size_t j = 1; j < prev.chain.size(); ++j) {
    const EntityState& k = prev.chain[j];
    Mirror& m = mirror(k.cfs_rq.id, cpu);
    const int32_t id = id_of(k);
    if (!m.synced) continue;
    if (m.curr != id) {
      m.unsync("the cfs_rq's curr is not the group entity the records put in");
      continue;
    }
    const LinuxTime v_before = m.members.contains(id) ? m.members.at(id).e.vruntime : LinuxTime(0);
    // Its protection before this switch: a reweight on the way (update_cfs_group() as a task of
    // its group slept) writes a lag into the word vprot shares after its update_curr().
    const uint64_t vprot = m.prot ? m.prot->bits() : k.vprot;
    m.take(id, k, "");
    // The update_curr() at this level ran it on: once its protection is over it asks for a new
    // pick and clears the buddies it is (clear_buddies(), Linux 6.17+ update_curr()), a next
    // buddy set on it when a task of its group slept.
    if (m.next == id && k.vruntime != v_before.bits() && k.cfs_rq.nr_queued > 1 &&
        static_cast<int64_t>(vprot - k.vruntime) <= 0)
      m.next.reset();
    if (!k.on_rq || k.sched_delayed) {
      m.curr.reset();
      m.prot.reset();
      m.curr_clock.reset();
      continue;
    }
    if (vprot_) m.prot = as_time(k.vprot);
    m.curr_clock = r.rq_clock_task;
    m.clock_record = index;
    if (picked.contains(m.id)) continue;
    ModelRunqueue rq = m.model(params_);
    rq.put_prev(id);
    m.absorb(rq);
  }
}

Mirror* DecisionReplay::group_below(const Mirror& m, int32_t group) {
  const auto member = m.members.find(group);
  if (member == m.members.end()) return nullptr;
  const auto below = group_rq_.find(member->second.se);
  if (below == group_rq_.end()) return nullptr;
  const auto it = mirrors_.find(below->second);
  return it == mirrors_.end() ? nullptr : &it->second;
}

bool DecisionReplay::only_delayed(const Mirror& m) {
  bool any = false;
  for (const auto& [pid, x] : m.members) {
    if (x.e.status == Status::Queued) return false;
    any = any || x.e.status == Status::Delayed;
  }
  return any;
}

// On a cfs_rq holding group entities, whether the model holds the state the pick chose from:
// the pick and every entity of the level's queue snapshot as the record shows them (a group
// entity's weight and vruntime change with no record, and the sums after the pick do not show
// the one it made curr).
bool DecisionReplay::state_at_pick_known(const Mirror& m, const StateRecord& r, size_t level) {
  const auto same = [&](const bpf::QueuedEntity& e) {
    const auto it = m.members.find(id_of(e));
    if (it == m.members.end() || it->second.e.status == Status::Sleeping) return false;
    const ModelEntity& x = it->second.e;
    return x.vruntime.bits() == e.vruntime && x.deadline.bits() == e.deadline &&
           x.weight == static_cast<int64_t>(scale_down(e.weight)) &&
           x.slice == static_cast<int64_t>(e.slice);
  };
  if (!same(r.tasks[1].chain[level])) return false;
  for (const auto& q : r.queues)
    if (static_cast<size_t>(q.level) == level && q.cfs_rq == m.id)
      for (const auto& e : q.entities)
        if (!same(e)) return false;
  return true;
}

// The pick at next's entity of one level: the model's pick_next_entity() from what it holds,
// curr's numbers those the record shows.
void DecisionReplay::pick_at(const StateRecord& r, size_t index, int cpu, size_t level) {
  const TaskState& prev = r.tasks[0];
  const TaskState& next = r.tasks[1];
  const EntityState& k = next.chain[level];
  const int32_t id = id_of(k);
  Mirror& m = mirror(k.cfs_rq.id, cpu);
  const EntityState* pk = nullptr;
  if (own(prev))
    for (const auto& e : prev.chain)
      if (e.cfs_rq.id == m.id) pk = &e;
  const std::optional<int32_t> was_curr =
      pk && pk->on_rq && !pk->sched_delayed ? std::optional<int32_t>(id_of(*pk)) : std::nullopt;
  if (m.synced && m.curr && m.curr != was_curr)
    m.unsync("the cfs_rq's curr is not the entity that switched out");
  const Member* mem = m.member(id);
  std::string why = cannot_judge(m, r, cpu, true);
  if (why.empty() && (!mem || mem->e.status == Status::Sleeping))
    why = "the pick is an entity the model does not have queued (arrived without a record)";
  if (why.empty() && m.has_groups && !state_at_pick_known(m, r, level)) why = kUnrecordedGroupTree;
  const std::string who =
      level == 0 ? task_name(next) : fmt::format("{}'s group entity {:#x}", task_name(next), k.id);
  if (!why.empty()) {
    not_judged(DecisionKind::Pick, why);
  } else {
    const std::string before = had(m, id);
    ModelRunqueue rq = m.model(params_);
    std::optional<EntityId> picked = rq.pick_next_entity();
    // pick_task_fair(): a group entity whose cfs_rq holds only delayed entities is picked, the
    // pick below completes their dequeues, the group entity leaves (it was eligible: fully
    // dequeued) and the pick starts again from the root.
    while (picked && *picked != id && *picked >= kGroupIdBase) {
      Mirror* below = group_below(m, static_cast<int32_t>(*picked));
      if (!below || !below->synced) {
        why =
            "the model's pick is a group entity whose cfs_rq the replay does not know (its "
            "pick may complete delayed dequeues and send the pick back to the root)";
        break;
      }
      if (!only_delayed(*below)) break;
      for (auto& [pid, x] : below->members)
        if (x.e.status == Status::Delayed) x.e.status = Status::Sleeping, x.lag_known = false;
      below->curr.reset();
      below->next.reset();
      rq = m.model(params_);
      rq.dequeue_entity(*picked, true);
      picked = rq.pick_next_entity();
    }
    m.absorb(rq);
    std::vector<Field> f{
        {"pick", name_of(m, id), picked ? name_of(m, static_cast<int32_t>(*picked)) : "none"}};
    if (picked && *picked == id && vprot_ && m.prot) {
      if (m.has_groups)
        ++result_.group_protections_not_compared;
      else
        f.push_back({"vprot", protection(k.vprot, as_time(k.vruntime)),
                     protection(m.prot->bits(), as_time(k.vruntime))});
    }
    // Equal deadlines: the kernel's tree takes the one inserted first, which a seeding from a
    // snapshot does not show.
    const auto tied = [&](int32_t a, int32_t b) {
      const auto x = m.members.find(a), y = m.members.find(b);
      return x != m.members.end() && y != m.members.end() &&
             x->second.e.deadline == y->second.e.deadline &&
             (!x->second.order_known || !y->second.order_known);
    };
    if (why.empty() && picked && *picked != id && tied(id, static_cast<int32_t>(*picked)))
      why =
          "tied in deadline with an entity whose place among equal deadlines in the tree no "
          "record shows (seeded from a queue snapshot)";
    if (why.empty())
      decide(DecisionKind::Pick, m, r, index, who, f, before);
    else
      not_judged(DecisionKind::Pick, why);
  }
  // Take in the record: the pick as curr, the tree from a complete snapshot.
  if (m.synced) {
    m.take(id, k, level == 0 ? next.comm : "");
    m.curr = id;
    m.take_cfs_rq(k.cfs_rq);
    m.prot = vprot_ ? std::optional<LinuxTime>(as_time(k.vprot)) : std::nullopt;
    m.curr_clock = r.rq_clock_task;
    m.clock_record = index;
  }
  seed_at_switch(m, r, index, level);
}

void DecisionReplay::on_wakeup(const StateRecord& r, size_t index, int cpu) {
  const TaskState& t = r.tasks[0];
  Mirror* mp = replayed(t, cpu);
  if (!mp) return;
  Mirror& m = *mp;
  const EntityState& k = *own(t);
  if (k.cfs_rq.curr == k.id) return;  // woken while running: nothing placed
  Member* mem = m.member(t.pid);
  if (mem && mem->e.status == Status::Delayed && t.waking && !t.waking->entity.on_rq) {
    // Off the queue at sched_waking though the model holds it delayed: its dequeue completed
    // with no record (a pick of its cfs_rq, where it was alone, that no switch shows), with a
    // lag DELAY_ZERO truncated at a V no record gives. The wakeup places it afresh.
    mem->e.status = Status::Sleeping;
    mem->e.on_tree = false;
    mem->lag_known = false;
    if (m.next == t.pid) m.next.reset();
  }
  if (mem && mem->e.status == Status::Queued) {  // woken while still queued
    if (m.synced) m.take(k.pid, k, t.comm);
    return;
  }
  std::optional<Member> arriving;
  if (!mem && r.kind == RecordKind::WakeupNew) {
    Member fresh;
    fresh.e.id = t.pid;
    fresh.e.weight = static_cast<int64_t>(scale_down(k.weight));
    fresh.e.custom_slice = k.custom_slice;
    fresh.e.slice = static_cast<int64_t>(k.slice);
    fresh.e.is_new = true;
    fresh.se = k.id;
    fresh.comm = t.comm;
    fresh.lag_known = false;  // what a new task's vlag field holds is not the model's business
    arriving = fresh;
  } else if (!mem) {
    if (auto it = transit_.find(t.pid); it != transit_.end()) {
      arriving = it->second;
      transit_.erase(it);
    }
  }
  std::string why = cannot_judge(m, r, cpu, true);
  if (why.empty() && !mem && !arriving)
    why = "the wakee was never seen before (mid-life): its saved lag is not known";
  if (why.empty()) {
    const Member& from = mem ? *mem : *arriving;
    bool empty = true;
    for (const auto& [pid, x] : m.members) empty = empty && (x.e.status == Status::Sleeping);
    if (empty && from.e.status == Status::Sleeping) why = kEmptyQueue;
  }
  if (!why.empty()) {
    not_judged(DecisionKind::Placement, why);
    if (m.synced) {
      m.take(k.pid, k, t.comm);
      m.take_cfs_rq(k.cfs_rq);
      m.prot.reset();  // wakeup_preempt() may have changed curr's protection
    }
    return;
  }
  if (arriving) {
    Member& added = m.members[t.pid];
    added = *arriving;
    added.e.status = Status::Sleeping;
    added.e.on_tree = false;
    mem = &added;
  }
  const std::string before = had(m, t.pid);
  const bool requeue = mem->e.status == Status::Delayed;
  const bool lag_known = mem->lag_known && !requeue;
  if (!lag_known && !requeue) {
    // The lag its dequeue saved went unseen (the dequeue completed with no record): the record
    // shows it, as the placement read it, and the placement is judged from it.
    mem->e.weight = static_cast<int64_t>(scale_down(k.weight));
    mem->e.slice = static_cast<int64_t>(k.slice);
    mem->e.custom_slice = k.custom_slice;
    mem->e.vlag = LinuxTime(k.vlag);
  }
  // ttwu_runnable() requeues a delayed wakee before wakeup_preempt() brings curr up to date:
  // the run delta recorded at this clock comes after the requeue.
  const bool delta_after = requeue && m.last_delta && m.curr && m.last_delta->pid == *m.curr &&
                           m.last_delta->clock == r.rq_clock_task;
  Mirror undone;
  if (delta_after) {
    undone = m;
    undone.members.at(*m.curr).e = m.last_delta->before;
  }
  ModelRunqueue rq = (delta_after ? undone : m).model(params_);
  const int64_t w = static_cast<int64_t>(scale_down(k.weight));
  if (mem->e.weight != w) rq.reweight_entity(t.pid, w);  // reniced while asleep
  if (mem->e.slice != static_cast<int64_t>(k.slice) || mem->e.custom_slice != k.custom_slice)
    rq.set_slice(t.pid, k.custom_slice ? static_cast<int64_t>(k.slice) : 0);
  const LinuxTime saved = rq.entity(t.pid).vlag;
  rq.enqueue_entity(t.pid);
  if (delta_after) rq.update_curr(m.last_delta->delta);
  if (rq.curr() && *rq.curr() != t.pid) rq.wakeup_preempt(t.pid);
  m.absorb(rq);
  // The saved lag first: a placement from another lag than the kernel's differs because of it.
  std::vector<Field> f;
  if (lag_known) f.push_back({"vlag", std::to_string(k.vlag), s64(saved)});
  f.push_back({"v", u64(k.vruntime), u64(mem->e.vruntime)});
  f.push_back({"d", u64(k.deadline), u64(mem->e.deadline)});
  decide(DecisionKind::Placement, m, r, index, task_name(t), f, before);
  m.take(k.pid, k, t.comm);
  m.take_cfs_rq(k.cfs_rq);
}

void DecisionReplay::on_migrate(const StateRecord& r, size_t index, int cpu) {
  const TaskState& t = r.tasks[0];
  const EntityState* k = own(t);
  if (!k) return;
  Mirror* mp = replayed(t, cpu);
  Member moving;
  Mirror scratch;
  moving = scratch.take(k->pid, *k, t.comm);  // the record shows it as the old CPU left it
  if (mp) {
    Mirror& m = *mp;
    if (Member* mem = m.member(t.pid); mem && mem->e.status != Status::Sleeping && m.synced) {
      // A queued task pulled away: dequeued without DEQUEUE_SLEEP (deadline kept relative).
      if (std::string why = cannot_judge(m, r, cpu, true); !why.empty()) {
        not_judged(DecisionKind::Dequeue, why);
      } else if (m.curr == t.pid) {
        not_judged(DecisionKind::Dequeue, "a running task migrated (its switch out follows)");
      } else {
        const std::string before = had(m, t.pid);
        ModelRunqueue rq = m.model(params_);
        rq.dequeue_entity(t.pid, false);
        m.absorb(rq);
        decide(
            DecisionKind::Dequeue, m, r, index, task_name(t),
            {{"vlag", std::to_string(k->vlag), s64(mem->e.vlag)},
             {"rel_deadline", k->rel_deadline ? "yes" : "no", mem->e.rel_deadline ? "yes" : "no"},
             {"d", u64(k->deadline), u64(mem->e.deadline)}},
            before);
      }
    }
    if (m.curr == t.pid) m.curr.reset();
    m.members.erase(t.pid);
    m.take_cfs_rq(k->cfs_rq);
  }
  home_.erase(t.pid);
  moving.lag_known = !k->on_rq;
  transit_[t.pid] = moving;
}

}  // namespace vlag::kernel::state
