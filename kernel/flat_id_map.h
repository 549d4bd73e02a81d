// A map from an id (a pid, a group entity's id) to T, iterated in ascending id order as
// std::map is, but held as a sorted vector of pointers to its entries: a cfs_rq's checks walk
// all its entities on every event, and a walk of a vector is a run of independent loads where
// a tree's is a chain of dependent ones. Entries keep their addresses until erased. The ids sit
// in a vector of their own beside the pointers, so a lookup searches contiguous keys; an erased
// entry's node is kept for the next insertion, which a busy cfs_rq makes at every wakeup. The
// nodes are owned apart from the sorted pointers, which are plain: an insertion or erasure in a
// cfs_rq of hundreds shifts them as one memmove, not as unique_ptrs moved one by one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/inline_table.h"

namespace vlag::kernel {

template <class T>
class FlatIdMap {
 public:
  using value_type = std::pair<const int64_t, T>;

 private:
  using Slots = std::vector<value_type*>;

  template <class Base, class Value>
  class Iter {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = FlatIdMap::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = Value*;
    using reference = Value&;
    Iter() = default;
    explicit Iter(Base at) : at_(at) {}
    template <class B, class V>
    Iter(const Iter<B, V>& o) : at_(o.base()) {}  // iterator → const_iterator
    reference operator*() const { return **at_; }
    pointer operator->() const { return *at_; }
    Iter& operator++() {
      ++at_;
      return *this;
    }
    Iter operator++(int) { return Iter(at_++); }
    bool operator==(const Iter& o) const { return at_ == o.at_; }
    bool operator!=(const Iter& o) const { return at_ != o.at_; }
    Base base() const { return at_; }

   private:
    Base at_{};
  };

 public:
  using iterator = Iter<typename Slots::iterator, value_type>;
  using const_iterator = Iter<typename Slots::const_iterator, const value_type>;

  iterator begin() { return iterator(slots_.begin()); }
  iterator end() { return iterator(slots_.end()); }
  const_iterator begin() const { return const_iterator(slots_.begin()); }
  const_iterator end() const { return const_iterator(slots_.end()); }
  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }

  iterator find(int64_t id) {
    const size_t at = lower(id);
    return at < ids_.size() && ids_[at] == id
               ? iterator(slots_.begin() + static_cast<std::ptrdiff_t>(at))
               : end();
  }
  const_iterator find(int64_t id) const {
    return const_iterator(const_cast<FlatIdMap*>(this)->find(id).base());
  }
  /// The value of id, or nullptr: found by a hash of the id, not by find()'s search, which in a
  /// cfs_rq of hundreds of members is a chain of branches no predictor follows.
  T* get(int64_t id) {
    value_type* const* node = where_.find(id);
    return node && *node ? &(*node)->second : nullptr;
  }
  const T* get(int64_t id) const { return const_cast<FlatIdMap*>(this)->get(id); }
  size_t count(int64_t id) const { return get(id) ? 1 : 0; }
  T& at(int64_t id) {
    T* const value = get(id);
    if (!value) throw std::out_of_range("FlatIdMap::at");
    return *value;
  }
  const T& at(int64_t id) const { return const_cast<FlatIdMap*>(this)->at(id); }
  T& operator[](int64_t id) {
    const size_t at = lower(id);
    if (at < ids_.size() && ids_[at] == id) return slots_[at]->second;
    value_type* node;
    if (spare_.empty()) {
      node = owned_
                 .emplace_back(std::make_unique<value_type>(
                     std::piecewise_construct, std::forward_as_tuple(id), std::forward_as_tuple()))
                 .get();
    } else {
      node = spare_.back();
      spare_.pop_back();
      std::destroy_at(node);
      std::construct_at(node, std::piecewise_construct, std::forward_as_tuple(id),
                        std::forward_as_tuple());
    }
    ids_.insert(ids_.begin() + static_cast<std::ptrdiff_t>(at), id);
    where_[id] = node;
    return (*slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(at), node))->second;
  }
  iterator erase(iterator it) {
    const auto at = it.base() - slots_.begin();
    spare_.push_back(*(slots_.begin() + at));
    *where_.find(ids_[static_cast<size_t>(at)]) = nullptr;
    ids_.erase(ids_.begin() + at);
    return iterator(slots_.erase(slots_.begin() + at));
  }

 private:
  // std::lower_bound's answer, by a search whose step is a conditional move, not a branch: the
  // ids a cfs_rq looks up follow no pattern a branch predictor learns.
  size_t lower(int64_t id) const {
    if (ids_.empty()) return 0;
    const int64_t* base = ids_.data();
    for (size_t n = ids_.size(); n > 1; n -= n / 2) base = base[n / 2] < id ? base + n / 2 : base;
    return static_cast<size_t>(base - ids_.data()) + (*base < id);
  }

  Slots slots_;                                     // in ascending id order
  std::vector<int64_t> ids_;                        // slots_'s ids, in its order
  Slots spare_;                                     // erased entries' nodes, to be reused
  std::vector<std::unique_ptr<value_type>> owned_;  // every node made, member or spare
  // Every id that was ever an entry: its node while it is one, else nullptr. It grows with the
  // distinct ids (a cfs_rq's tasks and groups), not with insertions.
  InlineTable<value_type*> where_;
};

}  // namespace vlag::kernel
