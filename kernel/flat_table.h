// A table from a key to a T made on first use, for the lookups the kernel checks make several
// times per event (a task by pid, a verdict by ID and subject): an open-addressed index of 2^k
// slots probed linearly from a multiplicative hash, so a lookup is a multiply and a probe or two
// where std::unordered_map's is a division and a node. The values sit in a deque in the order
// their keys were first met, so a reference to one stays valid while the table grows; nothing
// is ever erased.
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
  /// The value of k, or nullptr when there is none.
  T* find(const Key& k) {
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t h = slot_of(k);; h = (h + 1) & mask) {
      const uint32_t at = slots_[h];
      if (at == 0) return nullptr;
      if (keys_[at - 1] == k) return &values_[at - 1];
    }
  }
  const T* find(const Key& k) const { return const_cast<FlatTable*>(this)->find(k); }
  /// The value of k, value-initialised when k is new.
  T& operator[](const Key& k) {
    if (2 * (keys_.size() + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t h = slot_of(k);; h = (h + 1) & mask) {
      const uint32_t at = slots_[h];
      if (at == 0) {
        keys_.push_back(k);
        values_.emplace_back();
        slots_[h] = static_cast<uint32_t>(keys_.size());
        return values_.back();
      }
      if (keys_[at - 1] == k) return values_[at - 1];
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
    slots_.assign(size_t{1} << bits_, 0);
    const size_t mask = slots_.size() - 1;
    for (uint32_t at = 1; at <= keys_.size(); ++at) {
      size_t h = slot_of(keys_[at - 1]);
      while (slots_[h] != 0) h = (h + 1) & mask;
      slots_[h] = at;
    }
  }

  std::vector<Key> keys_;
  std::deque<T> values_;
  std::vector<uint32_t> slots_;  // 1 + the index of a key, or 0: free
  int bits_ = 0;
};

}  // namespace vlag::kernel
