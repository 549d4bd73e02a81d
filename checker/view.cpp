#include "checker/view.h"

namespace vlag::checker {

ViewEntity* View::find(TaskId id) {
  auto it = entities_.find(id);
  return it == entities_.end() ? nullptr : &it->second;
}

const ViewEntity* View::find(TaskId id) const {
  auto it = entities_.find(id);
  return it == entities_.end() ? nullptr : &it->second;
}

int64_t View::W() const {
  int64_t w = 0;
  for (const auto& [id, e] : entities_)
    if (in_queue(e)) w += e.weight;
  return w;
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
  for (const auto& [id, e] : entities_) {
    if (!in_queue(e) || !eligible(e, V)) continue;
    const bool is_curr = curr == id;
    if (!best || e.deadline < best->deadline ||
        (e.deadline == best->deadline && curr == best->id && !is_curr))
      best = &e;
  }
  return best;
}

}  // namespace vlag::checker
