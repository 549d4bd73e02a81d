// An optional value whose storage outlives reset(): std::optional's interface, as far as events
// use it, for the exact numbers of trace::Event (spec/TRACE.md §4). A reader that reuses one
// Event for every line (trace/reader.h) then assigns each line's numbers into the GMP limbs the
// previous lines left, instead of allocating and freeing them at every field of every line.
#pragma once

#include <optional>
#include <utility>

namespace vlag::trace {

template <class T>
class RetainedOptional {
 public:
  RetainedOptional() = default;
  RetainedOptional(std::nullopt_t) {}                      // NOLINT: as std::optional converts
  RetainedOptional(const T& v) : value_(v), has_(true) {}  // NOLINT
  RetainedOptional(T&& v) : value_(std::move(v)), has_(true) {}        // NOLINT
  RetainedOptional(const std::optional<T>& v) : has_(v.has_value()) {  // NOLINT
    if (v) value_ = *v;
  }
  // A copy carries the value, not the storage a reset left behind.
  RetainedOptional(const RetainedOptional& o) : has_(o.has_) {
    if (o.has_) value_ = o.value_;
  }
  RetainedOptional(RetainedOptional&&) noexcept = default;
  // Assigning an empty one keeps this one's storage.
  RetainedOptional& operator=(const RetainedOptional& o) {
    if (o.has_)
      *this = *o;
    else
      reset();
    return *this;
  }
  RetainedOptional& operator=(RetainedOptional&& o) noexcept {
    if (!o.has_)
      reset();
    else if (value_)
      std::swap(*value_, *o.value_);
    else
      value_ = std::move(o.value_);
    has_ = o.has_;
    return *this;
  }

  RetainedOptional& operator=(const T& v) {
    if (value_)
      *value_ = v;
    else
      value_.emplace(v);
    has_ = true;
    return *this;
  }
  RetainedOptional& operator=(std::nullopt_t) {
    reset();
    return *this;
  }
  RetainedOptional& operator=(const std::optional<T>& v) {
    if (v)
      *this = *v;
    else
      reset();
    return *this;
  }
  /// The value to assign into in place: the storage of an earlier value, else a new one.
  T& emplace() {
    if (!value_) value_.emplace();
    has_ = true;
    return *value_;
  }
  void reset() { has_ = false; }

  bool has_value() const { return has_; }
  explicit operator bool() const { return has_; }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  T value_or(const T& other) const { return has_ ? *value_ : other; }
  operator std::optional<T>() const {  // NOLINT
    return has_ ? std::optional<T>(*value_) : std::nullopt;
  }

  friend bool operator==(const RetainedOptional& a, const RetainedOptional& b) {
    return a.has_ == b.has_ && (!a.has_ || *a == *b);
  }
  friend bool operator==(const RetainedOptional& a, const T& b) { return a.has_ && *a == b; }

 private:
  std::optional<T> value_;  // engaged once assigned, kept across reset()
  bool has_ = false;
};

}  // namespace vlag::trace
