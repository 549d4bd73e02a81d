// The optimized runqueue's queue structure: the tree Q \ {curr} as a Boost.Intrusive red-black
// tree with augmented subtree values (optimized/augmented_node.h), and Linux's running sums
// Σ w_i·(v_i − min_vruntime), Σ w_i over it, so that every quantity the operations of SPEC.md §4
// need costs O(1) or O(log n). Layouts (SPEC.md §5):
//   DeadlineSorted (6.8+): key (deadline, seq), pick by descending towards the leftmost subtree
//     whose min vruntime is eligible;
//   VruntimeSorted (6.6): key (vruntime, seq); eligible entities are a prefix, pick takes the
//     least (deadline, seq) over it from the min-deadline augmentation.
// Both also keep the min and max slice of each subtree (cfs_rq_min_slice for the protection of
// §4.5, cfs_rq_max_slice for the lag clamp of §4.7).
// Entities live in a hash map by id; the tree links them in place.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "optimized/augmented_node.h"
#include "reference/arith.h"
#include "reference/entity.h"
#include "spec/features.h"

namespace vlag::optimized {

struct TreeEntity : TreeNode, reference::BasicEntity<LinuxTime> {
  // Over the subtree rooted here; each layout keeps only the one of the first two it reads.
  LinuxTime min_vruntime;                    // least v (DeadlineSorted, 6.8+)
  const TreeEntity* min_deadline = nullptr;  // least (d, seq) (VruntimeSorted, 6.6)
  int64_t min_slice = 0;                     // least r (both)
  int64_t max_slice = 0;                     // largest r (both; the lag clamp of 6e3c0a4e1ad1)
};

class TreeQueue {
 public:
  using Arith = reference::LinuxArith;
  using Num = LinuxTime;
  using Entity = TreeEntity;

  explicit TreeQueue(const Params& params);
  TreeQueue(const TreeQueue&) = delete;
  TreeQueue& operator=(const TreeQueue&) = delete;

  Entity* find(EntityId id);
  const Entity* find(EntityId id) const;
  Entity& add(Entity e);
  void remove(EntityId id);
  template <class F>
  void for_each(F f) const {
    for (const auto& [id, e] : entities_) f(*e);
  }

  void tree_insert(Entity& e);
  void tree_erase(Entity& e);

  const Num& v0() const { return v0_; }
  /// Moves the reference point (min_vruntime or zero_vruntime) to v0 and the sums with it.
  void rebase(const Num& v0);

  reference::Sums<Arith> tree_sums() const { return {sum_, load_}; }
  std::optional<Num> tree_min_vruntime() const;
  int64_t tree_min_slice() const;
  int64_t tree_max_slice() const;

  template <class Eligible>
  const Entity* earliest_eligible(Eligible eligible) const {
    return layout_ == TreeLayout::DeadlineSorted ? pick_by_deadline(eligible)
                                                 : pick_by_vruntime(eligible);
  }

  /// Debug self-check: order, sums and every node's augmented values recomputed from scratch.
  /// Returns a description of the first discrepancy.
  std::optional<std::string> check_tree() const;

 private:
  static const Entity* node(const TreeNode* n) { return static_cast<const Entity*>(n); }
  const TreeNode* root() const { return header_.parent; }
  bool key_less(const Entity& a, const Entity& b) const;
  struct Augmented {
    LinuxTime min_vruntime;
    const Entity* min_deadline;
    int64_t min_slice;
    int64_t max_slice;
  };
  Augmented augmented_of(const Entity& e) const;
  bool recompute(Entity& e) const;
  void fix_augmentation();

  // 6.8+: go left while the left subtree holds an eligible entity, else take this node if
  // eligible, else go right (all left entities have earlier deadlines).
  template <class Eligible>
  const Entity* pick_by_deadline(Eligible eligible) const {
    const TreeNode* first = header_.left;
    if (first == &header_ || !root()) return nullptr;
    if (eligible(node(first)->vruntime)) return node(first);  // O(1) fast path
    for (const TreeNode* n = root(); n;) {
      if (n->left && eligible(node(n->left)->min_vruntime)) {
        n = n->left;
      } else if (eligible(node(n)->vruntime)) {
        return node(n);
      } else {
        n = n->right;
      }
    }
    return nullptr;
  }

  // 6.6: an eligible node makes its whole left subtree eligible (smaller vruntime): take the
  // best of it and of the node, then look right; an ineligible node sends us left.
  template <class Eligible>
  const Entity* pick_by_vruntime(Eligible eligible) const {
    const Entity* best = nullptr;
    for (const TreeNode* n = root(); n;) {
      if (eligible(node(n)->vruntime)) {
        best = earlier(best, node(n));
        if (n->left) best = earlier(best, node(n->left)->min_deadline);
        n = n->right;
      } else {
        n = n->left;
      }
    }
    return best;
  }

  static const Entity* earlier(const Entity* a, const Entity* b);

  TreeLayout layout_;
  TreeNode header_;
  std::unordered_map<EntityId, std::unique_ptr<Entity>> entities_;
  Entity* last_found_ = nullptr;  // the last entity find() returned
  Num v0_ = Arith::origin();
  Arith::Sum sum_ = 0;  // Σ w_i·(v_i − v0_) over the tree
  int64_t load_ = 0;    // Σ w_i over the tree
};

}  // namespace vlag::optimized
