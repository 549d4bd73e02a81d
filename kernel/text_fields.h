// What the kernel's text parsers (kernel/perf_script.h, kernel/sched_debug.h) share: located
// errors "FILE:LINE: what", trimming, and 64-bit integers that must fit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vlag::kernel {

/// Throws vlag::Error "FILE:LINE: what".
[[noreturn]] void fail_at(const std::string& file, int line, const std::string& what);

/// s without leading and trailing blanks (space, tab, CR).
std::string_view trim_blanks(std::string_view s);

/// A decimal int64; throws "FILE:LINE: field 'F': 'TEXT' is not an integer that fits 64 bits".
int64_t parse_int64(std::string_view text, const std::string& file, int line,
                    std::string_view field);

}  // namespace vlag::kernel
