#include "kernel/tracepoint_decoder.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstring>
#include <string_view>
#include <utility>

#include "kernel/command_output.h"
#include "kernel/perf_script.h"
#include "kernel/text_fields.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

// The text parser's limits (kernel/perf_script.cpp), so a value it refuses is refused here too.
constexpr int64_t kPidMax = 4'194'304;
constexpr int64_t kCpuMax = 8191;

using Slot = TracepointDecoder::Slot;

struct Spec {
  const char* field;  // in the format
  const char* key;    // as printed
  Slot slot;
};

struct KindSpecs {
  std::string_view name;
  KernelEventKind kind;
  std::vector<Spec> specs;  // in print order
};

const std::array<KindSpecs, 8>& kinds() {
  static const std::vector<Spec> wakeup = {{"comm", "comm", Slot::Comm},
                                           {"pid", "pid", Slot::Pid},
                                           {"prio", "prio", Slot::Prio},
                                           {"target_cpu", "target_cpu", Slot::TargetCpu}};
  static const std::array<KindSpecs, 8> t = {{
      {"sched_switch",
       KernelEventKind::Switch,
       {{"prev_comm", "prev_comm", Slot::PrevComm},
        {"prev_pid", "prev_pid", Slot::PrevPid},
        {"prev_prio", "prev_prio", Slot::PrevPrio},
        {"prev_state", "prev_state", Slot::PrevState},
        {"next_comm", "next_comm", Slot::Comm},
        {"next_pid", "next_pid", Slot::Pid},
        {"next_prio", "next_prio", Slot::Prio}}},
      {"sched_wakeup", KernelEventKind::Wakeup, wakeup},
      {"sched_wakeup_new", KernelEventKind::WakeupNew, wakeup},
      {"sched_waking", KernelEventKind::Waking, wakeup},
      {"sched_migrate_task",
       KernelEventKind::Migrate,
       {{"comm", "comm", Slot::Comm},
        {"pid", "pid", Slot::Pid},
        {"prio", "prio", Slot::Prio},
        {"orig_cpu", "orig_cpu", Slot::OrigCpu},
        {"dest_cpu", "dest_cpu", Slot::DestCpu}}},
      {"sched_process_exit",
       KernelEventKind::Exit,
       {{"comm", "comm", Slot::Comm}, {"pid", "pid", Slot::Pid}, {"prio", "prio", Slot::Prio}}},
      // Its print format names the parent's fields comm and pid.
      {"sched_process_fork",
       KernelEventKind::Fork,
       {{"parent_comm", "comm", Slot::Comm},
        {"parent_pid", "pid", Slot::Pid},
        {"child_comm", "child_comm", Slot::ChildComm},
        {"child_pid", "child_pid", Slot::ChildPid}}},
      {"sched_stat_runtime",
       KernelEventKind::StatRuntime,
       {{"comm", "comm", Slot::Comm},
        {"pid", "pid", Slot::Pid},
        {"runtime", "runtime", Slot::Runtime}}},
  }};
  return t;
}

[[noreturn]] void bad_field(const std::string& file, int line, std::string_view key,
                            const std::string& what) {
  fail_at(file, line, "field '" + std::string(key) + "': " + what);
}

// The messages are made out of line, in a function of their own: the checks that call them run
// for every field of every sample, and inline they kept the checks from being inlined.
[[noreturn, gnu::noinline, gnu::cold]] void outside(int64_t v, int64_t lo, int64_t hi,
                                                    const char* what, const std::string& file,
                                                    int line, const char* key) {
  bad_field(file, line, key,
            std::string(what) + " " + std::to_string(v) + " is outside " + std::to_string(lo) +
                ".." + std::to_string(hi));
}

// The key as it is (a view of it would measure it on every call).
int64_t in_range(int64_t v, int64_t lo, int64_t hi, const char* what, const std::string& file,
                 int line, const char* key) {
  if (v < lo || v > hi) outside(v, lo, hi, what, file, line, key);
  return v;
}

[[noreturn, gnu::noinline, gnu::cold]] void too_large(unsigned long long v, const std::string& file,
                                                      int line, std::string_view key) {
  bad_field(file, line, key, "'" + std::to_string(v) + "' is not an integer that fits 64 bits");
}

bool is_dynamic(const tep_format_field* f) { return (f->flags & TEP_FIELD_IS_DYNAMIC) != 0; }

// strnlen(s, 16), for a task's name (TASK_COMM_LEN bytes), by words (little-endian: the lowest
// flagged byte is the first NUL): the call into the C library cost more than the search, for
// every name of every sample.
size_t length_of_16(const char* s) {
  for (size_t at = 0; at < 16; at += 8) {
    uint64_t w;
    std::memcpy(&w, s + at, 8);
    const uint64_t zero = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
    if (zero) return at + static_cast<size_t>(std::countr_zero(zero)) / 8;
  }
  return 16;
}

