#include "trace/event.h"

#include <array>
#include <charconv>
#include <utility>

namespace vlag::trace {
namespace {

// An operation's arguments as event fields.
enum class Field : uint8_t { None, Weight, Slice, Delta };

// The line vocabulary: each event's name and the operation of SPEC.md §4 it stands for (none for
// the lines that are not operations of one runqueue), with the flags and the fields its
// arguments a and b are written in. In EventKind's order.
struct EventRow {
  EventKind kind;
  std::string_view name;
  std::optional<OpKind> op;
  uint32_t flags = 0;
  Field a = Field::None, b = Field::None;
};

constexpr EventRow kEvents[] = {
    {EventKind::New, "new", OpKind::Create, 0, Field::Weight, Field::Slice},
    {EventKind::Exit, "exit", OpKind::Exit},
    {EventKind::Wakeup, "wakeup", OpKind::Enqueue},
    {EventKind::Sleep, "sleep", OpKind::Dequeue, kDequeueSleep},
    {EventKind::Dequeue, "dequeue", OpKind::Dequeue},
    {EventKind::Pick, "pick", OpKind::Pick},
    {EventKind::Run, "run", OpKind::Run, 0, Field::Delta},
    {EventKind::Tick, "tick", OpKind::Tick},
    {EventKind::Reweight, "reweight", OpKind::Reweight, 0, Field::Weight},
    {EventKind::Slice, "slice", OpKind::SetSlice, 0, Field::Slice},
    {EventKind::Yield, "yield", OpKind::Yield},
    {EventKind::Preempt, "preempt", OpKind::WakeupPreempt},
    {EventKind::Migrate, "migrate", std::nullopt},
    {EventKind::Detach, "detach", OpKind::Detach},
    {EventKind::Attach, "attach", OpKind::Attach, 0, Field::Weight, Field::Slice},
    {EventKind::Entity, "entity", std::nullopt},
    {EventKind::Runqueue, "runqueue", std::nullopt},
    {EventKind::Put, "put", OpKind::PutPrev},
};

constexpr bool in_kind_order() {
  for (size_t i = 0; i < std::size(kEvents); ++i)
    if (static_cast<size_t>(kEvents[i].kind) != i) return false;
  return true;
}
static_assert(in_kind_order(), "kEvents is indexed by EventKind");

const EventRow& row(EventKind kind) { return kEvents[static_cast<size_t>(kind)]; }

int64_t read_field(const Event& e, Field f) {
  switch (f) {
    case Field::Weight:
      return e.weight;
    case Field::Slice:
      return e.slice;
    case Field::Delta:
      return e.delta;
    case Field::None:
      break;
  }
  return 0;
}

void write_field(Event& e, Field f, int64_t x) {
  switch (f) {
    case Field::Weight:
      e.weight = x;
      return;
    case Field::Slice:
      e.slice = x;
      return;
    case Field::Delta:
      e.delta = x;
      return;
    case Field::None:
      return;
  }
}

constexpr std::array<std::pair<Status, std::string_view>, 3> kStatusNames = {{
    {Status::Sleeping, "sleeping"},
    {Status::Queued, "queued"},
    {Status::Delayed, "delayed"},
}};

bool is_decimal_integer(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty() || s.size() > 4096) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

template <class Key, size_t N>
std::string_view name_in(const std::array<std::pair<Key, std::string_view>, N>& table, Key key) {
  for (const auto& [k, name] : table)
    if (k == key) return name;
  return "?";
}

template <class Key, size_t N>
std::optional<Key> key_in(const std::array<std::pair<Key, std::string_view>, N>& table,
                          std::string_view name) {
  for (const auto& [k, n] : table)
    if (n == name) return k;
  return std::nullopt;
}

}  // namespace

std::string_view event_name(EventKind kind) { return row(kind).name; }

std::optional<EventKind> event_kind(std::string_view name) {
  for (const EventRow& r : kEvents)  // the first letter first: most rows differ there
    if (!name.empty() && r.name[0] == name[0] && r.name == name) return r.kind;
  return std::nullopt;
}
std::string_view status_name(Status s) { return name_in(kStatusNames, s); }
std::optional<Status> status_by_name(std::string_view name) { return key_in(kStatusNames, name); }

std::optional<Op> to_op(const Event& e) {
  const EventRow& r = row(e.kind);
  if (!r.op) return std::nullopt;
  const bool names_entity = *r.op != OpKind::Pick && *r.op != OpKind::Run &&
                            *r.op != OpKind::Tick && *r.op != OpKind::Yield;
  return Op{*r.op,
            names_entity ? e.entity().value_or(0) : 0,
            read_field(e, r.a),
            read_field(e, r.b),
            r.flags,
            e.rq};
}

// The rows with flags (sleep) stand before their operation's plain row.
EventKind event_kind_of(const Op& op) {
  for (const EventRow& r : kEvents)
    if (r.op == op.kind && (r.flags == 0 || (op.flags & r.flags) != 0)) return r.kind;
  return EventKind::Tick;  // unreachable: every OpKind has a row
}

void set_op_arguments(Event& e, const Op& op) {
  const EventRow& r = row(e.kind);
  write_field(e, r.a, op.a);
  write_field(e, r.b, op.b);
}

std::string exact_text(const Exact& x) { return x.get_str(); }

// Up to 18 digits cannot overflow: summed without a check. Longer ones go to from_chars.
bool parse_s64(std::string_view text, int64_t& into) {
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  if (digits.empty() || digits.size() > 18) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), into);
    return ec == std::errc() && end == text.data() + text.size();
  }
  uint64_t x = 0;
  for (const char c : digits) {
    const auto d = static_cast<unsigned char>(c - '0');
    if (d > 9) return false;
    x = x * 10 + d;
  }
  into = negative ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  return true;
}

