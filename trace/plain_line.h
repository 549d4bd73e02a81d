// The shape every producer writes an event line in (trace/writer.h): one flat JSON object, no
// whitespace, keys without escapes, and values that are integers, strings of printable ASCII
// without escapes, true, false or null. Such a line is split into its fields in one pass, with
// no copy; the trace reader (trace/reader.h) reads them without simdjson's two stages, and gives
// any other line — and any line it finds a fault in — to simdjson, which then says what is wrong.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vlag::trace {

struct PlainValue {
  enum class Type : uint8_t { Integer, String, True, False, Null };
  Type type = Type::Null;
  std::string_view text;  // an integer's digits (and sign); a string's characters, unquoted
  /// An integer of at most 18 digits (so an s64) is read as it is split: its value.
  std::optional<int64_t> small;
};

struct PlainField {
  std::string_view key;  // the line's characters, or the same kept by the PlainLine
  PlainValue value;
};

/// The fields of a plain line, in the line's order.
class PlainLine {
 public:
  static constexpr size_t kMaxFields = 32;
  std::array<PlainField, kMaxFields> fields;
  size_t size = 0;
  /// The keys are those of the previous plain line split into this one, in the same order
  /// (lines of one kind of event have the same keys): what a reader made of them still holds.
  bool same_keys = false;

 private:
  friend bool split_plain_line(std::string_view line, PlainLine& out);
  enum class Known { Done, Differs, Fault };
  Known split_known(std::string_view line, size_t& i);
  void keep_keys();
  bool known_key(std::string_view line, size_t& i, size_t n) const;
  std::string_view kept_key(size_t n) const {
    return {keys_.data() + patterns_[n].from, patterns_[n].size - 3};
  }

  // A key of the previous plain line as it stands in a line, `"key":`: its characters in keys_
  // from `from`, and, when it is at most 16 bytes, those bytes as two words (the first byte
  // lowest) with the masks of the bytes that count.
  struct KeyPattern {
    size_t from = 0, size = 0;  // size: of `"key":`
    std::array<uint64_t, 2> words{}, masks{};
  };
  std::string keys_;
  std::array<KeyPattern, kMaxFields> patterns_{};
  size_t key_count_ = 0;
};

/// Splits `line` into `out` when the whole line is a plain object (as above, and at most
/// kMaxFields fields, at least one); false otherwise. A plain line is valid JSON (RFC 8259).
bool split_plain_line(std::string_view line, PlainLine& out);

}  // namespace vlag::trace
