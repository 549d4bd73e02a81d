#include "trace/reader.h"

#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <cstring>

#include "spec/cfs_policy.h"
#include "spec/weights.h"
#include "trace/keys.h"
#include "trace/plain_line.h"
#include "trace/small_exact.h"

namespace vlag::trace {
namespace {

namespace od = simdjson::ondemand;

// Which fields each event needs (spec/TRACE.md §3). `entity`: a task, or (v2) an entity `se`.
struct Needs {
  bool entity = false, delta = false, weight = false, slice = false, preempt = false, to = false;
};

Needs needs(EventKind k) {
  switch (k) {
    case EventKind::New:
    case EventKind::Attach:
      return {.entity = true, .weight = true, .slice = true};
    case EventKind::Exit:
    case EventKind::Wakeup:
    case EventKind::Sleep:
    case EventKind::Dequeue:
    case EventKind::Detach:
    case EventKind::Entity:
    case EventKind::Put:
      return {.entity = true};
    case EventKind::Run:
      return {.delta = true};
    case EventKind::Reweight:
      return {.entity = true, .weight = true};
    case EventKind::Slice:
      return {.entity = true, .slice = true};
    case EventKind::Preempt:
      return {.entity = true, .preempt = true};
    case EventKind::Migrate:
      return {.entity = true, .to = true};
    case EventKind::Pick:
    case EventKind::Tick:
    case EventKind::Yield:
    case EventKind::Runqueue:
      return {};
  }
  return {};
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  return s;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// "01", "-007": a leading zero, which JSON does not allow.
bool leading_zero(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return s.size() > 1 && s[0] == '0' && digit(s[1]);
}

// A number as RFC 8259 §6 writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? — no leading
// zero, no lone sign or point. simdjson's on-demand API reads "01" and "1." without a word.
bool json_number(std::string_view s) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && digit(s[i])) ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// A JSON number that is an integer: no fraction, no exponent.
bool integer_token(std::string_view s) {
  if (!json_number(s)) return false;
  for (char c : s)
    if (c == '.' || c == 'e' || c == 'E') return false;
  return true;
}

[[noreturn]] void fail_at(const Reader& r, Fault f, std::string field, std::string what) {
  throw InputError(f, r.name(), r.line(), std::move(field), std::move(what));
}

// One JSON value of the current line, read with the checks its field needs: a value simdjson
// found, or one of a plain line (trace/plain_line.h). A plain value of another type than the
// field's is a fault too, which the reader hands to simdjson to name (Reader::parse_event).
class FieldReader {
 public:
  FieldReader(const Reader& r, od::value v, std::string_view key) : r_(r), v_(v), key_(key) {}
  FieldReader(const Reader& r, const PlainValue& v, std::string_view key)
      : r_(r), plain_(&v), key_(key) {}

  // The plain line's integers and exact numbers of 64 bits, nearly every value of a trace, are
  // read where the field is (inline); any other value by the general readers below.
  [[gnu::always_inline]] int64_t integer(int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) {
    if (plain_ && plain_->small && *plain_->small >= lo && *plain_->small <= hi)
      return *plain_->small;
    return any_integer(lo, hi);
  }

  /// An exact number, read into the storage `into` already has.
  [[gnu::always_inline]] void exact(OptionalExact& into) {
    if (plain_ && plain_->small) {
      assign_s64(into.emplace(), *plain_->small);
      return;
    }
    any_exact(into);
  }

  std::string_view string() {
    if (plain_) return plain(PlainValue::Type::String);
    std::string_view s;
    if (v_.get_string().get(s)) bad(Fault::Malformed, "expected a string");
    return s;
  }

  bool boolean() {
    if (plain_) {
      if (plain_->type != PlainValue::Type::True && plain_->type != PlainValue::Type::False)
        bad(Fault::Malformed, "expected true or false");
      return plain_->type == PlainValue::Type::True;
    }
    bool b = false;
    if (v_.get_bool().get(b)) bad(Fault::Malformed, "expected true or false");
    return b;
  }

