// A red-black tree node whose subtree values (SPEC.md §7: min vruntime, min (deadline, seq), min
// slice) are kept up to date over Boost.Intrusive's rbtree_algorithms, which has no augmentation
// callbacks.
//
// How: the node traits handed to rbtree_algorithms record every node whose left or right child
// pointer is set (insertion links, rotations, the successor swap of an erase, the header's
// leftmost/rightmost) in a per-thread list of marked nodes. A node's subtree changes only if one
// of its child pointers changes or a descendant's subtree changes, so after each insert or erase
// the owner recomputes every marked node that is still linked and walks up from it, stopping
// where a recomputed value comes out unchanged (its ancestors then need nothing from that path;
// any other change below them has its own marked node and walk). Insert/erase touch O(1) nodes,
// so this costs O(log n). TreeQueue::check_augmentation recomputes every node from scratch and
// compares: the debug self-check the fuzzers and tests run.
#pragma once

#include <vector>

namespace vlag::optimized {

struct TreeNode {
  TreeNode* parent = nullptr;
  TreeNode* left = nullptr;
  TreeNode* right = nullptr;
  bool red = false;
  bool marked = false;  // in marked_nodes(), waiting for recomputation
};

/// Nodes whose children changed since the last recomputation, on this thread. A tree drains it
/// before its insert or erase returns, so it is empty between operations.
inline std::vector<TreeNode*>& marked_nodes() {
  thread_local std::vector<TreeNode*> nodes;
  return nodes;
}

/// NodeTraits for boost::intrusive::rbtree_algorithms that mark nodes whose children change.
struct MarkingNodeTraits {
  using node = TreeNode;
  using node_ptr = TreeNode*;
  using const_node_ptr = const TreeNode*;
  using color = bool;

  static node_ptr get_parent(const_node_ptr n) { return n->parent; }
  static void set_parent(node_ptr n, node_ptr p) { n->parent = p; }
  static node_ptr get_left(const_node_ptr n) { return n->left; }
  static void set_left(node_ptr n, node_ptr l) {
    n->left = l;
    mark(n);
  }
  static node_ptr get_right(const_node_ptr n) { return n->right; }
  static void set_right(node_ptr n, node_ptr r) {
    n->right = r;
    mark(n);
  }
  static color get_color(const_node_ptr n) { return n->red; }
  static void set_color(node_ptr n, color c) { n->red = c; }
  static color black() { return false; }
  static color red() { return true; }

 private:
  static void mark(node_ptr n) {
    if (n->marked) return;
    n->marked = true;
    marked_nodes().push_back(n);
  }
};

}  // namespace vlag::optimized
