#include "kernel/state/export.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <unordered_map>

#include "kernel/state/arith.h"
#include "kernel/state/check_context.h"
#include "spec/error.h"
#include "trace/writer.h"

namespace vlag::kernel::state {
namespace {

using bpf::QueuedEntity;
using bpf::RecordKind;
using bpf::StateRecord;
using trace::Event;
using trace::EventKind;

// Group entities are named by `se` ids above every pid.
constexpr EntityId kFirstGroupId = EntityId{1} << 40;

trace::Exact s64(uint64_t x) { return trace::Exact(static_cast<long>(static_cast<int64_t>(x))); }

// The trace of one cfs_rq, as it is written: what it has said so far of each entity.
class RqTrace {
 public:
  RqTrace(uint64_t id, int cpu, std::unordered_map<uint64_t, EntityId>& ids)
      : id_(id), cpu_(cpu), ids_(ids) {}

  bool seeded() const { return seeded_; }
  uint64_t id() const { return id_; }
  int cpu() const { return cpu_; }
  const std::string& text() const { return text_; }
  uint64_t events() const { return events_; }

  // The window's start: the tree and the pick as `entity` lines, then the pick.
  void seed(const StateRecord& r, const bpf::QueueSnapshot& q, const bpf::EntityState& picked,
            const std::string& comm) {
    seeded_ = true;
    for (const auto& e : q.entities) entity_line(r, e, name_of(r, e));
    entity_line(r, picked, comm);
    pick(r, picked);
  }

  // A switch: prev's entity here left, stayed delayed, or was put back; next's was picked.
  void at_switch(const StateRecord& r, const bpf::EntityState* prev, const bpf::EntityState* next,
                 bool picked_here, const bpf::QueueSnapshot* q) {
    if (prev && (!next || prev->id != next->id)) {
      if (!prev->on_rq || prev->sched_delayed)
        leave(r, *prev, EventKind::Sleep, false);
      else if (curr_ == id_of(*prev) && !next)
        put(r, *prev);
    }
    if (q && !q->truncated) resync(r, *q, next);
    if (next && picked_here) {
      arrive(r, *next, true);
      pick(r, *next);
    }
  }

  // A wakeup of the entity here (a wakee's, or its group's, enqueued with it).
  void at_wakeup(const StateRecord& r, const bpf::EntityState& e) { arrive(r, e, false); }

  // A queued entity pulled away to another CPU.
  void at_migrate(const StateRecord& r, const bpf::EntityState& e) {
    if (e.on_rq) leave(r, e, EventKind::Dequeue, false);
  }

 private:
  enum class Said { Queued, Delayed, Gone };

  EntityId id_of(const QueuedEntity& e) {
    if (!e.is_group && e.pid > 0) return e.pid;
    const auto [it, added] =
        ids_.try_emplace(e.id, kFirstGroupId + static_cast<EntityId>(ids_.size()));
    return it->second;
  }

  std::string name_of(const StateRecord& r, const QueuedEntity& e) const {
    for (const auto& t : r.tasks)
      if (t.pid == e.pid) return t.comm;
    return "";
  }

  Event event(EventKind kind, const StateRecord& r, const QueuedEntity& e) {
    Event ev;
    ev.kind = kind;
    ev.t = static_cast<int64_t>(r.time_ns);
    const EntityId id = id_of(e);
    if (e.is_group || e.pid <= 0)
      ev.se = id;
    else
      ev.task = id;
    ev.state.weight = static_cast<int64_t>(scale_down(e.weight));
    ev.state.slice = static_cast<int64_t>(e.slice);
    ev.state.vruntime = s64(e.vruntime);
    ev.state.deadline = s64(e.deadline);
    ev.state.status = e.sched_delayed ? Status::Delayed
                      : e.on_rq       ? Status::Queued
                                      : Status::Sleeping;
    // se->vlag is the saved lag only while the entity sleeps (queued, it is stale, or vprot).
    if (ev.state.status == Status::Sleeping)
      ev.state.vlag = trace::Exact(static_cast<long>(e.vlag));
    return ev;
  }

