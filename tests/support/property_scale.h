// How large the property tests' cases are: VLAG_PROPERTY_SCALE (default 1, at most 1000)
// multiplies the length of generated operation sequences (tests/support/step_gen.h), while
// rapidcheck's max_success (RC_PARAMS, or RC_CASES in scripts/test) sets how many cases run. CI
// runs scale 1 with 200 cases; the nightly size is documented in the README.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace vlag::testing {

inline int property_scale() {
  static const int scale = [] {
    const char* s = std::getenv("VLAG_PROPERTY_SCALE");
    if (!s || !*s) return 1;
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > 1000) {
      std::fprintf(stderr, "VLAG_PROPERTY_SCALE=%s: expected an integer in 1..1000\n", s);
      std::exit(2);
    }
    return static_cast<int>(v);
  }();
  return scale;
}

}  // namespace vlag::testing