// What trim_blanks() trims (kernel/text_fields.h): a name that neither starts nor ends so needs
// no call to it.
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

template <class Word>
unsigned long long word_in_place(const uint8_t* at) {
  Word w;
  std::memcpy(&w, at, sizeof w);
  return w;
}

// What tep_read_number gives for data in this machine's byte order, read in place: the call into
// the library per field cost as much as the rest of a sample's decoding. False for a size it
// does not read.
bool read_host_number(const uint8_t* at, int size, unsigned long long& v) {
  switch (size) {
    case 1:
      v = *at;
      return true;
    case 2:
      v = word_in_place<uint16_t>(at);
      return true;
    case 4:
      v = word_in_place<uint32_t>(at);
      return true;
    case 8:
      v = word_in_place<uint64_t>(at);
      return true;
    default:
      return false;
  }
}

}  // namespace

TracepointDecoder::TracepointDecoder(tep_handle* tep, tep_event* event, std::string name)
    : tep_(tep),
      event_(event),
      name_(std::move(name)),
      host_order_(tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep)) {
  trace_seq_init(&seq_);
  if (!event_ || std::string_view(event_->system) != "sched") return;
  const KindSpecs* ks = nullptr;
  for (const auto& k : kinds())
    if (k.name == event_->name) ks = &k;
  if (!ks) return;
  kind_ = ks->kind;
  bool pid = false, prev_pid = false, prev_state = false;
  for (const Spec& s : ks->specs) {
    tep_format_field* f = tep_find_field(event_, s.field);
    if (!f) continue;
    Bound b{f, s.key, s.slot};
    if (f->offset >= 0 && f->size > 0 && !is_dynamic(f) && host_order_) {
      b.offset = static_cast<uint32_t>(f->offset);
      b.end = b.offset + static_cast<uint32_t>(f->size);
    }
    b.size = f->size;
    b.is_signed = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
    fields_.push_back(b);
    pid = pid || s.slot == Slot::Pid;
    prev_pid = prev_pid || s.slot == Slot::PrevPid;
    prev_state = prev_state || s.slot == Slot::PrevState;
  }
  const bool is_switch = kind_ == KernelEventKind::Switch;
  if (!pid)
    missing_ = std::string("field '") + (is_switch ? "next_pid" : "pid") + "': missing";
  else if (is_switch && !prev_pid)
    missing_ = "field 'prev_pid': missing";
  else if (is_switch && !prev_state)
    missing_ = "field 'prev_state': missing";
}

TracepointDecoder::~TracepointDecoder() { trace_seq_destroy(&seq_); }

unsigned long long TracepointDecoder::read_number(const Bound& b, const uint8_t* raw, uint32_t size,
                                                  const std::string& file, int line) const {
  const tep_format_field* f = b.field;
  if (f->offset < 0 || f->size <= 0 || static_cast<uint64_t>(f->offset) + f->size > size)
    bad_field(file, line, b.key,
              "its format puts it outside the sample's " + std::to_string(size) + " bytes");
  unsigned long long v = 0;
  if (tep_read_number_field(b.field, raw, &v) != 0)
    bad_field(file, line, b.key,
              "a number of " + std::to_string(f->size) + " bytes (1, 2, 4 or 8 expected)");
  return v;
}

inline int64_t TracepointDecoder::number(const Bound& b, const uint8_t* raw, uint32_t size,
                                         const std::string& file, int line) const {
  unsigned long long v = 0;
  if (b.end == 0 || b.end > size || !read_host_number(raw + b.offset, b.size, v))
    v = read_number(b, raw, size, file, line);
  if (b.is_signed && b.size < 8) {
    const unsigned shift = 64 - 8 * static_cast<unsigned>(b.size);
    return static_cast<int64_t>(v << shift) >> shift;
  }
  if (v > static_cast<unsigned long long>(INT64_MAX) && !b.is_signed)
    too_large(v, file, line, b.key);
  return static_cast<int64_t>(v);
}

inline std::string_view TracepointDecoder::text(const Bound& b, const uint8_t* raw, uint32_t size,
                                                const std::string& file, int line) const {
  if (b.end == 0 || b.end > size) return described_text(b, raw, size, file, line);
  const auto* s = reinterpret_cast<const char*>(raw + b.offset);
  const bool name = b.size == 16 && std::endian::native == std::endian::little;
  std::string_view v(s, name ? length_of_16(s) : strnlen(s, static_cast<size_t>(b.size)));
  if (v.empty() || blank(v.front()) || blank(v.back())) v = trim_blanks(v);
  if (v.empty()) bad_field(file, line, b.key, "empty");
  return v;
}

