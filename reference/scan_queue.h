// The reference's queue structure: entities in a flat vector, every tree quantity (SPEC.md §2)
// recomputed by an O(n) scan. The optimized runqueue replaces exactly this with an augmented
// red-black tree (optimized/tree_queue.h); the operations above it are the same code.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "reference/entity.h"
#include "spec/features.h"

namespace vlag::reference {

template <class ArithT>
class ScanQueue {
 public:
  using Arith = ArithT;
  using Num = typename Arith::Num;
  using Entity = BasicEntity<Num>;

  explicit ScanQueue(const Params&) {}

  Entity* find(EntityId id) {
    for (auto& e : entities_)
      if (e.id == id) return &e;
    return nullptr;
  }
  const Entity* find(EntityId id) const { return const_cast<ScanQueue*>(this)->find(id); }
  Entity& add(Entity e) { return entities_.emplace_back(std::move(e)); }
  void remove(EntityId id) {
    std::erase_if(entities_, [&](const Entity& x) { return x.id == id; });
  }
  const std::vector<Entity>& entities() const { return entities_; }
  template <class F>
  void for_each(F f) const {
    for (const auto& e : entities_) f(e);
  }

  void tree_insert(Entity& e) { e.on_tree = true; }
  void tree_erase(Entity& e) { e.on_tree = false; }

  /// The reference point v_0 of the keys: min_vruntime or zero_vruntime in Linux arithmetic
  /// (SPEC.md §7.1).
  const Num& v0() const { return v0_; }
  void rebase(const Num& v0) { v0_ = v0; }

  Sums<Arith> tree_sums() const {
    Sums<Arith> s;
    for (const auto& e : entities_) {
      if (!e.on_tree) continue;
      s.weighted_keys += Arith::weighted(e.vruntime - v0_, e.weight);
      s.load += e.weight;
    }
    return s;
  }

  std::optional<Num> tree_min_vruntime() const {
    std::optional<Num> m;
    for (const auto& e : entities_)
      if (e.on_tree && (!m || e.vruntime < *m)) m = e.vruntime;
    return m;
  }

  /// min r_i over the tree, 0 when empty.
  int64_t tree_min_slice() const {
    int64_t m = 0;
    for (const auto& e : entities_)
      if (e.on_tree && (m == 0 || e.slice < m)) m = e.slice;
    return m;
  }

  /// max r_i over the tree, 0 when empty (cfs_rq_max_slice without curr).
  int64_t tree_max_slice() const {
    int64_t m = 0;
    for (const auto& e : entities_)
      if (e.on_tree) m = std::max(m, e.slice);
    return m;
  }

  /// The tree entity with the least (d, seq) among those whose vruntime passes `eligible`.
  template <class Eligible>
  const Entity* earliest_eligible(Eligible eligible) const {
    const Entity* best = nullptr;
    for (const auto& e : entities_) {
      if (!e.on_tree || !eligible(e.vruntime)) continue;
      if (!best || e.deadline < best->deadline ||
          (e.deadline == best->deadline && e.seq < best->seq))
        best = &e;
    }
    return best;
  }

 private:
  std::vector<Entity> entities_;
  Num v0_ = Arith::origin();
};

}  // namespace vlag::reference
