#include "kernel/state/model.h"

#include <algorithm>

#include "kernel/state/arith.h"

namespace vlag::kernel::state {
namespace {

using bpf::RecordKind;
using bpf::StateRecord;

// The task a record shows running on its runqueue, or -1.
int32_t shown_running(const StateRecord& r) {
  switch (r.kind) {
    case RecordKind::Switch:
    case RecordKind::Runtime:
    case RecordKind::Exit:
    case RecordKind::SetAttr:
      return r.tasks[0].pid;
    default:
      return -1;
  }
}

}  // namespace

StateModel::StateModel(const CaptureFacts& facts,
                       const std::optional<bpf::KernelParameters>& kernel)
    : captured_(facts.cpus),
      lost_(facts.lost_per_cpu),
      base_slice_ns_(kernel ? kernel->base_slice_ns : 0) {}

int StateModel::rq_of(const StateRecord& r) {
  switch (r.kind) {
    case RecordKind::Runtime:
    case RecordKind::Exit:
    case RecordKind::SetAttr:
      return r.tasks[0].task_cpu;
    default:
      return r.cpu;
  }
}

StateModel::CpuView& StateModel::cpu(int c) { return cpus_[c]; }

const StateModel::CpuView* StateModel::find_cpu(int c) const {
  const auto it = cpus_.find(c);
  return it == cpus_.end() ? nullptr : &it->second;
}

void StateModel::begin(const StateRecord& r, size_t index) {
  CpuView& c = cpu(rq_of(r));
  const int32_t shown = shown_running(r);
  if (shown >= 0 && c.running >= 0 && c.running != shown) {
    ++c.epoch;
    ++gaps_;
    gap_index_ = index;
  }
}

void StateModel::see(const bpf::TaskState& t, const bpf::EntityState& e, bool is_curr, int rq,
                     const StateRecord& r, size_t index) {
  const auto found = entities_.find(e.id);
  const bool known = found != entities_.end() && stale(found->second).empty();
  EntityView& v = entities_[e.id];
  if (e.pid != 0) {
    // The request INV-DEADLINE measures d − v against: a slice change keeps the deadline the
    // old slice set (SPEC.md §4.10), a reweight rescales d − v (§4.8), a placement starts anew.
    const bool placed = (r.kind == RecordKind::Wakeup || r.kind == RecordKind::WakeupNew) &&
                        !e.rel_deadline && !is_curr && known && !v.last.on_rq;
    if (!known || placed) {
      v.request_slice = e.slice;
      v.rescaled = false;
      v.fresh_request_known = placed;
    } else {
      v.request_slice = std::max(v.request_slice, e.slice);
      v.rescaled = v.rescaled || e.weight != v.last.weight;
    }
  }
  if (found != entities_.end() && (v.last.cfs_rq.id != e.cfs_rq.id || !e.on_rq))
    if (const auto old = rqs_.find(v.last.cfs_rq.id); old != rqs_.end())
      old->second.queued.erase(e.id);
  CfsRqView& q = rqs_[e.cfs_rq.id];
  q.last = e.cfs_rq;
  q.cpu = rq;
  q.epoch = cpu(rq).epoch;
  q.seen_at = index;
  if (e.on_rq)
    q.queued.insert(e.id);
  else
    q.queued.erase(e.id);
  v.last = e;
  v.pid = e.pid;
  if (e.pid == 0)
    v.comm.clear();
  else if (!t.comm.empty())
    v.comm = t.comm;
  v.cpu = rq;
  v.epoch = cpu(rq).epoch;
  v.seen_at = index;
  v.seen_ns = r.time_ns;
  v.curr = is_curr;
  v.advanced = false;
  v.dequeue_unrecorded = false;
  // A curr's numbers are as of the record's clock where the kernel updated them under the lock
  // just before (a pick, a wakeup); an exit or a syscall's return reads them unlocked.
  const bool locked = r.kind != RecordKind::Exit && r.kind != RecordKind::SetAttr;
  v.clock_task = is_curr && locked && e.pid != 0 ? r.rq_clock_task : 0;
}

void StateModel::advance_curr(const StateRecord& r) {
  const bpf::TaskState& t = r.tasks[0];
  if (!t.fair || t.chain.empty()) return;
  EntityView& v = entities_[t.chain[0].id];
  if (base_slice_ns_ == 0) {
    v.clock_task = 0;  // update_deadline's base slice is not known
    return;
  }
  // update_curr(): v += calc_delta_fair(δ), then update_deadline() if the request is used up.
  bpf::EntityState& e = v.last;
  e.vruntime += calc_delta_fair(r.runtime_ns, e.weight, true);
  if (!before(e.vruntime, e.deadline)) {
    if (!e.custom_slice) e.slice = base_slice_ns_;
    e.deadline = e.vruntime + calc_delta_fair(e.slice, e.weight, true);
    v.request_slice = e.slice;
    v.rescaled = false;
    v.fresh_request_known = true;
  }
  v.advanced = true;
  v.clock_task = r.rq_clock_task;
}

void StateModel::apply(const StateRecord& r, size_t index) {
  const int rq = rq_of(r);
  CpuView& c = cpu(rq);
  const int32_t shown = shown_running(r);
  if (r.kind == RecordKind::Switch)
    c.running = r.tasks[1].pid;
  else if (shown >= 0)
    c.running = shown;
  if (r.kind == RecordKind::Migrate && r.dest_cpu >= 0) cpu(r.dest_cpu).arrival = true;
  if ((r.kind == RecordKind::Wakeup || r.kind == RecordKind::WakeupNew) && r.probe_cpu != rq)
    c.arrival = true;
  if (r.probe_cpu == rq && shown >= 0) c.arrival = false;

  for (const auto& t : r.tasks)
    for (const auto& e : t.chain) see(t, e, e.cfs_rq.curr == e.id, rq, r, index);
  // A queue snapshot shows the entities of a tree, queued and not curr.
  static const bpf::TaskState unnamed;
  for (const auto& q : r.queues) {
    if (static_cast<size_t>(q.level) >= r.tasks[1].chain.size()) continue;
    bpf::EntityState e;
    e.cfs_rq = r.tasks[1].chain[q.level].cfs_rq;
    for (const auto& queued : q.entities) {
      if (const auto known = entities_.find(queued.id);
          known != entities_.end() && known->second.seen_at == index)
        continue;  // the record's own chains show it with more
      static_cast<bpf::QueuedEntity&>(e) = queued;
      e.on_rq = true;
      see(unnamed, e, false, rq, r, index);
    }
    if (!q.truncated) forget_absent(q, r.tasks[1].chain[q.level].id);
  }
  if (r.kind == RecordKind::Runtime) advance_curr(r);
}

void StateModel::forget_absent(const bpf::QueueSnapshot& q, uint64_t curr) {
  CfsRqView& view = rqs_[q.cfs_rq];
  std::unordered_set<uint64_t> present{curr};
  for (const auto& e : q.entities) present.insert(e.id);
  for (auto it = view.queued.begin(); it != view.queued.end();) {
    if (present.contains(*it)) {
      ++it;
      continue;
    }
    // Gone without a record: a delayed entity whose dequeue a pick or a wakeup completed.
    if (const auto e = entities_.find(*it); e != entities_.end()) {
      e->second.last.on_rq = false;
      e->second.dequeue_unrecorded = true;
    }
    it = view.queued.erase(it);
  }
}

std::string StateModel::history_unknown(int c) const {
  if (!captured_.empty() && std::find(captured_.begin(), captured_.end(), c) == captured_.end())
    return "cpu" + std::to_string(c) + " was not captured";
  if (!lost_) return "the capture does not say whether records were lost";
  if (static_cast<size_t>(c) < lost_->size() && (*lost_)[c] > 0)
    return "records were lost on cpu" + std::to_string(c);
  return "";
}

std::string StateModel::stale_since(int cpu, uint64_t epoch, const char* what) const {
  if (std::string why = history_unknown(cpu); !why.empty()) return why;
  const CpuView* c = find_cpu(cpu);
  if (c && c->epoch != epoch)
    return "a gap on cpu" + std::to_string(cpu) + " since " + what + " was last seen";
  return "";
}

std::string StateModel::stale(const EntityView& e) const {
  return stale_since(e.cpu, e.epoch, "it");
}

std::string StateModel::stale(const CfsRqView& q) const {
  return stale_since(q.cpu, q.epoch, "the cfs_rq");
}

const EntityView* StateModel::entity(uint64_t id) const {
  const auto it = entities_.find(id);
  return it == entities_.end() ? nullptr : &it->second;
}

const CfsRqView* StateModel::cfs_rq(uint64_t id) const {
  const auto it = rqs_.find(id);
  return it == rqs_.end() ? nullptr : &it->second;
}

uint64_t StateModel::epoch(int c) const {
  const CpuView* v = find_cpu(c);
  return v ? v->epoch : 0;
}

bool StateModel::arrival_since_local(int c) const {
  const CpuView* v = find_cpu(c);
  return v && v->arrival;
}

}  // namespace vlag::kernel::state
