#include "kernel/text_fields.h"

#include <charconv>

#include "spec/error.h"

namespace vlag::kernel {

void fail_at(const std::string& file, int line, const std::string& what) {
  throw Error(file + ":" + std::to_string(line) + ": " + what);
}

// By hand: string_view's find_first_not_of calls memchr on the set once per character, and every
// field of every line of a capture goes through here.
std::string_view trim_blanks(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  size_t b = 0, e = s.size();
  while (b < e && blank(s[b])) ++b;
  while (e > b && blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

int64_t parse_int64(std::string_view text, const std::string& file, int line,
                    std::string_view field) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end)
    fail_at(file, line,
            "field '" + std::string(field) + "': '" + std::string(text) +
                "' is not an integer that fits 64 bits");
  return v;
}

}  // namespace vlag::kernel
