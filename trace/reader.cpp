#include "trace/reader.h"

#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <charconv>

#include "spec/cfs_policy.h"
#include "spec/weights.h"

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

// One JSON value of the current line, read with the checks its field needs.
class FieldReader {
 public:
  FieldReader(const Reader& r, od::value v, std::string_view key) : r_(r), v_(v), key_(key) {}

  int64_t integer(int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) {
    const std::string_view tok = trim(v_.raw_json_token());
    if (!integer_token(tok))
      bad(Fault::Malformed, (json_number(tok) || !leading_zero(tok) ? "expected an integer, got "
                                                                    : "not a JSON number: ") +
                                std::string(tok));
    int64_t x = 0;
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), x);
    if (ec != std::errc() || end != tok.data() + tok.size())
      bad(Fault::Range, "number " + std::string(tok) + " does not fit in 64 bits");
    if (x < lo || x > hi)
      bad(Fault::Range, "number " + std::to_string(x) + " outside [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]");
    return x;
  }

  Exact exact() {
    od::json_type type;
    if (v_.type().get(type)) bad(Fault::Malformed, "unreadable value");
    if (type == od::json_type::string) {
      const std::string_view s = string();
      auto x = parse_exact(s);
      if (!x)
        bad(Fault::Malformed,
            "expected an exact number \"p\" or \"p/q\", got \"" + std::string(s) + "\"");
      return *x;
    }
    if (type != od::json_type::number)
      bad(Fault::Malformed, "expected an integer or a \"p/q\" string");
    const std::string_view tok = trim(v_.raw_json_token());
    if (!json_number(tok)) bad(Fault::Malformed, "not a JSON number: " + std::string(tok));
    auto x = parse_exact(tok);
    if (!x) bad(Fault::Malformed, "expected an exact number, got " + std::string(tok));
    return *x;
  }

  std::string_view string() {
    std::string_view s;
    if (v_.get_string().get(s)) bad(Fault::Malformed, "expected a string");
    return s;
  }

  bool boolean() {
    bool b = false;
    if (v_.get_bool().get(b)) bad(Fault::Malformed, "expected true or false");
    return b;
  }

  bool is_null() {
    bool null = false;
    if (v_.is_null().get(null)) bad(Fault::Malformed, "unreadable value");
    return null;
  }

  od::value& raw() { return v_; }

  [[noreturn]] void bad(Fault f, std::string what) { fail_at(r_, f, std::string(key_), what); }

 private:
  const Reader& r_;
  od::value v_;
  std::string_view key_;
};

// Reads every part of a value no field reader asked for, so that a line is valid JSON as a
// whole (on demand, simdjson checks only what is read): numbers by RFC 8259's grammar, strings
// and their escapes, the literals, and objects without a key given twice, at any depth.
void validate(const Reader& r, od::value v, std::string_view field, int depth = 0);

// The keys of one object so far: a key given twice is an error, as the reader would otherwise
// keep one of the two values without a word.
class KeySet {
 public:
  void add(const Reader& r, std::string_view key, std::string_view field) {
    for (const std::string_view k : keys_)
      if (k == key)
        fail_at(r, Fault::Malformed, std::string(field.empty() ? key : field),
                "duplicate key \"" + std::string(key) + "\" (a JSON object names a key once)");
    keys_.push_back(key);
  }

