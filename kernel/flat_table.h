// A table from a key to a T made on first use, for the lookups the kernel checks make several
// times per event (a task by pid, a verdict by ID and subject): an open-addressed index of 2^k
// slots probed linearly from a multiplicative hash, so a lookup is a multiply and a probe or two
// where std::unordered_map's is a division and a node. A slot holds its key and where its value
// is, so a lookup reads the slot and then the value, nothing between. The values sit in a deque
// in the order their keys were first met, so a reference to one stays valid while the table
// grows; nothing is ever erased.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace vlag::kernel {

/// Key → 64 bits whose high ones are well mixed (the table takes its slot from them).
template <class Key>
struct FlatHash;

template <>
struct FlatHash<int64_t> {
  uint64_t operator()(int64_t k) const { return static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull; }
};

template <class Key, class T, class Hash = FlatHash<Key>>
class FlatTable {
 public:
  FlatTable() = default;
  // A copy's slots point into its own values. A move keeps them (a deque's move takes its
  // elements where they are).
  FlatTable(const FlatTable& o) : keys_(o.keys_), values_(o.values_), bits_(o.bits_) { index(); }
  FlatTable& operator=(const FlatTable& o) {
    if (this != &o) {
      keys_ = o.keys_;
      values_ = o.values_;
      bits_ = o.bits_;
      index();
    }
    return *this;
  }
  FlatTable(FlatTable&&) = default;
  FlatTable& operator=(FlatTable&&) = default;

  /// The value of k, or nullptr when there is none.
  T* find(const Key& k) {
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t h = slot_of(k);; h = (h + 1) & mask) {
      const Slot& s = slots_[h];
      if (!s.value) return nullptr;
      if (s.key == k) return s.value;
    }
  }
  const T* find(const Key& k) const { return const_cast<FlatTable*>(this)->find(k); }
  /// The value of k, value-initialised when k is new.
  T& operator[](const Key& k) {
    if (2 * (keys_.size() + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t h = slot_of(k);; h = (h + 1) & mask) {
      Slot& s = slots_[h];
      if (!s.value) {
        keys_.push_back(k);
        s = {k, &values_.emplace_back()};
        return *s.value;
      }
      if (s.key == k) return *s.value;
    }
  }

  /// The entries in the order their keys were first met.
  size_t size() const { return keys_.size(); }
  const Key& key(size_t i) const { return keys_[i]; }
  const T& value(size_t i) const { return values_[i]; }
  T& value(size_t i) { return values_[i]; }

 private:
  size_t slot_of(const Key& k) const { return static_cast<size_t>(Hash()(k) >> (64 - bits_)); }
  void grow() {
    bits_ = slots_.empty() ? 8 : bits_ + 1;
    index();
  }
  // The slots made again for 2^bits_ (none for 0).
  void index() {
    slots_.assign(bits_ == 0 ? 0 : size_t{1} << bits_, Slot{});
    const size_t mask = slots_.size() - 1;
    for (size_t i = 0; i < keys_.size(); ++i) {
      size_t h = slot_of(keys_[i]);
      while (slots_[h].value) h = (h + 1) & mask;
      slots_[h] = {keys_[i], &values_[i]};
    }
  }

  struct Slot {
    Key key{};
    T* value = nullptr;  // nullptr: free
  };
  std::vector<Key> keys_;
  std::deque<T> values_;
  std::vector<Slot> slots_;
  int bits_ = 0;
};

}  // namespace vlag::kernel
