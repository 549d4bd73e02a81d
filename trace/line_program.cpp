#include "trace/line_program.h"

#include <algorithm>
#include <cstring>

#include "spec/weights.h"
#include "trace/plain_scan.h"
#include "trace/small_exact.h"

namespace vlag::trace {
namespace {

using namespace plain_scan;

// The readers of a value at q, before the line's end `end`, with kSlack readable bytes after the
// line: each loads whole words, ignores what lies past the line's end, and returns the position
// past the value when it is one it takes (never past `end`), nullptr otherwise. Inlined into the
// program's reading, so that its position stays in a register.

// The digits of an integer after its first eight (up to ten more: 18 in all), x their value so
// far: the position past them; nullptr when there are more, or they run past the line's end.
[[gnu::noinline]] const char* more_digits(const char* q, const char* end, uint64_t& x) {
  for (int words = 0; words < 2; ++words) {
    const uint64_t w = load8(q);
    const unsigned n = leading_digits(w);
    if (n == 0) return q;
    if (q + n > end || (words == 1 && n > 2)) return nullptr;
    x = x * kPow10[n] + digits_value(w, n);
    q += n;
    if (n < 8) return q;
  }
  return nullptr;
}

// -?(0|[1-9][0-9]*) of at most 18 digits, so an s64. A valid line has a ',' or '}' after it, so
// digits that reach the line's end are not taken.
[[gnu::always_inline]] inline const char* scan_integer(const char* q, const char* end,
                                                       int64_t& out) {
  const bool negative = *q == '-';
  q += negative;
  const char* const first = q;
  const uint64_t w = load8(q);
  const unsigned n = leading_digits(w);
  if (n == 0 || q + n > end) return nullptr;
  uint64_t x = digits_value(w, n);
  q += n;
  if (n == 8 && !(q = more_digits(q, end, x))) return nullptr;
  if (*first == '0' && q - first > 1) return nullptr;
  out = negative ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  return q;
}

// A string of plain characters (trace/plain_scan.h) between quotes: its characters.
[[gnu::always_inline]] inline const char* scan_string(const char* q, const char* end,
                                                      std::string_view& s) {
  if (*q != '"') return nullptr;
  const char* c = q + 1;
  for (;;) {
    if (c >= end) return nullptr;
    if (const uint64_t stop = not_plain(load8(c))) {
      c += std::countr_zero(stop) / 8;
      break;
    }
    c += 8;
  }
  if (c >= end || *c != '"') return nullptr;
  s = std::string_view(q + 1, static_cast<size_t>(c - q - 1));
  return c + 1;
}

// A literal's bytes as the first bytes of a word.
constexpr uint64_t word_of(std::string_view w) {
  uint64_t x = 0;
  for (size_t k = 0; k < w.size(); ++k) x |= uint64_t{static_cast<unsigned char>(w[k])} << (8 * k);
  return x;
}

constexpr uint64_t kTrue = word_of("true"), kFalse = word_of("false"), kNull = word_of("null");

// The literal whose `size` bytes are `word`.
[[gnu::always_inline]] inline const char* scan_literal(const char* q, const char* end,
                                                       uint64_t word, size_t size) {
  if (end - q < static_cast<ptrdiff_t>(size) || (load8(q) & first_bytes(size)) != word)
    return nullptr;
  return q + size;
}

[[gnu::always_inline]] inline const char* scan_boolean(const char* q, const char* end, bool& b) {
  b = *q == 't';
  return b ? scan_literal(q, end, kTrue, 4) : scan_literal(q, end, kFalse, 5);
}

[[gnu::always_inline]] inline const char* scan_null(const char* q, const char* end) {
  return scan_literal(q, end, kNull, 4);
}

// An exact number "p" or "p/q" in a string (exact traces).
[[gnu::noinline]] const char* scan_exact_string(const char* q, const char* end,
                                                OptionalExact& into) {
  std::string_view s;
  q = scan_string(q, end, s);
  return q && parse_exact_into(s, into.emplace()) ? q : nullptr;
}

// An exact number: an integer of at most 18 digits, or a string.
[[gnu::always_inline]] inline const char* scan_exact(const char* q, const char* end,
                                                     OptionalExact& into) {
  if (*q == '"') return scan_exact_string(q, end, into);
  int64_t x = 0;
  if (!(q = scan_integer(q, end, x))) return nullptr;
  assign_s64(into.emplace(), x);
  return q;
}

// An integer of [lo, hi] into `into` (an integer or an optional one).
template <class T>
[[gnu::always_inline]] inline const char* scan_integer_in(const char* q, const char* end,
                                                          int64_t lo, int64_t hi, T& into) {
  int64_t x = 0;
  if (!(q = scan_integer(q, end, x)) || x < lo || x > hi) return nullptr;
  into = static_cast<int64_t>(x);
  return q;
}

template <class T>
[[gnu::always_inline]] inline const char* scan_flag(const char* q, const char* end, T& into) {
  bool b = false;
  if (!(q = scan_boolean(q, end, b))) return nullptr;
  into = b;
  return q;
}

// A value of a field the reader does not read (one versions to come may add, or a version 2
// field in a version 1 trace): any plain value.
[[gnu::noinline]] const char* skip(const char* q, const char* end) {
  std::string_view s;
  bool b = false;
  int64_t x = 0;
  switch (*q) {
    case '"':
      return scan_string(q, end, s);
    case 't':
    case 'f':
      return scan_boolean(q, end, b);
    case 'n':
      return scan_null(q, end);
    default:
      return scan_integer(q, end, x);
  }
}

}  // namespace

LineProgram::LineProgram(const PlainLine& line) {
  for (size_t n = 0; n < line.size; ++n) {
    const std::string_view key = line.fields[n].key;
    Field f;
    f.key = key_of(key);
    f.from = text_.size();
    f.size = key.size() + 3;
    text_ += '"';
    text_ += key;
    text_ += "\":";
    fields_.push_back(f);
    switch (f.key) {
      case Key::t:
        keys_seen_.t = true;
        break;
      case Key::ev:
        keys_seen_.ev = true;
        break;
      case Key::delta:
        keys_seen_.delta = true;
        break;
      case Key::weight:
        keys_seen_.weight = true;
        break;
      case Key::slice:
        keys_seen_.slice = true;
        break;
      case Key::preempt:
        keys_seen_.preempt = true;
        break;
      case Key::to:
        keys_seen_.to = true;
        break;
      default:
        break;
    }
  }
  for (Field& f : fields_) {
    if (f.size > 16) continue;
    char bytes[16] = {};
    std::memcpy(bytes, text_.data() + f.from, f.size);
    f.words = {load8(bytes), load8(bytes + 8)};
    f.masks = {first_bytes(f.size), f.size > 8 ? first_bytes(f.size - 8) : 0};
  }
}

bool LineProgram::has_keys_of(const PlainLine& line) const {
  if (line.size != fields_.size()) return false;
  for (size_t n = 0; n < line.size; ++n) {
    const Field& f = fields_[n];
    if (std::string_view(text_).substr(f.from + 1, f.size - 3) != line.fields[n].key) return false;
  }
  return true;
}

// The field's `"key":` at q.
[[gnu::always_inline]] inline bool LineProgram::key_at(const Field& f, const char* q,
                                                       const char* end) const {
  if (end - q < static_cast<ptrdiff_t>(f.size)) return false;
  if (f.size <= 16)
    return ((load8(q) ^ f.words[0]) & f.masks[0]) == 0 &&
           ((load8(q + 8) ^ f.words[1]) & f.masks[1]) == 0;
  return std::memcmp(q, text_.data() + f.from, f.size) == 0;
}

// The field's segment of the line before at q, whole (its key, value and the ',' or '}' after).
[[gnu::always_inline]] inline bool LineProgram::same_segment(const Field& f, const char* q,
                                                             const char* end) {
  const Segment& s = f.last;
  return s.size != 0 && end - q >= static_cast<ptrdiff_t>(s.size) &&
         (((load8(q) ^ s.words[0]) & s.masks[0]) | ((load8(q + 8) ^ s.words[1]) & s.masks[1]) |
          ((load8(q + 16) ^ s.words[2]) & s.masks[2])) == 0;
}

// The segment [from, to) as the field's segment of the line before the next, when it has at most
// kSegment bytes.
[[gnu::always_inline]] inline void LineProgram::remember(Field& f, const char* from,
                                                         const char* to) {
  Segment& s = f.last;
  const size_t size = static_cast<size_t>(to - from);
  if (size > kSegment) {
    s.size = 0;
    return;
  }
  s.size = static_cast<uint8_t>(size);
  for (size_t w = 0; w < 3; ++w) {
    s.masks[w] = first_bytes(size > 8 * w ? size - 8 * w : 0);
    s.words[w] = load8(from + 8 * w) & s.masks[w];
  }
}

// Each line into the event as the general reading reads it (Reader::read_event), into the same
// fields with the same ranges; where that reading would fail, this one gives the line back. When
// the event holds this program's reading of the line before, a field whose segment is that line's
// is left as it stands: most of a trace's fields repeat from line to line (a run's weight, slice,
// deadline, status, W, nr).
bool LineProgram::read(std::string_view line, const FieldLimits& limits, Event& e,
                       bool holds_last) {
  const char* q = line.data();
  const char* const end = q + line.size();
  if (line.empty() || *q != '{') return false;
  ++q;
  if (!holds_last) {
    e.clear();
    seen_ = keys_seen_;
    for (Field& f : fields_) f.last.size = 0;
  }
  for (Field& f : fields_) {
    if (same_segment(f, q, end)) {
      q += f.last.size;
      continue;
    }
    const char* const from = q;
    if (!key_at(f, q, end)) return false;
    q = read_value(f.key, q + f.size, end, limits, e);
    if (!q || q >= end || *q != (&f == &fields_.back() ? '}' : ',')) return false;
    remember(f, from, ++q);
  }
  return q == end;
}

// The value of a field with key `key` at q into the event: the position past it, or nullptr.
const char* LineProgram::read_value(Key key, const char* q, const char* end,
                                    const FieldLimits& limits, Event& e) {
  constexpr int64_t kAny = INT64_MAX, kAll = INT64_MIN;
  std::string_view s;
  switch (key) {
    case Key::t:
      return scan_integer_in(q, end, 0, kAny, e.t);
    case Key::ev:
      if ((q = scan_string(q, end, s))) {
        const auto kind = last_event_.find(s, event_kind);
        if (!kind || (!limits.v2 && (*kind == EventKind::Runqueue || *kind == EventKind::Put)))
          return nullptr;
        e.kind = *kind;
      }
      return q;
    case Key::cpu:
      return scan_integer_in(q, end, 0, limits.ncpus - 1, e.cpu);
    case Key::task:
      if (const char* null = scan_null(q, end)) {
        e.task.reset();
        return null;
      }
      return scan_integer_in(q, end, kAll, kAny, e.task);
    case Key::delta:
      return scan_integer_in(q, end, 0, kAny, e.delta);
    case Key::weight:
      seen_.weight_null = false;
      if (const char* null = scan_null(q, end)) {
        seen_.weight_null = true;
        e.weight = 0;
        return null;
      }
      return scan_integer_in(q, end, kMinWeight, kMaxWeight, e.weight);
    case Key::slice:
      return scan_integer_in(q, end, 0, kMaxCustomSliceNs, e.slice);
    case Key::preempt:
      return scan_flag(q, end, e.preempt);
    case Key::to:
      return scan_integer_in(q, end, 0, limits.ncpus - 1, e.to_cpu);
    case Key::w:
      return scan_integer_in(q, end, kMinWeight, kMaxWeight, e.state.weight);
    case Key::r:
      return scan_integer_in(q, end, 0, limits.max_r, e.state.slice);
    case Key::v:
      return scan_exact(q, end, e.state.vruntime);
    case Key::d:
      return scan_exact(q, end, e.state.deadline);
    case Key::vlag:
      return scan_exact(q, end, e.state.vlag);
    case Key::elig:
      return scan_flag(q, end, e.state.eligible);
    case Key::status:
      if ((q = scan_string(q, end, s))) {
        e.state.status = last_status_.find(s, status_by_name);
        if (!e.state.status) return nullptr;
      }
      return q;
    case Key::running:
      return scan_flag(q, end, e.state.running);
    case Key::req:
      return scan_exact(q, end, e.state.request);
    case Key::V:
      return scan_exact(q, end, e.V);
    case Key::W:
      return scan_integer_in(q, end, 0, kAny, e.W);
    case Key::nr:
      return scan_integer_in(q, end, 0, kAny, e.nr_queued);
    default:
      return limits.v2 ? read_v2_value(key, q, end, e) : skip(q, end);
  }
}

// The fields version 2 adds, and any other, out of the loop of the frequent ones.
const char* LineProgram::read_v2_value(Key key, const char* q, const char* end, Event& e) {
  constexpr int64_t kAny = INT64_MAX, kAll = INT64_MIN;
  std::string_view s;
  switch (key) {
    case Key::rq:
      return scan_integer_in(q, end, kAll, kAny, e.rq);
    case Key::se:
      return scan_integer_in(q, end, kAll, kAny, e.se);
    case Key::name:
      if ((q = scan_string(q, end, s))) e.name.assign(s);
      return q;
    case Key::group:
      if (!(q = scan_string(q, end, s)) || s.empty()) return nullptr;
      e.group.assign(s);
      return q;
    case Key::parent:
      return scan_integer_in(q, end, kAll, kAny, e.parent);
    case Key::vprot:
      return scan_exact(q, end, e.state.vprot);
    case Key::v0:
      return scan_exact(q, end, e.kernel.v0);
    case Key::sum_w:
      return scan_integer_in(q, end, 0, kAny, e.kernel.sum_w);
    case Key::sum_wv:
      return scan_exact(q, end, e.kernel.sum_wv);
    default:
      return skip(q, end);
  }
}

bool LinePrograms::read(std::string_view line, const FieldLimits& limits, Event& e,
                        FieldsSeen& seen) {
  for (size_t n = 0; n < programs_.size(); ++n) {
    // The first program filled the event last, if any did; once it fails, none holds it.
    LineProgram& p = programs_[n];
    if (!p.read(line, limits, e, filled_)) {
      filled_ = false;  // the event holds part of the line
      continue;
    }
    seen = p.seen();
    if (n > 0)
      std::rotate(programs_.begin(), programs_.begin() + static_cast<ptrdiff_t>(n),
                  programs_.begin() + static_cast<ptrdiff_t>(n) + 1);
    filled_ = true;
    return true;
  }
  return false;
}

void LinePrograms::learn(const PlainLine& line) {
  filled_ = false;  // the general reading filled the event
  const auto known = std::find_if(programs_.begin(), programs_.end(),
                                  [&](const LineProgram& p) { return p.has_keys_of(line); });
  if (known != programs_.end()) {
    std::rotate(programs_.begin(), known, known + 1);
    return;
  }
  if (programs_.size() == kPrograms) programs_.pop_back();
  programs_.insert(programs_.begin(), LineProgram(line));
}

}  // namespace vlag::trace
