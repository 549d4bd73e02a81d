#include "spec/arith.h"

namespace vlag {

std::string_view arith_name(Arith a) { return a == Arith::Linux64 ? "linux64" : "exact"; }

std::optional<Arith> arith_by_name(std::string_view name) {
  if (name == "exact") return Arith::Exact;
  if (name == "linux64") return Arith::Linux64;
  return std::nullopt;
}

}  // namespace vlag
