// Small helpers shared by the reference tests: build a runqueue for a preset and read exact
// values in the units the worked examples use.
#pragma once

#include <string>

#include "reference/runqueue.h"
#include "spec/features.h"

namespace vlag::testing {

inline reference::Runqueue make_rq(const std::string& preset, int hz = 250) {
  return reference::Runqueue(make_params(preset_by_name(preset), hz));
}

inline reference::Num q(long num, long den = 1) {
  reference::Num x(num, den);
  x.canonicalize();
  return x;
}

}  // namespace vlag::testing
