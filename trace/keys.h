// The keys of an event line (spec/TRACE.md §3, §4, §8) as one enumeration, so that a reader
// tells a line's fields apart by one switch each rather than by a chain of string comparisons.
#pragma once

#include <cstdint>
#include <string_view>

namespace vlag::trace {

// clang-format off
enum class Key : uint8_t {
  Other, t, ev, cpu, task, delta, weight, slice, preempt, to, w, r, v, d, vlag, elig, status,
  running, req, V, W, nr,
  rq, se, name, group, parent, vprot, v0, sum_w, sum_wv,  // version 2
};
// clang-format on

/// The Key of a key as it stands in a line; Key::Other for one the format does not know (which
/// versions to come may add).
Key key_of(std::string_view k);

}  // namespace vlag::trace
