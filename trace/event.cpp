#include "trace/event.h"

#include <array>
#include <utility>

namespace vlag::trace {
namespace {

constexpr std::array<std::pair<EventKind, std::string_view>, 16> kEventNames = {{
    {EventKind::New, "new"},
    {EventKind::Exit, "exit"},
    {EventKind::Wakeup, "wakeup"},
    {EventKind::Sleep, "sleep"},
    {EventKind::Dequeue, "dequeue"},
    {EventKind::Pick, "pick"},
    {EventKind::Run, "run"},
    {EventKind::Tick, "tick"},
    {EventKind::Reweight, "reweight"},
    {EventKind::Slice, "slice"},
    {EventKind::Yield, "yield"},
    {EventKind::Preempt, "preempt"},
    {EventKind::Migrate, "migrate"},
    {EventKind::Entity, "entity"},
    {EventKind::Detach, "detach"},
    {EventKind::Attach, "attach"},
}};

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

std::string_view event_name(EventKind kind) { return name_in(kEventNames, kind); }
std::optional<EventKind> event_kind(std::string_view name) { return key_in(kEventNames, name); }
std::string_view status_name(Status s) { return name_in(kStatusNames, s); }
std::optional<Status> status_by_name(std::string_view name) { return key_in(kStatusNames, name); }

std::optional<Op> to_op(const Event& e) {
  const TaskId id = e.task.value_or(0);
  switch (e.kind) {
    case EventKind::New:
      return Op{OpKind::Create, id, e.weight, e.slice};
    case EventKind::Exit:
      return Op{OpKind::Exit, id};
    case EventKind::Wakeup:
      return Op{OpKind::Enqueue, id};
    case EventKind::Sleep:
      return Op{OpKind::Dequeue, id, 0, 0, kDequeueSleep};
    case EventKind::Dequeue:
      return Op{OpKind::Dequeue, id};
    case EventKind::Pick:
      return Op{OpKind::Pick};
    case EventKind::Run:
      return Op{OpKind::Run, 0, e.delta};
    case EventKind::Tick:
      return Op{OpKind::Tick};
    case EventKind::Reweight:
      return Op{OpKind::Reweight, id, e.weight};
    case EventKind::Slice:
      return Op{OpKind::SetSlice, id, e.slice};
    case EventKind::Yield:
      return Op{OpKind::Yield};
    case EventKind::Preempt:
      return Op{OpKind::WakeupPreempt, id};
    case EventKind::Detach:
      return Op{OpKind::Detach, id};
    case EventKind::Attach:
      return Op{OpKind::Attach, id, e.weight, e.slice};
    case EventKind::Migrate:
    case EventKind::Entity:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string exact_text(const Exact& x) { return x.get_str(); }

std::optional<Exact> parse_exact(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string_view num = text.substr(0, slash);
  if (!is_decimal_integer(num)) return std::nullopt;
  Exact x;
  x.get_num() = mpz_class(std::string(num), 10);  // base 10: "010" is ten, not octal
  if (slash == std::string_view::npos) return x;
  const std::string_view den = text.substr(slash + 1);
  if (!is_decimal_integer(den) || den.front() == '-') return std::nullopt;
  x.get_den() = mpz_class(std::string(den), 10);
  if (x.get_den() == 0) return std::nullopt;
  x.canonicalize();
  return x;
}

}  // namespace vlag::trace
