// The two arithmetics the operations of SPEC.md §4 are computed in: the model's exact rationals,
// or Linux's 64-bit integers (SPEC.md §7: fixed-point calc_delta_fair, floored V, truncating
// divisions, wrapping u64 times). One name for every part of vlag that chooses one: the
// simulator's runqueues, a trace's header ("arith"), the checker's shadow and `vlag prove`.
// (reference/arith.h holds the formulas of each; this is only the choice.)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vlag {

enum class Arith : uint8_t { Exact, Linux64 };

/// "exact" or "linux64": the names in traces (spec/TRACE.md §2) and in `vlag prove --arith`.
std::string_view arith_name(Arith a);
std::optional<Arith> arith_by_name(std::string_view name);

}  // namespace vlag