  void sums(Event& ev, const bpf::CfsRqState& q) {
    ev.kernel.v0 = s64(q.zero_vruntime);
    ev.kernel.sum_w = static_cast<int64_t>(q.sum_weight);
    ev.kernel.sum_wv = trace::Exact(static_cast<long>(q.sum_w_vruntime));
    ev.nr_queued = q.nr_queued;
  }

  void write(const Event& ev, bool unrecorded = false) {
    std::string line = trace::event_line(ev);
    if (unrecorded) line.insert(line.size() - 1, ",\"unrecorded\":true");
    text_ += line + "\n";
    ++events_;
  }

  void entity_line(const StateRecord& r, const QueuedEntity& e, const std::string& comm) {
    Event ev = event(EventKind::Entity, r, e);
    ev.name = comm;
    write(ev);
    said_[id_of(e)] = Said::Queued;
  }

  // The entity is queued here from this record on: a `new` the first time, then a wakeup
  // (unrecorded where the record is not its own arrival), unless the trace has it queued.
  void arrive(const StateRecord& r, const bpf::EntityState& e, bool unrecorded) {
    const EntityId id = id_of(e);
    const auto said = said_.find(id);
    if (said != said_.end() && said->second == Said::Queued) return;
    if (said == said_.end()) {
      Event n = event(EventKind::New, r, e);
      n.state = {};
      n.weight = static_cast<int64_t>(scale_down(e.weight));
      n.slice = static_cast<int64_t>(e.slice);
      if (e.is_group || e.pid <= 0)
        n.group = "se " + hex(e.id);
      else
        n.name = name_of(r, e);
      write(n);
    }
    Event w = event(EventKind::Wakeup, r, e);
    w.state.status = Status::Queued;
    sums(w, e.cfs_rq);
    write(w, unrecorded);
    said_[id] = Said::Queued;
  }

  void leave(const StateRecord& r, const QueuedEntity& e, EventKind kind, bool unrecorded) {
    const EntityId id = id_of(e);
    const auto said = said_.find(id);
    if (said == said_.end() || said->second != Said::Queued) return;
    Event ev = event(kind, r, e);
    if (kind == EventKind::Dequeue) {
      ev.state.status = Status::Sleeping;
      ev.state.vlag.reset();  // a pulled entity's lag is saved after the record
    }
    write(ev, unrecorded);
    said->second = ev.state.status == Status::Delayed ? Said::Delayed : Said::Gone;
    if (curr_ == id) curr_.reset();
  }

  void pick(const StateRecord& r, const bpf::EntityState& e) {
    Event ev = event(EventKind::Pick, r, e);
    ev.state.running = true;
    ev.state.vprot = s64(e.vprot);
    sums(ev, e.cfs_rq);
    write(ev);
    curr_ = id_of(e);
  }

  void put(const StateRecord& r, const bpf::EntityState& e) {
    Event ev = event(EventKind::Put, r, e);
    write(ev);
    curr_.reset();
  }

  // A complete snapshot is the whole tree: the entities the trace has queued and the snapshot
  // lacks (and are not the pick) left without a record; a delayed one the trace has is gone too
  // (a pick completed its dequeue), which the trace cannot say with an event (its reader
  // completes delayed dequeues at picks itself, SPEC.md §4.9), so only this trace forgets it.
  void resync(const StateRecord& r, const bpf::QueueSnapshot& q, const bpf::EntityState* next) {
    std::set<EntityId> present;
    for (const auto& e : q.entities) present.insert(id_of(e));
    if (next) present.insert(id_of(*next));
    for (auto& [id, said] : said_) {
      if (present.contains(id) || said == Said::Gone) continue;
      if (said == Said::Delayed) {
        said = Said::Gone;
        continue;
      }
      Event ev;
      ev.kind = EventKind::Dequeue;
      ev.t = static_cast<int64_t>(r.time_ns);
      if (id >= kFirstGroupId)
        ev.se = id;
      else
        ev.task = id;
      write(ev, true);
      said = Said::Gone;
      if (curr_ == id) curr_.reset();
    }
    for (const auto& e : q.entities) {
      bpf::EntityState s;
      static_cast<QueuedEntity&>(s) = e;
      s.on_rq = true;
      s.cfs_rq = next ? next->cfs_rq : bpf::CfsRqState{};
      arrive(r, s, true);
    }
  }