 private:
  boost::container::small_vector<std::string_view, 24> keys_;
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

// Calls visit(key, reader of its value) for each field of a line's object; visit returns
// whether it read the value, and one it did not read (an unknown field, which versions to come
// may add) is still validated.
template <class Visit>
void for_each_field(const Reader& r, od::object& obj, Visit&& visit) {
  KeySet keys;
  for (auto f : obj) {
    std::string_view key;
    od::value v;
    if (f.unescaped_key().get(key) || f.value().get(v))
      fail_at(r, Fault::Malformed, "", "unreadable field (is the line valid JSON?)");
    keys.add(r, key, "");
    const std::string k(key);
    FieldReader fr(r, v, k);
    if (!visit(k, fr)) validate(r, v, k);
  }
}

// The fields version 2 adds (spec/TRACE.md §3, §4, §8); false for a field it does not know.
bool read_v2_field(Event& e, const std::string& k, FieldReader& fr) {
  if (k == "rq") {
    e.rq = fr.integer();
  } else if (k == "se") {
    e.se = fr.integer();
  } else if (k == "name") {
    e.name = fr.string();
  } else if (k == "group") {
    e.group = fr.string();
    if (e.group.empty()) fr.bad(Fault::Malformed, "empty (the root task group is \"/\")");
  } else if (k == "parent") {
    e.parent = fr.integer();
  } else if (k == "vprot") {
    e.state.vprot = fr.exact();
  } else if (k == "v0") {
    e.kernel.v0 = fr.exact();
  } else if (k == "sum_w") {
    e.kernel.sum_w = fr.integer(0);
  } else if (k == "sum_wv") {
    e.kernel.sum_wv = fr.exact();
  } else {
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
  if (!e.group.empty() && (e.kind != EventKind::New || e.task))
    fail_at(r, Fault::Malformed, "group",
            "only a group entity's \"new\" (an \"se\" without a \"task\") names a group");
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

bool Reader::read_line() {
  do {
    if (!std::getline(in_, text_)) return false;
    ++line_;
  } while (trim(text_).empty());
  padded_.assign(text_);
  padded_.resize(text_.size() + simdjson::SIMDJSON_PADDING, ' ');
  return true;
}

std::optional<Event> Reader::next() {
  if (!read_line()) return std::nullopt;
  return parse_event();
}

void Reader::parse_header() {
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
  for_each_field(*this, obj, [&](const std::string& k, FieldReader& fr) {
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

Event Reader::parse_event() {
  od::document doc;
  od::object obj;
  if (parser_.iterate(padded_.data(), text_.size(), padded_.size()).get(doc) ||
      doc.get_object().get(obj))
    fail(Fault::Malformed, "", "not a JSON object");
  Event e;
  bool has_t = false, has_ev = false, has_delta = false, has_weight = false, has_slice = false,
       has_preempt = false, has_to = false, weight_null = false;
  const int64_t ncpus = header_.params.ncpus;
  const bool v2 = header_.version >= 2;  // version 1 ignores v2's fields, as its readers did
  for_each_field(*this, obj, [&](const std::string& k, FieldReader& fr) {
    if (k == "t") {
      e.t = fr.integer(0);
      has_t = true;
    } else if (k == "ev") {
      const std::string_view name = fr.string();
      const auto kind = event_kind(name);
      if (!kind || (!v2 && *kind == EventKind::Runqueue))
        fail(Fault::UnknownEvent, k,
             "unknown event \"" + std::string(name) + "\"" +
                 (kind ? " (a version 2 event in a version 1 trace)" : ""));
      e.kind = *kind;
      has_ev = true;
    } else if (k == "cpu") {
      e.cpu = static_cast<int>(fr.integer(0, ncpus - 1));
    } else if (k == "task") {
      if (!fr.is_null()) e.task = fr.integer();
    } else if (k == "delta") {
      e.delta = fr.integer(0);
      has_delta = true;
    } else if (k == "weight") {
      // null: unknown, for parameter inference (`vlag check --infer`, spec/TRACE.md §6)
      weight_null = fr.is_null();
      e.weight = weight_null ? 0 : fr.integer(kMinWeight, kMaxWeight);
      has_weight = true;
    } else if (k == "slice") {
      e.slice = fr.integer(0, kMaxCustomSliceNs);
      has_slice = true;
    } else if (k == "preempt") {
      e.preempt = fr.boolean();
      has_preempt = true;
    } else if (k == "to") {
      e.to_cpu = static_cast<int>(fr.integer(0, ncpus - 1));
      has_to = true;
    } else if (k == "w") {
      e.state.weight = fr.integer(kMinWeight, kMaxWeight);
    } else if (k == "r") {
      e.state.slice = fr.integer(0, kMaxCustomSliceNs);
    } else if (k == "v") {
      e.state.vruntime = fr.exact();
    } else if (k == "d") {
      e.state.deadline = fr.exact();
    } else if (k == "vlag") {
      e.state.vlag = fr.exact();
    } else if (k == "elig") {
      e.state.eligible = fr.boolean();
    } else if (k == "status") {
      const std::string_view s = fr.string();
      e.state.status = status_by_name(s);
      if (!e.state.status) fail(Fault::Malformed, k, "unknown status \"" + std::string(s) + "\"");
    } else if (k == "running") {
      e.state.running = fr.boolean();
    } else if (k == "req") {
      e.state.request = fr.exact();
    } else if (k == "V") {
      e.V = fr.exact();
    } else if (k == "W") {
      e.W = fr.integer(0);
    } else if (k == "nr") {
      e.nr_queued = fr.integer(0);
    } else {
      return v2 && read_v2_field(e, k, fr);
    }
    return true;
  });
  if (trim(text_).back() != '}')
    fail(Fault::Malformed, "", "trailing characters after the JSON object");
  if (!has_ev) fail(Fault::Malformed, "ev", "missing");
  if (!has_t) fail(Fault::Malformed, "t", "missing");
  const Needs n = needs(e.kind);
  const auto require = [&](bool need, bool has, const char* field) {
    if (need && !has)
      fail(Fault::Malformed, field,
           std::string("missing (required by \"") + std::string(event_name(e.kind)) + "\")");
  };
  require(n.entity, e.entity().has_value(), "task");
  if (v2) check_v2_fields(*this, e);
  require(n.delta, has_delta, "delta");
  require(n.weight, has_weight, "weight");
  require(n.slice, has_slice, "slice");
  require(n.preempt, has_preempt, "preempt");
  require(n.to, has_to, "to");
  if (weight_null && e.kind != EventKind::New)
    fail(Fault::Malformed, "weight", "null (unknown) is only allowed in \"new\"");
  if (e.kind == EventKind::Slice && e.slice != 0 && e.slice < kMinCustomSliceNs)
    fail(Fault::Range, "slice", "custom slice " + std::to_string(e.slice) + " below 100000 ns");
  if (e.t < last_t_)
    fail(Fault::TimeBackwards, "t",
         "time goes backwards: " + std::to_string(e.t) + " < " + std::to_string(last_t_));
  last_t_ = e.t;
  return e;
}

}  // namespace vlag::trace