  bool is_null() {
    if (plain_) return plain_->type == PlainValue::Type::Null;
    bool null = false;
    if (v_.is_null().get(null)) bad(Fault::Malformed, "unreadable value");
    return null;
  }

  /// simdjson's value (a header's array); not for a plain value.
  od::value& raw() { return v_; }

  [[noreturn]] void bad(Fault f, std::string what) { fail_at(r_, f, std::string(key_), what); }

 private:
  int64_t any_integer(int64_t lo, int64_t hi) {
    const std::string_view tok = plain_ ? plain(PlainValue::Type::Integer) : raw_token();
    int64_t x = 0;
    if (plain_ && plain_->small) {
      x = *plain_->small;
    } else if (leading_zero(tok) || !parse_s64(tok, x)) {
      if (!integer_token(tok))
        bad(Fault::Malformed, (json_number(tok) || !leading_zero(tok) ? "expected an integer, got "
                                                                      : "not a JSON number: ") +
                                  std::string(tok));
      bad(Fault::Range, "number " + std::string(tok) + " does not fit in 64 bits");
    }
    if (x < lo || x > hi)
      bad(Fault::Range, "number " + std::to_string(x) + " outside [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]");
    return x;
  }

  void any_exact(OptionalExact& into) {
    // An integer of 64 bits, the most frequent exact number, without asking for its type.
    const bool plain_string = plain_ && plain_->type == PlainValue::Type::String;
    if (!plain_string) {
      const std::string_view raw = plain_ ? plain(PlainValue::Type::Integer) : raw_token();
      if (int64_t small = 0; !leading_zero(raw) && parse_s64(raw, small)) {
        assign_s64(into.emplace(), small);
        return;
      }
      if (plain_) bad(Fault::Range, "beyond 64 bits");  // simdjson's path reads it
    }
    od::json_type type = od::json_type::string;
    if (!plain_ && v_.type().get(type)) bad(Fault::Malformed, "unreadable value");
    if (type == od::json_type::string) {
      const std::string_view s = string();
      if (!parse_exact_into(s, into.emplace()))
        bad(Fault::Malformed,
            "expected an exact number \"p\" or \"p/q\", got \"" + std::string(s) + "\"");
      return;
    }
    if (type != od::json_type::number)
      bad(Fault::Malformed, "expected an integer or a \"p/q\" string");
    const std::string_view tok = raw_token();
    if (!json_number(tok)) bad(Fault::Malformed, "not a JSON number: " + std::string(tok));
    if (!parse_exact_into(tok, into.emplace()))
      bad(Fault::Malformed, "expected an exact number, got " + std::string(trim(tok)));
  }

  std::string_view raw_token() { return trim(v_.raw_json_token()); }
  // The plain value's text, when it is of type t.
  std::string_view plain(PlainValue::Type t) {
    if (plain_->type != t) bad(Fault::Malformed, "not of the field's type");
    return plain_->text;
  }

  const Reader& r_;
  od::value v_;
  const PlainValue* plain_ = nullptr;
  std::string_view key_;
};

// The key of a field as it stands in the line, when it has no escape to undo (every key a
// producer writes): simdjson then has no string to copy.
bool plain_key(simdjson::simdjson_result<od::field>& f, std::string_view& key) {
  od::raw_json_string raw;
  if (f.key().get(raw)) return false;
  const char* begin = raw.raw();
  for (const char* c = begin;; ++c) {
    if (*c == '"') {
      key = std::string_view(begin, static_cast<size_t>(c - begin));
      return true;
    }
    if (*c == '\\' || *c == '\0') return false;
  }
}

// Reads every part of a value no field reader asked for, so that a line is valid JSON as a
// whole (on demand, simdjson checks only what is read): numbers by RFC 8259's grammar, strings
// and their escapes, the literals, and objects without a key given twice, at any depth.
void validate(const Reader& r, od::value v, std::string_view field, int depth = 0);

// The keys of one object so far: a key given twice is an error, as the reader would otherwise
// keep one of the two values without a word. The keys of the format are told by one bit each,
// the others (which versions to come may add) by comparison.
class KeySet {
 public:
  void add(const Reader& r, std::string_view key, std::string_view field) {
    add(r, key, key_of(key), field);
  }
  /// The same with the key's Key, key_of(key).
  void add(const Reader& r, std::string_view key, Key k, std::string_view field) {
    const bool twice = k == Key::Other
                           ? std::find(others_.begin(), others_.end(), key) != others_.end()
                           : (known_ & bit(k)) != 0;
    if (twice)
      fail_at(r, Fault::Malformed, std::string(field.empty() ? key : field),
              "duplicate key \"" + std::string(key) + "\" (a JSON object names a key once)");
    if (k == Key::Other)
      others_.push_back(key);
    else
      known_ |= bit(k);
  }

