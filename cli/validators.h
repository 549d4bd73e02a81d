// CLI11 validators the subcommands share, for values CLI11's own conversions let through: it
// reads "-1" and "18446744073709551616" into a uint64_t as 2^64 - 1.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace vlag::cli {

/// A whole number in 0..max, digits only: rejects a sign, a fraction and an overflow.
CLI::Validator unsigned_integer(uint64_t max = std::numeric_limits<uint64_t>::max());

}  // namespace vlag::cli