  uint64_t id_;
  int cpu_;
  std::unordered_map<uint64_t, EntityId>& ids_;
  bool seeded_ = false;
  std::map<EntityId, Said> said_;
  std::optional<EntityId> curr_;
  std::string text_;
  uint64_t events_ = 0;
};

trace::Header header_of(const KernelSetup& kernel, const RqTrace& rq) {
  trace::Header h;
  h.producer = "vlag kernel export --state (the kernel's own numbers, SPEC.md 6.4)";
  h.params = kernel.params;
  h.params.ncpus = 1;
  h.params.kernel_cpus = 0;
  h.params.base_slice_override_ns = static_cast<int64_t>(kernel.base_slice_ns);
  h.window = true;
  h.arith = Arith::Linux64;
  h.linux_source = true;
  h.runqueue = fmt::format("cpu{} cfs_rq {}", rq.cpu(), hex(rq.id()));
  return h;
}

const bpf::EntityState* at_rq(const bpf::TaskState& t, uint64_t rq) {
  for (const auto& e : t.chain)
    if (e.cfs_rq.id == rq) return &e;
  return nullptr;
}

}  // namespace

std::vector<ExportedTrace> export_state_traces(const StateCapture& capture) {
  const KernelSetup kernel(capture.kernel);
  if (!kernel.known) throw Error(capture.source + ": cannot export: " + kernel.unknown_why);
  std::unordered_map<uint64_t, EntityId> ids;
  std::vector<RqTrace> traces;
  std::unordered_map<uint64_t, size_t> by_id;
  const auto trace_of = [&](uint64_t rq) -> RqTrace* {
    const auto it = by_id.find(rq);
    return it == by_id.end() ? nullptr : &traces[it->second];
  };
  for (const StateRecord& r : capture.records) {
    if (r.tasks.empty() || !r.tasks[0].fair) continue;
    const bpf::TaskState& t = r.tasks[0];
    if (r.kind == RecordKind::Switch) {
      const bpf::TaskState& next = r.tasks[1];
      std::set<uint64_t> rqs;
      for (const auto& e : t.chain) rqs.insert(e.cfs_rq.id);
      if (next.fair)
        for (const auto& e : next.chain) rqs.insert(e.cfs_rq.id);
      for (const uint64_t rq : rqs) {
        const bpf::EntityState* p = at_rq(t, rq);
        const bpf::EntityState* n = next.fair ? at_rq(next, rq) : nullptr;
        const bpf::QueueSnapshot* q = nullptr;
        for (const auto& s : r.queues)
          if (s.cfs_rq == rq) q = &s;
        const bool picked_here = n && (!p || p->id != n->id) && n->cfs_rq.curr == n->id;
        RqTrace* trace = trace_of(rq);
        if (!trace && picked_here && q && !q->truncated && r.queues_complete) {
          by_id.emplace(rq, traces.size());
          traces.emplace_back(rq, StateModel::rq_of(r), ids);
          traces.back().seed(r, *q, *n, next.comm);
          continue;
        }
        if (trace) trace->at_switch(r, p, n, picked_here, q);
      }
    } else if (r.kind == RecordKind::Wakeup || r.kind == RecordKind::WakeupNew) {
      for (size_t level = 0; level < t.chain.size(); ++level)
        if (RqTrace* trace = trace_of(t.chain[level].cfs_rq.id))
          trace->at_wakeup(r, t.chain[level]);
    } else if (r.kind == RecordKind::Migrate) {
      for (const auto& e : t.chain)
        if (RqTrace* trace = trace_of(e.cfs_rq.id)) trace->at_migrate(r, e);
    }
  }
  std::vector<ExportedTrace> out;
  for (const RqTrace& rq : traces) {
    const trace::Header h = header_of(kernel, rq);
    out.push_back({fmt::format("cpu{}-cfs_rq-{:x}.jsonl", rq.cpu(), rq.id()), h.runqueue,
                   trace::header_line(h) + "\n" + rq.text(), rq.events()});
  }
  return out;
}

}  // namespace vlag::kernel::state
