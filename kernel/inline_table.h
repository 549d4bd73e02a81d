// A table from an int64_t key to a small T (a flag, a weight, a pointer) made on first use, for
// the sets a cfs_rq and a CPU look up several times per event (the members' nodes, the sleepers,
// the outsiders queued): like kernel/flat_table.h an open-addressed index of 2^k slots probed
// linearly from a multiplicative hash, but each value sits in its slot beside its key, so a
// lookup reads one line where the flat table reads the slot's and then the value's. The price:
// a value moves when the table grows, so a reference to one holds only until the next insertion.
// Nothing is ever erased.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel/flat_table.h"

namespace vlag::kernel {

template <class T>
class InlineTable {
 public:
  /// The value of k, or nullptr when there is none.
  T* find(int64_t k) {
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t h = slot_of(k);; h = (h + 1) & mask) {
      Slot& s = slots_[h];
      if (!s.used) return nullptr;
      if (s.key == k) return &s.value;
    }
  }
  const T* find(int64_t k) const { return const_cast<InlineTable*>(this)->find(k); }
  /// The value of k, value-initialised when k is new; valid until the next insertion.
  T& operator[](int64_t k) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t h = slot_of(k);; h = (h + 1) & mask) {
      Slot& s = slots_[h];
      if (!s.used) {
        s = {k, T{}, true};
        ++size_;
        return s.value;
      }
      if (s.key == k) return s.value;
    }
  }
  size_t size() const { return size_; }
  /// f(key, value) for every key, in no particular order.
  template <class F>
  void each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.used) f(s.key, s.value);
  }

 private:
  struct Slot {
    int64_t key = 0;
    T value{};
    bool used = false;
  };
  size_t slot_of(int64_t k) const {
    return static_cast<size_t>(FlatHash<int64_t>()(k) >> (64 - bits_));
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    bits_ = old.empty() ? 8 : bits_ + 1;
    slots_.assign(size_t{1} << bits_, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.used) {
        size_t h = slot_of(s.key);
        while (slots_[h].used) h = (h + 1) & mask;
        slots_[h] = s;
      }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  int bits_ = 0;
};

}  // namespace vlag::kernel