std::string_view TracepointDecoder::described_text(const Bound& b, const uint8_t* raw,
                                                   uint32_t size, const std::string& file,
                                                   int line) const {
  const tep_format_field* f = b.field;
  uint64_t at = static_cast<uint64_t>(f->offset), len = static_cast<uint64_t>(f->size);
  if (f->offset < 0 || f->size <= 0 || at + len > size)
    bad_field(file, line, b.key,
              "its format puts it outside the sample's " + std::to_string(size) + " bytes");
  if (is_dynamic(f)) {  // a u32 locating the string: its offset in the low half, length high
    if (len != 4) bad_field(file, line, b.key, "a dynamic string's locator is not 4 bytes");
    uint32_t loc = 0;
    std::memcpy(&loc, raw + at, 4);
    const uint64_t base = (f->flags & TEP_FIELD_IS_RELATIVE) ? at + len : 0;
    at = base + (loc & 0xffff);
    len = loc >> 16;
    if (at + len > size)
      bad_field(file, line, b.key,
                "its string at " + std::to_string(at) + " runs past the sample's " +
                    std::to_string(size) + " bytes");
  }
  const auto* s = reinterpret_cast<const char*>(raw + at);
  // As printed (%s): up to the first NUL; then as the text parser reads a value, blanks trimmed.
  const std::string_view v = trim_blanks(std::string_view(s, strnlen(s, len)));
  if (v.empty()) bad_field(file, line, b.key, "empty");
  return v;
}

const TracepointDecoder::StateText& TracepointDecoder::prev_state(int64_t value, const uint8_t* raw,
                                                                  uint32_t size,
                                                                  const std::string& file,
                                                                  int line) {
  if (const StateText* known = states_.find(value)) return *known;
  // libtraceevent prints from the format's offsets: each fixed field must lie in the data, and
  // a dynamic one (at most 2 x 64 KiB past it) finds zeros.
  for (tep_format_field* f = event_->format.fields; f; f = f->next)
    if (!is_dynamic(f) &&
        (f->offset < 0 || f->size < 0 || static_cast<uint64_t>(f->offset) + f->size > size))
      bad_field(file, line, "prev_state",
                "its format puts field '" + std::string(f->name) + "' outside the sample's " +
                    std::to_string(size) + " bytes");
  scratch_.assign(size + 2 * 65536, 0);
  std::memcpy(scratch_.data(), raw, size);
  // The task names replaced by one letter: nothing they hold can look like prev_state.
  for (const Bound& b : fields_)
    if ((b.slot == Slot::PrevComm || b.slot == Slot::Comm) && !is_dynamic(b.field) &&
        b.field->size >= 2) {
      std::memset(scratch_.data() + b.field->offset, 0, static_cast<size_t>(b.field->size));
      scratch_[static_cast<size_t>(b.field->offset)] = 'x';
    }
  const tep_format_field* state = nullptr;
  for (const Bound& b : fields_)
    if (b.slot == Slot::PrevState) state = b.field;
  // The value asked for, and the first time the values a kernel writes — none, one state bit,
  // two — so that a capture's few distinct values take one child, not one each.
  std::vector<int64_t> values = {value};
  if (!guessed_) {
    guessed_ = true;
    for (int i = -1; i < 16; ++i)
      for (int j = i; j < 16; ++j)
        values.push_back((i < 0 ? 0 : int64_t{1} << i) | (j < 0 ? 0 : int64_t{1} << j));
  }
  tep_record record{};
  record.data = scratch_.data();
  record.size = static_cast<int>(size);
  // Printed in a child: the print format is the file's, and libtraceevent crashes on some
  // corrupt ones. Per value: the value, then 'y' and the printed state up to a NUL, or 'n' when
  // the print format does not print prev_state.
  const ChildResult printed = run_in_child([&](int out) {
    std::string sent;
    for (const int64_t v : values) {
      std::memcpy(scratch_.data() + state->offset, &v, static_cast<size_t>(state->size));
      trace_seq_reset(&seq_);
      tep_print_event(tep_, &seq_, &record, "%s", TEP_PRINT_INFO);
      const std::string_view info(seq_.buffer, seq_.len);
      constexpr std::string_view kKey = "prev_state=";
      const size_t at = info.find(kKey);
      sent.append(reinterpret_cast<const char*>(&v), sizeof v);
      if (at == std::string_view::npos) {
        sent += 'n';
        continue;
      }
      const size_t from = at + kKey.size();
      sent += 'y';
      sent += info.substr(from, std::min(info.find(" ==> ", from), info.find('\0', from)) - from);
      sent += '\0';
    }
    for (const char* p = sent.data(); p < sent.data() + sent.size();) {
      const ssize_t n = write(out, p, static_cast<size_t>(sent.data() + sent.size() - p));
      if (n <= 0) _exit(1);
      p += n;
    }
  });
  if (!printed.ok)  // a signal, or the exit a sanitizer makes of one
    bad_field(file, line, "prev_state",
              "libtraceevent died printing it by sched_switch's print format (" + printed.how +
                  "): a corrupt perf.data");
  const std::string_view got = printed.output;
  for (size_t at = 0; at + sizeof(int64_t) < got.size();) {
    int64_t v = 0;
    std::memcpy(&v, got.data() + at, sizeof v);
    at += sizeof v;
    const bool shown = got[at++] == 'y';
    const size_t end = shown ? got.find('\0', at) : at;
    if (end == std::string_view::npos) break;
    const std::string_view text = got.substr(at, end - at);
    at = shown ? end + 1 : end;
    if (!shown) {
      if (v == value) bad_field(file, line, "prev_state", "missing");
      continue;
    }
    // The text parser judges the printed state: what it refuses, or how it reads it, is the
    // same. A guessed value it refuses is left for a sample that has it.
    try {
      const KernelEvent parsed = parse_perf_line(
          "x 1/1 [000] 1.000000001: sched_switch: prev_comm=x prev_pid=1 prev_prio=120 "
          "prev_state=" +
              std::string(text) + " ==> next_comm=x next_pid=1 next_prio=120",
          file, line);
      if (!states_.find(v)) states_[v] = StateText{parsed.prev_state, parsed.prev_leave};
    } catch (const Error&) {
      if (v == value) throw;
    }
  }
  const StateText* found = states_.find(value);
  if (!found) bad_field(file, line, "prev_state", "printing it gave nothing");
  return *found;
}