 private:
  static uint64_t bit(Key k) { return uint64_t{1} << static_cast<unsigned>(k); }
  uint64_t known_ = 0;
  boost::container::small_vector<std::string_view, 8> others_;
};

void validate(const Reader& r, od::value v, std::string_view field, int depth) {
  const auto bad = [&](const std::string& what) {
    fail_at(r, Fault::Malformed, std::string(field), what);
  };
  if (depth > 64) bad("nested more than 64 deep");
  od::json_type type;
  if (v.type().get(type)) bad("unreadable value (is the line valid JSON?)");
  switch (type) {
    case od::json_type::number: {
      const std::string_view tok = trim(v.raw_json_token());
      if (!json_number(tok)) bad("not a JSON number: " + std::string(tok));
      return;
    }
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s)) bad("not a JSON string (a bad escape or a control character)");
      return;
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b)) bad("not a JSON literal: " + std::string(trim(v.raw_json_token())));
      return;
    }
    case od::json_type::null: {
      bool null = false;
      if (v.is_null().get(null) || !null)
        bad("not a JSON literal: " + std::string(trim(v.raw_json_token())));
      return;
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a)) bad("unreadable array (is the line valid JSON?)");
      for (auto item : a) {
        od::value x;
        if (item.get(x)) bad("unreadable array element (is the line valid JSON?)");
        validate(r, x, field, depth + 1);
      }
      return;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o)) bad("unreadable object (is the line valid JSON?)");
      KeySet keys;
      for (auto f : o) {
        std::string_view key;
        od::value x;
        if (f.unescaped_key().get(key) || f.value().get(x))
          bad("unreadable field (is the line valid JSON?)");
        keys.add(r, key, field);
        validate(r, x, field, depth + 1);
      }
      return;
    }
    default:
      bad("unreadable value (is the line valid JSON?)");
  }
}

// Calls visit(key, its Key, reader of its value) for each field of a line's object; visit returns
// whether it read the value, and one it did not read (an unknown field, which versions to come
// may add) is still validated.
template <class Visit>
void for_each_field(const Reader& r, od::object& obj, Visit&& visit) {
  KeySet keys;
  for (auto f : obj) {
    std::string_view key;
    od::value v;
    if (!plain_key(f, key) && f.unescaped_key().get(key))
      fail_at(r, Fault::Malformed, "", "unreadable field (is the line valid JSON?)");
    if (f.value().get(v))
      fail_at(r, Fault::Malformed, "", "unreadable field (is the line valid JSON?)");
    const Key k = key_of(key);
    keys.add(r, key, k, "");
    FieldReader fr(r, v, key);
    if (!visit(key, k, fr)) validate(r, v, key);
  }
}

// The same over a plain line's fields, which need no validation: a plain line is valid JSON.
template <class Visit>
void for_each_plain_field(const Reader& r, const PlainLine& line, Visit&& visit) {
  KeySet seen;
  for (size_t i = 0; i < line.size; ++i) {
    const PlainField& f = line.fields[i];
    const Key k = key_of(f.key);
    seen.add(r, f.key, k, "");
    FieldReader fr(r, f.value, f.key);
    visit(f.key, k, fr);
  }
}

