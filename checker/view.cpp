#include "checker/view.h"

namespace vlag::checker {

std::string entity_label(const ViewEntity& e) {
  return (e.task == e.id ? "task " : "entity ") + std::to_string(e.id);
}

ViewEntity* View::find(EntityId id) {
  auto it = entities_.find(id);
  return it == entities_.end() ? nullptr : &it->second;
}

const ViewEntity* View::find(EntityId id) const {
  auto it = entities_.find(id);
  return it == entities_.end() ? nullptr : &it->second;
}

int64_t View::W() const {
  int64_t w = 0;
  for (const auto& [id, e] : entities_)
    if (in_queue(e)) w += e.weight;
  return w;
}

int64_t View::max_slice() const {
  int64_t m = 0;
  for (const auto& [id, e] : entities_)
    if (in_queue(e)) m = std::max(m, e.slice);
  return m;
}

Exact View::V() const {
  Exact sum = 0;
  int64_t w = 0;
  for (const auto& [id, e] : entities_) {
    if (!in_queue(e)) continue;
    sum += e.vruntime * static_cast<long>(e.weight);
    w += e.weight;
  }
  if (w == 0) return 0;
  Exact v = sum / Exact(static_cast<long>(w));
  v.canonicalize();
  return v;
}

const ViewEntity* View::earliest_eligible_deadline(const Exact& V) const {
  const ViewEntity* best = nullptr;
  for (const auto& [id, e] : entities_)
    if (in_queue(e) && eligible(e, V) && (!best || precedes(e, *best))) best = &e;
  return best;
}

std::vector<trace::Event> View::snapshot(int64_t now, RunqueueId rq) const {
  std::vector<trace::Event> out;
  for (const auto& [id, v] : entities_) {
    trace::Event e;
    e.kind = trace::EventKind::Entity;
    e.t = now;
    e.rq = rq;
    e.task = v.task;
    if (v.task != id) e.se = id;
    e.state.weight = v.weight;
    e.state.slice = v.slice;
    e.state.vruntime = v.vruntime;
    e.state.deadline = v.deadline;
    e.state.vlag = v.vlag;
    e.state.status = v.status;
    e.state.running = curr == id;
    e.state.request = v.request;
    out.push_back(e);
  }
  return out;
}

}  // namespace vlag::checker