void TracepointDecoder::decode(const uint8_t* raw, uint32_t size, KernelEvent& e,
                               const std::string& file) {
  const int line = e.line;
  if (!kind_)
    bad_field(file, line, "event",
              "unknown event '" + (name_.rfind("sched:", 0) == 0 ? name_.substr(6) : name_) + "'");
  e.kind = *kind_;
  for (const Bound& b : fields_) {
    switch (b.slot) {
      case Slot::Comm:
        e.comm = text(b, raw, size, file, line);
        break;
      case Slot::PrevComm:
        e.prev_comm = text(b, raw, size, file, line);
        break;
      case Slot::ChildComm:
        e.child_comm = text(b, raw, size, file, line);
        break;
      case Slot::Pid:
        e.pid = in_range(number(b, raw, size, file, line), 0, kPidMax, "pid", file, line, b.key);
        break;
      case Slot::PrevPid:
        e.prev_pid =
            in_range(number(b, raw, size, file, line), 0, kPidMax, "pid", file, line, b.key);
        break;
      case Slot::ChildPid:
        e.child_pid =
            in_range(number(b, raw, size, file, line), 0, kPidMax, "pid", file, line, b.key);
        break;
      case Slot::Prio:
        e.prio = static_cast<int>(
            in_range(number(b, raw, size, file, line), -1, 139, "prio", file, line, b.key));
        break;
      case Slot::PrevPrio:
        e.prev_prio = static_cast<int>(
            in_range(number(b, raw, size, file, line), -1, 139, "prio", file, line, b.key));
        break;
      case Slot::TargetCpu:
        e.target_cpu = static_cast<int>(
            in_range(number(b, raw, size, file, line), 0, kCpuMax, "CPU", file, line, b.key));
        break;
      case Slot::OrigCpu:
        e.orig_cpu = static_cast<int>(
            in_range(number(b, raw, size, file, line), 0, kCpuMax, "CPU", file, line, b.key));
        break;
      case Slot::DestCpu:
        e.dest_cpu = static_cast<int>(
            in_range(number(b, raw, size, file, line), 0, kCpuMax, "CPU", file, line, b.key));
        break;
      case Slot::Runtime:
        e.runtime_ns =
            in_range(number(b, raw, size, file, line), 0, INT64_MAX, "runtime", file, line, b.key);
        break;
      case Slot::PrevState: {
        const StateText& s = prev_state(number(b, raw, size, file, line), raw, size, file, line);
        e.prev_state = s.text;
        e.prev_leave = s.leave;
        break;
      }
    }
  }
  if (!missing_.empty()) fail_at(file, line, missing_);
  if (e.kind == KernelEventKind::Fork && e.child_pid == 0)
    bad_field(file, line, "child_pid", "missing");
}

}  // namespace vlag::kernel