// The fields version 2 adds (spec/TRACE.md §3, §4, §8); false for a field it does not know.
bool read_v2_field(Event& e, Key k, FieldReader& fr) {
  switch (k) {
    case Key::rq:
      e.rq = fr.integer();
      break;
    case Key::se:
      e.se = fr.integer();
      break;
    case Key::name:
      e.name = fr.string();
      break;
    case Key::group:
      e.group = fr.string();
      if (e.group.empty()) fr.bad(Fault::Malformed, "empty (the root task group is \"/\")");
      break;
    case Key::parent:
      e.parent = fr.integer();
      break;
    case Key::vprot:
      fr.exact(e.state.vprot);
      break;
    case Key::v0:
      fr.exact(e.kernel.v0);
      break;
    case Key::sum_w:
      e.kernel.sum_w = fr.integer(0);
      break;
    case Key::sum_wv:
      fr.exact(e.kernel.sum_wv);
      break;
    default:
      return false;
  }
  return true;
}

// What a v2 line's fields must say together.
void check_v2_fields(const Reader& r, const Event& e) {
  if (e.kind == EventKind::Runqueue) {
    if (e.se.has_value() != e.parent.has_value())
      fail_at(r, Fault::Malformed, e.se ? "parent" : "se",
              "missing: a group's runqueue names its group entity (se) and the runqueue that "
              "entity is queued on (parent), a CPU's root runqueue neither");
    if (e.parent == e.rq) fail_at(r, Fault::Malformed, "parent", "the runqueue's own id");
    return;
  }
  if (!e.group.empty() && ((e.kind != EventKind::New && e.kind != EventKind::Reweight) || e.task))
    fail_at(r, Fault::Malformed, "group",
            "only a group entity's \"new\" or \"reweight\" (an \"se\" without a \"task\") "
            "names a group");
  if (e.kind == EventKind::New && !e.task && e.group.empty())
    fail_at(r, Fault::Malformed, "group",
            "missing: a \"new\" without a task declares a group entity, of its task group");
  if (e.kernel.sum_wv && !e.kernel.v0)
    fail_at(r, Fault::Malformed, "v0", "missing: sum_wv is relative to it");
}

}  // namespace

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::Malformed:
      return "malformed";
    case Fault::UnknownEvent:
      return "unknown-event";
    case Fault::Range:
      return "range";
    case Fault::TimeBackwards:
      return "time-backwards";
    case Fault::NotRunnable:
      return "not-runnable";
    case Fault::TraceFault:
      return "trace-fault";
  }
  return "?";
}

Reader::Reader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {
  if (!read_line())
    throw InputError(Fault::Malformed, name_, std::max<int64_t>(line_, 1), "",
                     "empty input: the header line is missing");
  parse_header();
}

void Reader::fail(Fault f, std::string field, std::string what) const {
  fail_at(*this, f, std::move(field), std::move(what));
}

