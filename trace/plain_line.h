// The shape every producer writes an event line in (trace/writer.h): one flat JSON object, no
// whitespace, keys without escapes, and values that are integers, strings of printable ASCII
// without escapes, true, false or null. Such a line is split into its fields in one pass, with
// no copy; the trace reader (trace/reader.h) reads them without simdjson's two stages, and gives
// any other line — and any line it finds a fault in — to simdjson, which then says what is wrong.
// (A line with the keys of a line read before is read faster still, by trace/line_program.h.)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
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
  std::string_view key;  // the line's characters
  PlainValue value;
};

/// The fields of a plain line, in the line's order.
struct PlainLine {
  static constexpr size_t kMaxFields = 32;
  std::array<PlainField, kMaxFields> fields;
  size_t size = 0;
};

/// Splits `line` into `out` when the whole line is a plain object (as above, and at most
/// kMaxFields fields, at least one); false otherwise. A plain line is valid JSON (RFC 8259).
bool split_plain_line(std::string_view line, PlainLine& out);

}  // namespace vlag::trace
