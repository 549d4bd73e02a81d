#include "optimized/tree_queue.h"

#include <boost/intrusive/rbtree_algorithms.hpp>

#include "spec/error.h"

namespace vlag::optimized {
namespace {

using Algo = boost::intrusive::rbtree_algorithms<MarkingNodeTraits>;

}  // namespace

TreeQueue::TreeQueue(const Params& params) : layout_(params.preset.tree) {
  Algo::init_header(&header_);
  fix_augmentation();  // init_header marked the header: leave no pointer to it behind
}

// Operations look the same few entities up again and again (curr above all): one remembered
// hit saves most hash lookups. Entities never move (unique_ptr), so the pointer stays valid
// until remove().
TreeEntity* TreeQueue::find(EntityId id) {
  if (last_found_ && last_found_->id == id) return last_found_;
  const auto it = entities_.find(id);
  if (it == entities_.end()) return nullptr;
  return last_found_ = it->second.get();
}

const TreeEntity* TreeQueue::find(EntityId id) const {
  return const_cast<TreeQueue*>(this)->find(id);
}

TreeEntity& TreeQueue::add(Entity e) {
  auto owned = std::make_unique<Entity>(std::move(e));
  Entity& ref = *owned;
  entities_.emplace(ref.id, std::move(owned));
  return ref;
}

void TreeQueue::remove(EntityId id) {
  const auto it = entities_.find(id);
  if (it == entities_.end()) return;
  if (it->second->on_tree)
    throw Error("tree queue: task " + std::to_string(id) + " is removed while in the tree");
  if (last_found_ && last_found_->id == id) last_found_ = nullptr;
  entities_.erase(it);
}

// (deadline, seq) or (vruntime, seq): seq makes keys unique, so equal times keep insertion order
// exactly as Linux's rbtree does by inserting equal keys to the right.
bool TreeQueue::key_less(const Entity& a, const Entity& b) const {
  const LinuxTime ka = layout_ == TreeLayout::DeadlineSorted ? a.deadline : a.vruntime;
  const LinuxTime kb = layout_ == TreeLayout::DeadlineSorted ? b.deadline : b.vruntime;
  if (ka != kb) return ka < kb;
  return a.seq < b.seq;
}

const TreeEntity* TreeQueue::earlier(const Entity* a, const Entity* b) {
  if (!a) return b;
  if (!b) return a;
  if (a->deadline != b->deadline) return a->deadline < b->deadline ? a : b;
  return a->seq < b->seq ? a : b;
}

// The subtree values of e from its own and its children's. Only the augmentation the layout
// reads is kept: the other would change along the whole left spine at every erase of the
// leftmost node and cost a walk to the root.
TreeQueue::Augmented TreeQueue::augmented_of(const Entity& e) const {
  const bool by_deadline = layout_ == TreeLayout::DeadlineSorted;
  Augmented a{by_deadline ? e.vruntime : LinuxTime{}, by_deadline ? nullptr : &e, e.slice, e.slice};
  for (const TreeNode* c : {e.left, e.right}) {
    if (!c) continue;
    const Entity& child = *node(c);
    if (by_deadline && child.min_vruntime < a.min_vruntime) a.min_vruntime = child.min_vruntime;
    if (!by_deadline) a.min_deadline = earlier(a.min_deadline, child.min_deadline);
    if (child.min_slice < a.min_slice) a.min_slice = child.min_slice;
    if (child.max_slice > a.max_slice) a.max_slice = child.max_slice;
  }
  return a;
}

// Stores e's subtree values; whether anything changed.
bool TreeQueue::recompute(Entity& e) const {
  const Augmented a = augmented_of(e);
  const bool changed = a.min_vruntime != e.min_vruntime || a.min_deadline != e.min_deadline ||
                       a.min_slice != e.min_slice || a.max_slice != e.max_slice;
  e.min_vruntime = a.min_vruntime;
  e.min_deadline = a.min_deadline;
  e.min_slice = a.min_slice;
  e.max_slice = a.max_slice;
  return changed;
}

void TreeQueue::fix_augmentation() {
  auto& marked = marked_nodes();
  for (TreeNode* n : marked) n->marked = false;
  for (TreeNode* n : marked) {
    if (n == &header_ || !n->parent) continue;  // the header, or a node just unlinked
    for (TreeNode* x = n; x != &header_ && recompute(static_cast<Entity&>(*x)); x = x->parent) {
    }
  }
  marked.clear();
}

void TreeQueue::tree_insert(Entity& e) {
  if (e.on_tree) throw Error("tree queue: task " + std::to_string(e.id) + " is in the tree");
  const Augmented leaf = augmented_of(e);
  e.min_vruntime = leaf.min_vruntime;
  e.min_deadline = leaf.min_deadline;
  e.min_slice = leaf.min_slice;
  e.max_slice = leaf.max_slice;
  Algo::insert_equal_upper_bound(&header_, &e, [this](const TreeNode* a, const TreeNode* b) {
    return key_less(*node(a), *node(b));
  });
  fix_augmentation();
  e.on_tree = true;
  sum_ += Arith::weighted(e.vruntime - v0_, e.weight);
  load_ += e.weight;
}

void TreeQueue::tree_erase(Entity& e) {
  if (!e.on_tree) throw Error("tree queue: task " + std::to_string(e.id) + " is not in the tree");
  Algo::erase(&header_, &e);
  Algo::init(&e);
  fix_augmentation();
  e.on_tree = false;
  sum_ -= Arith::weighted(e.vruntime - v0_, e.weight);
  load_ -= e.weight;
}

void TreeQueue::rebase(const Num& v0) {
  sum_ -= Arith::Sum{load_} * (v0 - v0_).value();
  v0_ = v0;
}

std::optional<LinuxTime> TreeQueue::tree_min_vruntime() const {
  if (!root()) return std::nullopt;
  // 6.6 reads the leftmost of its vruntime-sorted tree; 6.8+ the root's augmented value.
  if (layout_ == TreeLayout::VruntimeSorted) return node(header_.left)->vruntime;
  return node(root())->min_vruntime;
}

int64_t TreeQueue::tree_min_slice() const { return root() ? node(root())->min_slice : 0; }
int64_t TreeQueue::tree_max_slice() const { return root() ? node(root())->max_slice : 0; }

std::optional<std::string> TreeQueue::check_tree() const {
  std::optional<std::string> problem;
  Arith::Sum sum = 0;
  int64_t load = 0;
  size_t count = 0;
  // Recomputes n's subtree bottom-up into a scratch entity and compares with the stored values.
  const auto check = [&](const auto& self, const TreeNode* n) -> void {
    if (!n || problem) return;
    self(self, n->left);
    self(self, n->right);
    const Entity& e = *node(n);
    ++count;
    sum += Arith::weighted(e.vruntime - v0_, e.weight);
    load += e.weight;
    if (!e.on_tree) problem = "task " + std::to_string(e.id) + " is linked but not on_tree";
    if (n->left && !key_less(*node(n->left), e))
      problem = "order: left child of task " + std::to_string(e.id) + " does not sort before it";
    if (n->right && !key_less(e, *node(n->right)))
      problem = "order: right child of task " + std::to_string(e.id) + " does not sort after it";
    const Augmented fresh = augmented_of(e);
    if (fresh.min_vruntime != e.min_vruntime || fresh.min_deadline != e.min_deadline ||
        fresh.min_slice != e.min_slice || fresh.max_slice != e.max_slice)
      problem = "augmented values of task " + std::to_string(e.id) + " are stale: min_vruntime " +
                e.min_vruntime.get_str() + " (recomputed " + fresh.min_vruntime.get_str() +
                "), min_slice " + std::to_string(e.min_slice) + " (recomputed " +
                std::to_string(fresh.min_slice) + "), max_slice " + std::to_string(e.max_slice) +
                " (recomputed " + std::to_string(fresh.max_slice) + ")";
  };
  check(check, root());
  if (problem) return problem;
  size_t on_tree = 0;
  for (const auto& [id, e] : entities_) on_tree += e->on_tree;
  if (count != on_tree)
    return std::to_string(count) + " linked nodes but " + std::to_string(on_tree) + " on_tree";
  if (sum != sum_ || load != load_)
    return "running sums drifted: load " + std::to_string(load_) + " (recomputed " +
           std::to_string(load) + ")";
  return std::nullopt;
}

}  // namespace vlag::optimized
