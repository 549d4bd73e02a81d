#include "cli/validators.h"

#include <charconv>

namespace vlag::cli {

CLI::Validator unsigned_integer(uint64_t max) {
  const std::string range = "0.." + std::to_string(max);
  return CLI::Validator(
      [max, range](std::string& text) {
        uint64_t x = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
        if (ec != std::errc{} || end != text.data() + text.size() || x > max)
          return "'" + text + "' is not an integer in " + range;
        return std::string();
      },
      "UINT in [0 - " + std::to_string(max) + "]");
}

}  // namespace vlag::cli
