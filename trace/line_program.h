// Lines of one kind of event have the same keys in the same order: a line with the keys of a line
// read before is read straight into the Event, each key compared whole with its `"key":`, each
// value parsed as its field takes it — with no split into a list of fields and no dispatch on
// each field's key by name, the general reading's (trace/reader.cpp). A line it does not take as
// it stands (another key, a value of another type or out of its field's range, an integer of more
// than 18 digits, an unknown event) it gives back, and the general reading then reads it or names
// its fault: so every line reads into the same Event, whichever reading took it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/event.h"
#include "trace/keys.h"
#include "trace/last_name.h"
#include "trace/plain_line.h"

namespace vlag::trace {

/// Which of the fields the checks of a whole event ask for a line had, and whether its weight was
/// null (Reader's checks after the fields, the same for both readings).
struct FieldsSeen {
  bool t = false, ev = false, delta = false, weight = false, slice = false, preempt = false,
       to = false, weight_null = false;
};

/// What a field's value may be, from the trace's header.
struct FieldLimits {
  int64_t ncpus = 1;
  int64_t max_r = 0;  // the largest slice `r`
  bool v2 = true;     // version 2: its fields are read (version 1 ignores them)
};

class LineProgram {
 public:
  /// How many bytes after a line's end `read` may load (and ignore): the line's storage must
  /// have them.
  static constexpr size_t kSlack = 32;

  /// The program of lines with `line`'s keys, in its order; each key once (the caller read the
  /// line, which checks that).
  explicit LineProgram(const PlainLine& line);
  bool has_keys_of(const PlainLine& line) const;

  /// Reads `line` into e: true when the line has this program's keys and every value is one it
  /// takes; false otherwise (e then holds part of the line). `holds_last`: e holds what this
  /// program read of the line before, and nothing else wrote to it since; otherwise e is cleared
  /// first.
  bool read(std::string_view line, const FieldLimits& limits, Event& e, bool holds_last);
  /// Which fields the line read last had.
  const FieldsSeen& seen() const { return seen_; }

 private:
  // The segment of a field in the line read last, `"key":value,` (or `}`), when it has at most
  // kSegment bytes: its bytes as three words, the first byte lowest, with the masks of those that
  // count. Size 0: none.
  static constexpr size_t kSegment = 24;
  struct Segment {
    uint8_t size = 0;
    std::array<uint64_t, 3> words{}, masks{};
  };
  // A key as it stands in a line, `"key":`: its bytes in text_ from `from`, and when it has at
  // most 16, those bytes as two words with their masks.
  struct Field {
    Key key = Key::Other;
    size_t from = 0, size = 0;
    std::array<uint64_t, 2> words{}, masks{};
    Segment last;
  };
  bool key_at(const Field& f, const char* q, const char* end) const;
  static bool same_segment(const Field& f, const char* q, const char* end);
  static void remember(Field& f, const char* from, const char* to);
  const char* read_value(Key key, const char* q, const char* end, const FieldLimits& limits,
                         Event& e);
  static const char* read_v2_value(Key key, const char* q, const char* end, Event& e);

  std::vector<Field> fields_;
  std::string text_;
  FieldsSeen keys_seen_;  // what the keys say; weight_null by each line
  FieldsSeen seen_;       // … and the line read last
  LastName<EventKind> last_event_;
  LastName<Status> last_status_;
};

/// The programs of the last few kinds of line read, the one that read the line before first.
class LinePrograms {
 public:
  static constexpr size_t kPrograms = 4;
  /// LineProgram::read by the first of the programs that takes the line, into the event every
  /// call is given, which nothing else writes to but what forget() announces.
  bool read(std::string_view line, const FieldLimits& limits, Event& e, FieldsSeen& seen);
  /// A line that the general reading read (a plain one): a program for its keys from now on, in
  /// place of the one used longest ago.
  void learn(const PlainLine& line);
  /// The event was written by another reading (or not at all): the next line is read whole.
  void forget() { filled_ = false; }

 private:
  std::vector<LineProgram> programs_;  // most recently used first
  bool filled_ = false;                // the event holds the first program's last reading
};

}  // namespace vlag::trace