// The next line of the input without its '\n', from a buffer filled a megabyte at a time.
bool Reader::next_line(std::string_view& line) {
  for (;;) {
    const char* begin = buffer_.data() + begin_;
    if (const void* nl = std::memchr(begin, '\n', end_ - begin_)) {
      const size_t length = static_cast<const char*>(nl) - begin;
      line = std::string_view(begin, length);
      begin_ += length + 1;
      return true;
    }
    if (eof_) {
      if (begin_ == end_) return false;
      line = std::string_view(begin, end_ - begin_);  // a last line without its newline
      begin_ = end_;
      return true;
    }
    // Keep the partial line, make room (a line longer than the buffer doubles it), read on.
    std::memmove(buffer_.data(), begin, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    constexpr size_t kSlack = LineProgram::kSlack;
    if (buffer_.size() - kSlack - end_ < kReadSize)
      buffer_.resize(std::max(buffer_.size() * 2, end_ + kReadSize + kSlack));
    in_.read(buffer_.data() + end_, static_cast<std::streamsize>(buffer_.size() - kSlack - end_));
    end_ += static_cast<size_t>(in_.gcount());
    if (!in_) eof_ = true;
  }
}

// The next line that is not blank, as it stands in the input buffer.
bool Reader::read_line() {
  std::string_view line;
  do {
    if (!next_line(line)) return false;
    ++line_;
  } while (trim(line).empty());
  text_ = line;
  return true;
}

// The line into the padded buffer simdjson reads, its padding after it.
void Reader::pad_line() {
  padded_.resize(text_.size() + simdjson::SIMDJSON_PADDING, ' ');
  std::memcpy(padded_.data(), text_.data(), text_.size());
  std::memset(padded_.data() + text_.size(), ' ', simdjson::SIMDJSON_PADDING);
  text_ = std::string_view(padded_.data(), text_.size());
}

const Event* Reader::next_event() {
  if (!read_line()) return nullptr;
  parse_event();
  return &event_;
}

bool Reader::next(Event& e) {
  const Event* read = next_event();
  if (read) e = *read;
  return read != nullptr;
}

std::optional<Event> Reader::next() {
  const Event* read = next_event();
  return read ? std::optional<Event>(*read) : std::nullopt;
}

void Reader::parse_header() {
  pad_line();
  od::document doc;
  od::object obj;
  if (parser_.iterate(padded_.data(), text_.size(), padded_.size()).get(doc) ||
      doc.get_object().get(obj))
    fail(Fault::Malformed, "", "the header is not a JSON object");
  std::string preset_name;
  std::optional<std::vector<std::string>> features;
  int cpus = 1, hz = 250, kernel_cpus = 0;
  int64_t base_slice_override = 0;
  std::optional<int> cpu;
  std::optional<int64_t> tick, base_slice;
  bool format_ok = false, version_ok = false;
  for_each_field(*this, obj, [&](std::string_view key, Key, FieldReader& fr) {
    const std::string k(key);
    if (k == "format") {
      if (fr.string() != kFormatName)
        fail(Fault::Malformed, k, "not a vlag trace (expected \"vlag-trace\")");
      format_ok = true;
    } else if (k == "version") {
      const int64_t ver = fr.integer();
      if (ver < 1 || ver > kFormatVersion)
        fail(Fault::Malformed, k,
             "unsupported version " + std::to_string(ver) + " (this reader takes 1 and 2)");
      header_.version = static_cast<int>(ver);
      version_ok = true;
    } else if (k == "clock") {
      if (fr.string() != "ns") fail(Fault::Malformed, k, "the clock unit must be \"ns\"");
    } else if (k == "producer") {
      header_.producer = fr.string();
    } else if (k == "preset") {
      preset_name = fr.string();
    } else if (k == "features") {
      od::array arr;
      if (fr.raw().get_array().get(arr)) fail(Fault::Malformed, k, "expected an array of names");
      features.emplace();
      for (auto item : arr) {
        std::string_view s;
        if (item.get_string().get(s)) fail(Fault::Malformed, k, "expected feature names");
        features->emplace_back(s);
      }
    } else if (k == "cpus") {
      cpus = static_cast<int>(fr.integer(1, 4096));
    } else if (k == "kernel_cpus") {
      kernel_cpus = static_cast<int>(fr.integer(1, 4096));
    } else if (k == "base_slice_override_ns") {
      base_slice_override = fr.integer(kMinCustomSliceNs, kMaxCustomSliceNs);
    } else if (k == "hz") {
      hz = static_cast<int>(fr.integer(100, 1000));
    } else if (k == "tick_ns") {
      tick = fr.integer();
    } else if (k == "base_slice_ns") {
      base_slice = fr.integer();
    } else if (k == "window") {
      header_.window = fr.boolean();
    } else if (k == "cpu") {
      cpu = static_cast<int>(fr.integer(0, 4095));
    } else if (k == "kernel_reconstruction") {
      header_.kernel_reconstruction = fr.boolean();
    } else if (k == "source") {
      const std::string_view source = fr.string();
      if (source != "linux" && source != "model")
        fail(Fault::Malformed, k, "expected \"linux\" or \"model\"");
      header_.linux_source = source == "linux";
    } else if (k == "runqueue") {
      header_.runqueue = fr.string();
    } else if (k == "arith") {
      const auto a = arith_by_name(fr.string());
      if (!a) fail(Fault::Malformed, k, "expected \"exact\" or \"linux64\"");
      header_.arith = *a;
    } else {
      return false;
    }
    return true;
  });
  if (!format_ok) fail(Fault::Malformed, "format", "missing: the first line must be the header");
  if (!version_ok) fail(Fault::Malformed, "version", "missing");
  if (preset_name.empty()) fail(Fault::Malformed, "preset", "missing");
  Preset preset;
  try {
    preset = is_cfs_policy(preset_name) ? cfs_preset(preset_name) : preset_by_name(preset_name);
  } catch (const Error& e) {
    fail(Fault::Malformed, "preset", e.what());
  }
  if (features) {
    for (size_t i = 0; i < kFeatureCount; ++i) preset.set(static_cast<Feature>(i), false);
    for (const auto& name : *features) {
      try {
        apply_feature_overrides(preset, name);
      } catch (const Error& e) {
        fail(Fault::Malformed, "features", e.what());
      }
    }
  }
  header_.params = make_params(preset, hz, cpus);
  limits_ = {.ncpus = header_.params.ncpus,
             .max_r = is_cfs_policy(preset_name) ? kMaxCfsSliceNs : kMaxCustomSliceNs,
             .v2 = header_.version >= 2};
  set_base_slice_params(header_.params, kernel_cpus, base_slice_override);
  if (cpu && *cpu >= cpus)
    fail(Fault::Malformed, "cpu",
         std::to_string(*cpu) + " is not below cpus " + std::to_string(cpus));
  header_.cpu = cpu;
  if (tick && *tick != header_.params.tick_ns())
    fail(Fault::Malformed, "tick_ns",
         std::to_string(*tick) + " disagrees with hz " + std::to_string(hz));
  if (base_slice && *base_slice != header_.params.base_slice_ns())
    fail(Fault::Malformed, "base_slice_ns",
         std::to_string(*base_slice) + " is not the preset's base slice " +
             std::to_string(header_.params.base_slice_ns()));
}

// A line with the keys of a line read before by its program (trace/line_program.h); another
// plain line (trace/plain_line.h) without simdjson, its keys a program from then on; any other
// line, and a plain one with a fault, with simdjson, whose reading names the fault as it does for
// every line.
void Reader::parse_event() {
  Event& e = event_;
  FieldsSeen seen;
  if (programs_.read(text_, limits_, e, seen)) {
    try {
      check_event(e, seen);
      return;
    } catch (const InputError&) {
    }
  }
  programs_.forget();
  if (split_plain_line(text_, plain_)) {
    try {
      read_event(e, [&](auto&& visit) { for_each_plain_field(*this, plain_, visit); });
      programs_.learn(plain_);
      return;
    } catch (const InputError&) {
    }
  }
  pad_line();
  od::document doc;
  od::object obj;
  if (parser_.iterate(padded_.data(), text_.size(), padded_.size()).get(doc) ||
      doc.get_object().get(obj))
    fail(Fault::Malformed, "", "not a JSON object");
  read_event(e, [&](auto&& visit) { for_each_field(*this, obj, visit); });
}

template <class ForEachField>
void Reader::read_event(Event& e, ForEachField&& for_each_field) {
  e.clear();
  FieldsSeen seen;
  const int64_t ncpus = limits_.ncpus;
  const bool v2 = limits_.v2;  // version 1 ignores v2's fields, as its readers did
  for_each_field([&](std::string_view k, Key key, FieldReader& fr) {
    switch (key) {
      case Key::t:
        e.t = fr.integer(0);
        seen.t = true;
        break;
      case Key::ev: {
        const std::string_view name = fr.string();
        const auto kind = event_kind(name);
        if (!kind || (!v2 && (*kind == EventKind::Runqueue || *kind == EventKind::Put)))
          fail(Fault::UnknownEvent, std::string(k),
               "unknown event \"" + std::string(name) + "\"" +
                   (kind ? " (a version 2 event in a version 1 trace)" : ""));
        e.kind = *kind;
        seen.ev = true;
        break;
      }
      case Key::cpu:
        e.cpu = static_cast<int>(fr.integer(0, ncpus - 1));
        break;
      case Key::task:
        if (!fr.is_null()) e.task = fr.integer();
        break;
      case Key::delta:
        e.delta = fr.integer(0);
        seen.delta = true;
        break;
      case Key::weight:
        // null: unknown, for parameter inference (`vlag check --infer`, spec/TRACE.md §6)
        seen.weight_null = fr.is_null();
        e.weight = seen.weight_null ? 0 : fr.integer(kMinWeight, kMaxWeight);
        seen.weight = true;
        break;
      case Key::slice:
        e.slice = fr.integer(0, kMaxCustomSliceNs);
        seen.slice = true;
        break;
      case Key::preempt:
        e.preempt = fr.boolean();
        seen.preempt = true;
        break;
      case Key::to:
        e.to_cpu = static_cast<int>(fr.integer(0, ncpus - 1));
        seen.to = true;
        break;
      case Key::w:
        e.state.weight = fr.integer(kMinWeight, kMaxWeight);
        break;
      case Key::r:
        e.state.slice = fr.integer(0, limits_.max_r);
        break;
      case Key::v:
        fr.exact(e.state.vruntime);
        break;
      case Key::d:
        fr.exact(e.state.deadline);
        break;
      case Key::vlag:
        fr.exact(e.state.vlag);
        break;
      case Key::elig:
        e.state.eligible = fr.boolean();
        break;
      case Key::status: {
        const std::string_view st = fr.string();
        e.state.status = status_by_name(st);
        if (!e.state.status)
          fail(Fault::Malformed, std::string(k), "unknown status \"" + std::string(st) + "\"");
        break;
      }
      case Key::running:
        e.state.running = fr.boolean();
        break;
      case Key::req:
        fr.exact(e.state.request);
        break;
      case Key::V:
        fr.exact(e.V);
        break;
      case Key::W:
        e.W = fr.integer(0);
        break;
      case Key::nr:
        e.nr_queued = fr.integer(0);
        break;
      default:
        return v2 && read_v2_field(e, key, fr);
    }
    return true;
  });
  if (trim(text_).back() != '}')
    fail(Fault::Malformed, "", "trailing characters after the JSON object");
  check_event(e, seen);
}

// What an event's fields must say together, whichever reading read them.
void Reader::check_event(const Event& e, const FieldsSeen& seen) {
  if (!seen.ev) fail(Fault::Malformed, "ev", "missing");
  if (!seen.t) fail(Fault::Malformed, "t", "missing");
  const Needs n = needs(e.kind);
  const auto require = [&](bool need, bool has, const char* field) {
    if (need && !has)
      fail(Fault::Malformed, field,
           std::string("missing (required by \"") + std::string(event_name(e.kind)) + "\")");
  };
  require(n.entity, e.entity().has_value(), "task");
  if (limits_.v2) check_v2_fields(*this, e);
  require(n.delta, seen.delta, "delta");
  require(n.weight, seen.weight, "weight");
  require(n.slice, seen.slice, "slice");
  require(n.preempt, seen.preempt, "preempt");
  require(n.to, seen.to, "to");
  if (seen.weight_null && e.kind != EventKind::New)
    fail(Fault::Malformed, "weight", "null (unknown) is only allowed in \"new\"");
  if (e.kind == EventKind::Slice && e.slice != 0 && e.slice < kMinCustomSliceNs)
    fail(Fault::Range, "slice", "custom slice " + std::to_string(e.slice) + " below 100000 ns");
  if (e.t < last_t_)
    fail(Fault::TimeBackwards, "t",
         "time goes backwards: " + std::to_string(e.t) + " < " + std::to_string(last_t_));
  last_t_ = e.t;
}

}  // namespace vlag::trace
