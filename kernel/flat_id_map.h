// A map from an id (a pid, a group entity's id) to T, iterated in ascending id order as
// std::map is, but held as a sorted vector of pointers to its entries: a cfs_rq's checks walk
// all its entities on every event, and a walk of a vector is a run of independent loads where
// a tree's is a chain of dependent ones. Entries keep their addresses until erased.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace vlag::kernel {

template <class T>
class FlatIdMap {
 public:
  using value_type = std::pair<const int64_t, T>;

 private:
  using Slots = std::vector<std::unique_ptr<value_type>>;

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
    pointer operator->() const { return at_->get(); }
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
    const auto at = lower(id);
    return at != slots_.end() && (*at)->first == id ? iterator(at) : end();
  }
  const_iterator find(int64_t id) const {
    return const_iterator(const_cast<FlatIdMap*>(this)->find(id).base());
  }
  size_t count(int64_t id) const { return find(id) != end() ? 1 : 0; }
  T& at(int64_t id) {
    const auto it = find(id);
    if (it == end()) throw std::out_of_range("FlatIdMap::at");
    return it->second;
  }
  const T& at(int64_t id) const { return const_cast<FlatIdMap*>(this)->at(id); }
  T& operator[](int64_t id) {
    const auto at = lower(id);
    if (at != slots_.end() && (*at)->first == id) return (*at)->second;
    return (*slots_.insert(at, std::make_unique<value_type>(id, T{})))->second;
  }
  iterator erase(iterator it) { return iterator(slots_.erase(it.base())); }

 private:
  typename Slots::iterator lower(int64_t id) {
    return std::lower_bound(
        slots_.begin(), slots_.end(), id,
        [](const std::unique_ptr<value_type>& e, int64_t x) { return e->first < x; });
  }

  Slots slots_;
};

}  // namespace vlag::kernel