// Most numbers are integers of 64 bits (every number of a Linux-arithmetic trace): read without
// GMP's string conversion.
bool parse_exact_into(std::string_view text, Exact& into) {
  const size_t slash = text.find('/');
  const std::string_view num = text.substr(0, slash);
  if (!is_decimal_integer(num)) return false;
  if (int64_t small = 0; slash == std::string_view::npos && parse_s64(num, small)) {
    into = static_cast<long>(small);
    return true;
  }
  const std::string_view den = slash == std::string_view::npos ? "1" : text.substr(slash + 1);
  if (!is_decimal_integer(den) || den.front() == '-') return false;
  mpz_class d(std::string(den), 10);  // base 10: "010" is ten, not octal
  if (d == 0) return false;
  into.get_num() = mpz_class(std::string(num), 10);
  into.get_den() = d;
  into.canonicalize();
  return true;
}

std::optional<Exact> parse_exact(std::string_view text) {
  Exact x;
  if (!parse_exact_into(text, x)) return std::nullopt;
  return x;
}

// Each field back to its default, the exact numbers' storage kept (RetainedOptional::reset);
// without the temporary Event and the moves of assigning a default one. A field added to Event
// is reset here too.
void Event::clear() {
  kind = EventKind::Tick;
  t = 0;
  cpu = 0;
  rq = 0;
  task.reset();
  se.reset();
  delta = weight = slice = 0;
  preempt = false;
  to_cpu = 0;
  name.clear();
  group.clear();
  parent.reset();
  state.weight.reset();
  state.slice.reset();
  state.vruntime.reset();
  state.deadline.reset();
  state.vlag.reset();
  state.eligible.reset();
  state.status.reset();
  state.running.reset();
  state.request.reset();
  state.vprot.reset();
  V.reset();
  W.reset();
  nr_queued.reset();
  kernel.v0.reset();
  kernel.sum_w.reset();
  kernel.sum_wv.reset();
}

}  // namespace vlag::trace
