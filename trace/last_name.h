// The last name looked up in a table of names (an event's, a status's) and what it named: a
// trace's lines mostly repeat the event and status of the line before, so the table is asked only
// when the name changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "trace/plain_scan.h"

namespace vlag::trace {

template <class T>
class LastName {
 public:
  /// What `n` names: by_name(n), asked only when n is not the last name. The 16 bytes from n's
  /// first must be readable (a name in a line with 16 bytes after its end, trace/line_program.h):
  /// a name is compared as two words (one of more than 16 bytes, which names nothing the format
  /// knows, is not kept).
  template <class ByName>
  std::optional<T> find(std::string_view n, ByName&& by_name) {
    using namespace plain_scan;
    if (n.size() > 16) return by_name(n);
    const uint64_t a = load8(n.data()) & first_bytes(n.size());
    const uint64_t b = n.size() > 8 ? load8(n.data() + 8) & first_bytes(n.size() - 8) : 0;
    if (!known_ || n.size() != size_ || a != words_[0] || b != words_[1]) {
      value_ = by_name(n);
      size_ = n.size();
      words_[0] = a;
      words_[1] = b;
      known_ = true;
    }
    return value_;
  }

 private:
  bool known_ = false;
  size_t size_ = 0;
  uint64_t words_[2] = {0, 0};  // the name's bytes, zeros after them
  std::optional<T> value_;
};

}  // namespace vlag::trace
